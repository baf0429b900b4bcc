/**
 * Instructions redis-server executes per bucket operation, counted by valgrind's callgrind: unlike
 * CPU time, the count does not depend on what else the machine runs, so two versions of the script
 * compare on a busy machine. Starts its own redis-server under valgrind (never the shared 6379),
 * warms up, zeroes the counters, runs the calls with 64 operations in flight over 1,000 keys, and
 * prints instructions per operation for each batch size.
 *
 *   npx tsx bench/callgrind-script.ts                    lua/bucket.lua, consumes, batches of 1, 32, 64
 *   npx tsx bench/callgrind-script.ts --op p --sizes 64  peeks
 *   npx tsx bench/callgrind-script.ts --floor            the `return 1` script, one key per call
 *   npx tsx bench/callgrind-script.ts --script other.lua --rate 1 --capacity 1e9
 *
 * Needs valgrind and callgrind_control (Debian: apt-get install valgrind). About 20 s per size.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from '../test/support/redis-server.js';

const IN_FLIGHT = 64;
const KEYS = 1000;

/** Instructions per operation for `calls` script calls of `opsPerCall` operations each. */
async function count(
  lua: string,
  args: (call: number) => string[],
  calls: number,
  opsPerCall: number,
): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'graphql-budget-callgrind-'));
  const port = await freePort();
  const server = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      `--callgrind-out-file=${dir}/out.%p`,
      'redis-server',
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
    ],
    { stdio: 'ignore' },
  );
  const client = new Redis({ port, host: '127.0.0.1', retryStrategy: () => 200, maxRetriesPerRequest: null });
  client.on('error', () => undefined);
  try {
    await client.ping();
    client.defineCommand('script', { lua });
    const command = (client as unknown as { script(...args: string[]): Promise<unknown> }).script.bind(client);
    let next = 0;
    const run = async (total: number): Promise<void> => {
      let left = total;
      const lanes = Math.max(1, Math.round(IN_FLIGHT / opsPerCall));
      await Promise.all(
        Array.from({ length: lanes }, async () => {
          while (left-- > 0) await command(...args(next++));
        }),
      );
    };
    await run(Math.min(2000, calls));
    execFileSync('callgrind_control', ['-z', String(server.pid)], { stdio: 'ignore' });
    await run(calls);
    execFileSync('callgrind_control', ['-d', String(server.pid)], { stdio: 'ignore' });
    let instructions = 0;
    for (let attempt = 0; attempt < 50 && instructions === 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (const file of readdirSync(dir).filter((name) => name !== `out.${server.pid}` && name.startsWith('out.'))) {
        const total = /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dir, file), 'utf8'));
        if (total) instructions = Math.max(instructions, Number(total[1]));
      }
    }
    return instructions / calls / opsPerCall;
  } finally {
    client.disconnect();
    server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

const { values } = parseArgs({
  options: {
    script: { type: 'string', default: 'lua/bucket.lua' },
    floor: { type: 'boolean', default: false },
    op: { type: 'string', default: 'c' },
    sizes: { type: 'string', default: '1,32,64' },
    rate: { type: 'string', default: '1000000' },
    capacity: { type: 'string', default: '1e12' },
    operations: { type: 'string', default: '8000' },
  },
});
const key = (n: number): string => `gb:k:user-${n % KEYS}`;
if (values.floor) {
  const perCall = await count('return 1', (call) => ['1', key(call)], Number(values.operations), 1);
  console.log(`return 1: ${Math.round(perCall)} instructions per call`);
} else {
  const lua = readFileSync(values.script, 'utf8');
  for (const size of values.sizes.split(',').map(Number)) {
    const args = (call: number): string[] => {
      const keys: string[] = [];
      const ops: string[] = [];
      for (let i = 0; i < size; i++) {
        keys.push(key(call * size + i));
        ops.push(`${values.op}1`, '1', '', values.capacity, values.rate);
      }
      return [String(size), ...keys, '', ...ops];
    };
    const calls = Math.max(200, Math.round(Number(values.operations) / size));
    const perOperation = await count(lua, args, calls, size);
    console.log(
      `${values.script}, ${size} operation(s) per call: ${Math.round(perOperation)} instructions per operation`,
    );
  }
}
