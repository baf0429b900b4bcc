/**
 * What it costs a Node HTTP server to write the plugin's annotated response, against bare Apollo
 * Server's, and why: the in-process section's two answers (bare, and the plugin's with
 * MemoryBucketStore: two more headers and `extensions.cost` in the body) are captured once, then a
 * plain `node:http` server in a process of its own writes them back the way Apollo Server's
 * standalone server does (`setHeader` per header, then `res.end(body)`), in four shapes: as they
 * are, the bare body with the plugin's headers (header count), and the plugin's body with the
 * bare headers (size). Keep-alive requests, 8 in flight, interleaved rounds; the server process's
 * CPU time per request, as the median of the per-round differences to the bare shape.
 *
 *   npm run bench:response-write -- [rounds]     (default 20 rounds of 2,000 requests per shape)
 *
 * With `--serve`, it is the server: it answers GET /<shape> and reports its CPU time over IPC.
 */
import { fork } from 'node:child_process';
import { Agent, createServer, request } from 'node:http';
import { MemoryBucketStore } from 'graphql-budget';
import { startApolloServer } from './in-process/apollo-server.js';
import { SMALL_OPERATION } from './in-process/bookstore.js';
import type { InProcessReply } from './in-process/variant.js';
import { builtScript } from './lib/paths.js';
import { median, quartiles, rotate } from './lib/stats.js';

interface Shape {
  headers: [string, string][];
  body: string;
}

const PER_ROUND = 2000;
const IN_FLIGHT = 8;

/** The reply's headers as Apollo's standalone server sets them (with the CORS header it adds first). */
function headersOf(reply: InProcessReply): [string, string][] {
  const entries = reply.headers as unknown as Iterable<[string, string]>;
  return [['access-control-allow-origin', '*'], ...entries];
}

async function shapes(): Promise<Record<string, Shape>> {
  const bare = await startApolloServer({ kind: 'bare' });
  const plugin = await startApolloServer({ kind: 'budget', store: new MemoryBucketStore() });
  try {
    const [bareReply, pluginReply] = [await bare.request(SMALL_OPERATION), await plugin.request(SMALL_OPERATION)];
    const bareShape = { headers: headersOf(bareReply), body: bareReply.body };
    const pluginShape = { headers: headersOf(pluginReply), body: pluginReply.body };
    return {
      bare: bareShape,
      plugin: pluginShape,
      'bare body, plugin headers': { headers: pluginShape.headers, body: bareShape.body },
      'plugin body, bare headers': { headers: bareShape.headers, body: pluginShape.body },
    };
  } finally {
    await bare.stop();
    await plugin.stop();
  }
}

function serve(table: Record<string, Shape>): void {
  const byPath = new Map(Object.entries(table).map(([name, shape], index) => [`/${index}`, { name, shape }]));
  const server = createServer((req, res) => {
    const entry = byPath.get(req.url ?? '');
    req.resume();
    req.on('end', () => {
      if (entry === undefined) {
        res.statusCode = 404;
        res.end();
        return;
      }
      for (const [name, value] of entry.shape.headers) res.setHeader(name, value);
      res.statusCode = 200;
      res.end(entry.shape.body);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
  });
  process.on('message', (message: unknown) => {
    if (message === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send?.({ cpu: user + system });
    }
  });
  process.once('disconnect', () => server.close(() => process.exit(0)));
}

if (process.argv.includes('--serve')) {
  serve(await shapes());
} else {
  const rounds = Number(process.argv[2] ?? 20);
  const table = await shapes();
  const names = Object.keys(table);
  for (const name of names) {
    const { headers, body } = table[name]!;
    console.log(`${name}: ${headers.length} headers, body ${Buffer.byteLength(body)} B`);
  }
  const child = fork(builtScript('bench/response-write.ts'), ['--serve'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve) =>
    child.once('message', (message: { port: number }) => resolve(message.port)),
  );
  const cpu = (): Promise<number> =>
    new Promise((resolve) => {
      child.once('message', (message: { cpu: number }) => resolve(message.cpu));
      child.send('cpu');
    });
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  const get = (path: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const outgoing = request({ host: '127.0.0.1', port, path, agent }, (response) => {
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
        });
        response.on('end', () =>
          response.statusCode === 200 ? resolve(bytes) : reject(new Error(`status ${response.statusCode}`)),
        );
      });
      outgoing.on('error', reject);
      outgoing.end();
    });
  const drive = async (path: string, count: number): Promise<void> => {
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next++ < count) await get(path);
      }),
    );
  };
  const perRequest = new Map<string, number[]>(names.map((name) => [name, []]));
  try {
    for (const [index] of names.entries()) await drive(`/${index}`, PER_ROUND);
    for (let round = 0; round < rounds; round++) {
      for (const name of rotate(names, round)) {
        const before = await cpu();
        await drive(`/${names.indexOf(name)}`, PER_ROUND);
        perRequest.get(name)!.push(((await cpu()) - before) / PER_ROUND);
      }
    }
  } finally {
    agent.destroy();
    child.disconnect();
  }
  const bare = perRequest.get('bare')!;
  console.log(
    `\nserver CPU per request (µs), ${rounds} rounds of ${PER_ROUND} requests per shape, ${IN_FLIGHT} in flight:`,
  );
  for (const name of names) {
    const values = perRequest.get(name)!;
    const added = values.map((us, round) => us - bare[round]!);
    const [low, high] = quartiles(added);
    const vs =
      name === 'bare'
        ? ''
        : `  ${median(added) >= 0 ? '+' : ''}${median(added).toFixed(1)} (IQR ${low.toFixed(1)} to ${high.toFixed(1)}) vs bare`;
    console.log(`  ${name.padEnd(28)} ${median(values).toFixed(1).padStart(7)}${vs}`);
  }
}
