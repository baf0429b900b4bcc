/**
 * Where the plugin's CPU time goes per request, function by function, on the built package: a
 * variant of the in-process section (bench/in-process/variants.ts) and its baseline (bare Apollo
 * Server) in this one process, answering one of the section's operations (8 in flight) in interleaved
 * rounds under V8's CPU profiler (the one `node --cpu-prof` starts, here through `node:inspector`
 * around the measured rounds only, after a warm-up, sampling every 100 µs). Each sample is given
 * to the variant whose round was running when it was taken; self time is summed per package,
 * file and function and divided by that variant's requests. Prints the two side by side, then the
 * built package's own functions (`dist/esm/…:line name`).
 *
 *   npm run bench:profile-in-process -- [variant] [rounds] [--operation small|large] [--functions <place>]
 *     variant      apollo-memory (default) or another id of bench/in-process/variants.ts with a baseline
 *     rounds       rounds of 1,000 requests per variant (default 20)
 *     --operation  the operation of bench/in-process/bookstore.ts: small (default, `10 books × 3`) or large
 *     --functions  also list the functions of a place of the table, e.g. pkg/ioredis (repeatable)
 *
 * The profiler adds its own cost (10–20 % here): compare the columns, not the absolute figures
 * with the in-process section's.
 */
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import { BOOKSTORE_OPERATIONS, type BookstoreOperation } from './in-process/bookstore.js';
import type { InProcessServer, InProcessVariant } from './in-process/variant.js';
import { IN_PROCESS_VARIANTS } from './in-process/variants.js';
import { breakdown, printComparison, type CpuProfile } from './lib/cpu-profile.js';
import { startBenchRedis } from './lib/redis.js';
import { rotate } from './lib/stats.js';
import { replyProblem } from './sections/in-process.js';

const IN_FLIGHT = 8;
const PER_ROUND = 1000;

/** Sends `count` requests, 8 in flight, checking every answer. */
async function drive(
  variant: InProcessVariant,
  server: InProcessServer,
  operation: BookstoreOperation,
  count: number,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next++ < count) {
        const problem = replyProblem(variant, operation, await server.request(operation));
        if (problem !== undefined) throw new Error(`${variant.label}: ${problem}`);
      }
    }),
  );
}

const nowUs = (): number => Number(process.hrtime.bigint() / 1000n);

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { functions: { type: 'string', multiple: true }, operation: { type: 'string', default: 'small' } },
});
const id = positionals[0] ?? 'apollo-memory';
const rounds = Number(positionals[1] ?? 20);
const variant = IN_PROCESS_VARIANTS.find((candidate) => candidate.id === id);
const baseline = IN_PROCESS_VARIANTS.find((candidate) => candidate.id === variant?.baseline);
if (variant === undefined || baseline === undefined) {
  const ids = IN_PROCESS_VARIANTS.filter((candidate) => candidate.baseline !== undefined).map(
    (candidate) => candidate.id,
  );
  throw new RangeError(`variant must be one of ${ids.join(', ')}, got ${id}`);
}
const operation = BOOKSTORE_OPERATIONS.find((candidate) => candidate.id === values.operation);
if (operation === undefined) {
  const ids = BOOKSTORE_OPERATIONS.map((candidate) => candidate.id);
  throw new RangeError(`--operation must be one of ${ids.join(', ')}, got ${values.operation}`);
}
const redis = await startBenchRedis();
const both = [baseline, variant];
const servers = new Map<InProcessVariant, InProcessServer>();
try {
  for (const each of both) servers.set(each, await each.start({ redisUrl: redis.url }));
  for (const each of both) await drive(each, servers.get(each)!, operation, 5000);
  const windows = new Map<InProcessVariant, [number, number][]>(both.map((each) => [each, []]));
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  for (let round = 0; round < rounds; round++) {
    for (const each of rotate(both, round)) {
      const start = nowUs();
      await drive(each, servers.get(each)!, operation, PER_ROUND);
      windows.get(each)!.push([start, nowUs()]);
    }
  }
  const profile = (await session.post('Profiler.stop')).profile as CpuProfile;
  session.disconnect();
  const of = (each: InProcessVariant) => {
    const spans = windows.get(each)!;
    return breakdown(
      profile,
      rounds * PER_ROUND,
      (at) => spans.some(([start, end]) => at >= start && at < end),
      values.functions ?? [],
    );
  };
  printComparison(of(baseline), baseline.id, of(variant), variant.id);
} finally {
  for (const server of servers.values()) await server.stop();
  await redis.stop();
}
