/**
 * Redis time per batched consume of the built package's script against another version of it, on
 * one redis-server this starts (never the shared 6379): both scripts get the same calls (32
 * consumes each, the built package's argument packing, two calls in flight over 1,000 keys) in
 * alternating rounds, and `INFO commandstats` gives the time Redis spent running them per consume
 * in each round. Prints the medians and the median of the per-round ratios, which a busy machine
 * moves far less than either figure.
 *
 *   npm run bench:script-time -- --against old.lua [--rate 1 --capacity 1e9] [--rounds 20]
 *
 * `git show <commit>:lua/bucket.lua > old.lua` gives a previous version. The default policy
 * (refill 1/s, capacity 1e9) keeps every bucket alive between visits, as an active caller's is;
 * `--rate 1000000 --capacity 1e12` lets each expire between visits, as in the store throughput
 * section of `npm run bench`.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Redis } from 'ioredis';
import { BUCKET_SCRIPT, bucketScriptArgs, type BucketScriptOp } from '../src/bucket/bucket-script.js';
import { connect, startBenchRedis } from './lib/redis.js';
import { median } from './lib/stats.js';

const SIZE = 32;
const KEYS = 1000;
const CALLS = 500;

const { values } = parseArgs({
  options: {
    against: { type: 'string' },
    rate: { type: 'string', default: '1' },
    capacity: { type: 'string', default: '1e9' },
    rounds: { type: 'string', default: '20' },
  },
});
if (values.against === undefined) throw new RangeError('--against <file.lua> is required');
const policy = { capacity: Number(values.capacity), refillPerSecond: Number(values.rate) };
const rounds = Number(values.rounds);
const scripts = { built: BUCKET_SCRIPT, against: readFileSync(values.against, 'utf8') };
type Name = keyof typeof scripts;

/** Time Redis has spent in EVAL and EVALSHA so far (µs). */
async function scriptMicros(client: Redis): Promise<number> {
  const stats = await client.info('commandstats');
  let usec = 0;
  for (const match of stats.matchAll(/^cmdstat_(?:eval|evalsha):calls=\d+,usec=(\d+)/gm)) usec += Number(match[1]);
  return usec;
}

const redis = await startBenchRedis();
const client = await connect(redis.port);
try {
  for (const [name, lua] of Object.entries(scripts)) client.defineCommand(name, { lua });
  const commands = client as unknown as Record<Name, (...args: string[]) => Promise<unknown>>;
  let next = 0;
  const args = (): string[] => {
    const ops: BucketScriptOp[] = Array.from({ length: SIZE }, () => ({
      op: 'consume',
      amount: 1,
      keys: [`script-time:user-${next++ % KEYS}`],
      policies: [policy],
    }));
    return bucketScriptArgs(ops);
  };
  const run = async (name: Name, calls: number): Promise<void> => {
    let left = calls;
    await Promise.all(
      [0, 1].map(async () => {
        while (left-- > 0) await commands[name].apply(client, args());
      }),
    );
  };
  for (const name of ['built', 'against'] as const) await run(name, CALLS);
  const perConsume: Record<Name, number[]> = { built: [], against: [] };
  for (let round = 0; round < rounds; round++) {
    for (const name of round % 2 === 0 ? (['built', 'against'] as const) : (['against', 'built'] as const)) {
      const before = await scriptMicros(client);
      await run(name, CALLS);
      perConsume[name].push(((await scriptMicros(client)) - before) / (CALLS * SIZE));
    }
  }
  const ratios = perConsume.built.map((us, round) => us / perConsume.against[round]!);
  console.log(
    `Redis time per batched consume (refill ${values.rate}/s, capacity ${values.capacity}; ${rounds} rounds): ` +
      `built script ${median(perConsume.built).toFixed(2)} µs, ${values.against} ${median(perConsume.against).toFixed(2)} µs; ` +
      `built / other ${median(ratios).toFixed(3)}×`,
  );
} finally {
  client.disconnect();
  await redis.stop();
}
