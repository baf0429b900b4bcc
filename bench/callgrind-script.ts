/**
 * Instructions redis-server executes per bucket operation, counted by valgrind's callgrind: unlike
 * CPU time, the count does not depend on what else the machine runs, so two versions of the script
 * compare on a busy machine. Starts its own redis-server under valgrind (never the shared 6379),
 * warms up, zeroes the counters, runs the operations, and prints instructions per operation.
 *
 *   npm run bench:callgrind                          the built RedisBucketStore: 64 consumes in flight
 *                                                    over 1,000 keys, batched as users run it
 *   npm run bench:callgrind -- --timeout-ms 60000    the same with a deadline on every consume, as the plugin
 *                                                    sends (valgrind slows Redis 50-fold: a 50 ms deadline expires)
 *   npm run bench:callgrind -- --sizes 1,32,64       the built package's script and argument packing,
 *                                                    calls of 1, 32 and 64 consumes each
 *   npm run bench:callgrind -- --sizes 64 --op p     peeks
 *   npm run bench:callgrind -- --sizes 64 --script other.lua   another script, same arguments
 *   npm run bench:callgrind -- --floor               the `return 1` script, one key per call
 *
 * `--rate` and `--capacity` set the policy (by default one that always allows), `--operations`
 * about how many operations are counted (8,000 by default, at least 200 calls). Needs valgrind and
 * callgrind_control (Debian: apt-get install valgrind). About 20 s per measurement.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { RedisBucketStore, type BucketPolicy } from 'graphql-budget';
import { BUCKET_SCRIPT, bucketScriptArgs, type BucketScriptOp } from '../src/bucket/bucket-script.js';
import { freePort } from '../test/support/redis-server.js';

const IN_FLIGHT = 64;
const KEYS = 1000;

/**
 * Starts redis-server under callgrind, runs `work(client, operations)` once to warm up (at most
 * 2,000 operations) and once counted, and returns the instructions per counted operation.
 */
async function count(work: (client: Redis, operations: number) => Promise<void>, operations: number): Promise<number> {
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
    await work(client, Math.min(2000, operations));
    execFileSync('callgrind_control', ['-z', String(server.pid)], { stdio: 'ignore' });
    await work(client, operations);
    execFileSync('callgrind_control', ['-d', String(server.pid)], { stdio: 'ignore' });
    let instructions = 0;
    for (let attempt = 0; attempt < 50 && instructions === 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (const file of readdirSync(dir).filter((name) => name !== `out.${server.pid}` && name.startsWith('out.'))) {
        const total = /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dir, file), 'utf8'));
        if (total) instructions = Math.max(instructions, Number(total[1]));
      }
    }
    return instructions / operations;
  } finally {
    client.disconnect();
    server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

const { values } = parseArgs({
  options: {
    sizes: { type: 'string' },
    script: { type: 'string' },
    floor: { type: 'boolean', default: false },
    op: { type: 'string', default: 'c' },
    'timeout-ms': { type: 'string' },
    rate: { type: 'string', default: '1000000' },
    capacity: { type: 'string', default: '1e12' },
    operations: { type: 'string', default: '8000' },
  },
});
const operations = Number(values.operations);
const policy: BucketPolicy = { capacity: Number(values.capacity), refillPerSecond: Number(values.rate) };
const key = (n: number): string => `gb:k:user-${n % KEYS}`;
const print = (label: string, perOperation: number): void => {
  console.log(`${label}: ${Math.round(perOperation)} instructions per operation`);
};

/** Runs `operations` calls of `call`, 64 / `perCall` at a time, so that about 64 operations are in flight. */
async function lanes(total: number, perCall: number, call: (index: number) => Promise<unknown>): Promise<void> {
  let left = total;
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, Math.round(IN_FLIGHT / perCall)) }, async () => {
      while (left-- > 0) await call(next++);
    }),
  );
}

if (values.floor) {
  const work = async (client: Redis, total: number): Promise<void> => {
    client.defineCommand('floor', { numberOfKeys: 1, lua: 'return 1' });
    const floor = (client as unknown as { floor(key: string): Promise<unknown> }).floor.bind(client);
    await lanes(total, 1, (call) => floor(key(call)));
  };
  print('return 1, one key per call', await count(work, operations));
} else if (values.sizes === undefined) {
  // As users run it: the built store, batching on (its default), 64 consumes in flight.
  const timeoutMs = values['timeout-ms'] === undefined ? undefined : Number(values['timeout-ms']);
  const work = async (client: Redis, total: number): Promise<void> => {
    const store = new RedisBucketStore(client, { prefix: 'gb:' });
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < total) {
          const index = next++;
          await store.consume(`user-${index % KEYS}`, 1, policy, timeoutMs === undefined ? undefined : { timeoutMs });
        }
      }),
    );
  };
  const deadline = timeoutMs === undefined ? '' : `, timeoutMs ${timeoutMs}`;
  print(
    `RedisBucketStore.consume (built package, batched${deadline}), ${IN_FLIGHT} in flight`,
    await count(work, operations),
  );
} else {
  // The built package's packing of a call of `size` operations, on its script or another.
  const lua = values.script === undefined ? BUCKET_SCRIPT : readFileSync(values.script, 'utf8');
  const op = values.op === 'p' ? 'peek' : values.op === 'r' ? 'refund' : 'consume';
  for (const size of values.sizes.split(',').map(Number)) {
    const args = (call: number): string[] => {
      const ops: BucketScriptOp[] = Array.from({ length: size }, (_, index) => ({
        op,
        amount: 1,
        keys: [key(call * size + index)],
        policies: [policy],
      }));
      return bucketScriptArgs(ops);
    };
    const work = async (client: Redis, total: number): Promise<void> => {
      client.defineCommand('bucket', { lua });
      const run = (client as unknown as { bucket(...args: string[]): Promise<unknown> }).bucket.bind(client);
      await lanes(Math.max(1, Math.round(total / size)), size, (call) => run(...args(call)));
    };
    const calls = Math.max(200, Math.round(operations / size));
    print(`${values.script ?? 'the built script'}, ${size} ${op}(s) per call`, await count(work, calls * size));
  }
}
