import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { RedisBucketStore, type BucketStore } from 'graphql-budget';
import { redisCpuMicros } from '../lib/machine.js';
import { median, range, rotate } from '../lib/stats.js';
import {
  alternatingRounds,
  formatInt,
  formatUs,
  goalNote,
  ratioRow,
  type Row,
  type SectionResult,
} from '../lib/report.js';

export interface StoreThroughputOptions {
  /** The one ioredis client every variant goes through. */
  client: Redis;
  /** Our store, built over `client` with its defaults (batching on). */
  store: BucketStore;
  inFlight: number;
  keys: number;
  /** Alternating rounds; each runs every variant once. */
  rounds: number;
  /** Seconds each variant runs per round. */
  seconds: number;
}

interface Variant {
  name: string;
  call(key: number): Promise<unknown>;
}

/** The client after `defineCommand('benchFloor', …)`. */
interface FloorClient {
  benchFloor(key: string): Promise<number>;
}

interface Sample {
  /** Calls per second. */
  rate: number;
  /** CPU time of this Node process per call (µs). */
  nodeCpu: number;
  /** CPU time of redis-server per call (µs). */
  redisCpu: number;
  /** Time Redis spent running scripts per call (µs): `INFO commandstats` usec of EVAL and EVALSHA. */
  scriptUs: number;
  /** Mean time from call to answer (µs). */
  latencyUs: number;
}

/** Total usec Redis spent in EVAL and EVALSHA so far (`INFO commandstats`). */
async function scriptMicros(client: Redis): Promise<number> {
  const stats = await client.info('commandstats');
  let usec = 0;
  for (const match of stats.matchAll(/^cmdstat_(?:eval|evalsha):calls=\d+,usec=(\d+)/gm)) usec += Number(match[1]);
  return usec;
}

/** Runs `inFlight` concurrent loops of `call` over `keys` keys for `seconds`. */
async function measure(
  client: Redis,
  variant: Variant,
  keys: number,
  inFlight: number,
  seconds: number,
): Promise<Sample> {
  let next = 0;
  let done = 0;
  const redisBefore = await redisCpuMicros(client);
  const scriptBefore = await scriptMicros(client);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const loop = async (): Promise<void> => {
    while (performance.now() < deadline) {
      await variant.call(next++ % keys);
      done++;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, loop));
  const elapsedUs = (performance.now() - started) * 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const redisCpu = (await redisCpuMicros(client)) - redisBefore;
  const scriptUs = (await scriptMicros(client)) - scriptBefore;
  return {
    rate: done / (elapsedUs / 1e6),
    nodeCpu: (cpu.user + cpu.system) / done,
    redisCpu: redisCpu / done,
    scriptUs: scriptUs / done,
    latencyUs: (elapsedUs * inFlight) / done,
  };
}

/**
 * Section 1: calls/s of `RedisBucketStore.consume` (batched, its default; with the plugin's deadline;
 * unbatched), rate-limiter-flexible's `RateLimiterRedis.consume` and a `return 1` script (the floor:
 * one EVALSHA round trip per call that does no work), all through the same ioredis client, 64 in
 * flight over 1,000 keys, alternating variants round by round; then the latency of one call at a
 * time, batched and unbatched.
 */
export async function storeThroughput(options: StoreThroughputOptions): Promise<SectionResult> {
  const started = performance.now();
  const { client, store, inFlight, keys, rounds, seconds } = options;
  client.defineCommand('benchFloor', { numberOfKeys: 1, lua: 'return 1' });
  const floorClient = client as unknown as FloorClient;
  const unbatchedStore = new RedisBucketStore(client, { prefix: 'bench-unbatched:', batch: false });
  // Budgets far above what a run can spend: every call is an allowed consume that writes.
  const policy = { capacity: 1e12, refillPerSecond: 1e6 };
  const limiter = new RateLimiterRedis({
    storeClient: client,
    keyPrefix: 'bench-rlf',
    points: 2_000_000_000,
    duration: 3600,
  });

  const ours: Variant = {
    name: 'RedisBucketStore.consume (batched)',
    call: (key) => store.consume(`user-${key}`, 1, policy),
  };
  // As the plugin calls it: with a deadline (its default storeTimeoutMs), which adds a timer per call.
  let deadlineMisses = 0;
  const withDeadline: Variant = {
    name: 'RedisBucketStore.consume (batched), timeoutMs 50',
    call: (key) =>
      store.consume(`user-${key}`, 1, policy, { timeoutMs: 50 }).catch(() => {
        deadlineMisses++;
      }),
  };
  const unbatched: Variant = {
    name: 'RedisBucketStore.consume, batch: false',
    call: (key) => unbatchedStore.consume(`user-${key}`, 1, policy),
  };
  const rlf: Variant = { name: 'RateLimiterRedis.consume', call: (key) => limiter.consume(`user-${key}`, 1) };
  const floor: Variant = {
    name: '`return 1` script (floor)',
    call: (key) => floorClient.benchFloor(`bench-floor:user-${key}`),
  };
  const variants = [ours, withDeadline, unbatched, rlf, floor];

  // Warm-up: loads the scripts, fills the connection's buffers and lets V8 optimise each path.
  for (const variant of variants) await measure(client, variant, keys, inFlight, Math.min(0.5, seconds));

  const samples = new Map<Variant, Sample[]>(variants.map((variant) => [variant, []]));
  const toFloor = new Map<Variant, number[]>(variants.map((variant) => [variant, []]));
  const oursToRlf: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const perRound = new Map<Variant, number>();
    for (const variant of rotate(variants, round)) {
      const sample = await measure(client, variant, keys, inFlight, seconds);
      perRound.set(variant, sample.rate);
      samples.get(variant)!.push(sample);
    }
    for (const variant of variants) toFloor.get(variant)!.push(perRound.get(variant)! / perRound.get(floor)!);
    oursToRlf.push(perRound.get(ours)! / perRound.get(rlf)!);
  }

  // One call at a time: batching must not make a lone call wait for company that is not coming.
  const alone = [ours, unbatched, floor];
  const latency = new Map<Variant, number[]>(alone.map((variant) => [variant, []]));
  for (let round = 0; round < rounds; round++) {
    for (const variant of rotate(alone, round)) {
      latency.get(variant)!.push((await measure(client, variant, keys, 1, Math.min(seconds, 0.5))).latencyUs);
    }
  }
  const loneRatios = latency.get(ours)!.map((us, round) => us / latency.get(unbatched)![round]!);

  const of = (variant: Variant, field: keyof Sample): number => median(samples.get(variant)!.map((s) => s[field]));
  const value = (variant: Variant): string => {
    const [low, high] = range(samples.get(variant)!.map((s) => s.rate));
    const script = variant === rlf ? '' : `, scripts ${formatUs(of(variant, 'scriptUs'))}`;
    const cpu = `Node ${formatUs(of(variant, 'nodeCpu'))} + Redis ${formatUs(of(variant, 'redisCpu'))} CPU/call${script}`;
    return `${formatInt(of(variant, 'rate'))} calls/s (${formatInt(low)}–${formatInt(high)}); ${cpu}`;
  };
  const metrics = (variant: Variant): Record<string, number> => ({
    callsPerSecondMedian: of(variant, 'rate'),
    nodeCpuMicrosPerCall: of(variant, 'nodeCpu'),
    redisCpuMicrosPerCall: of(variant, 'redisCpu'),
    redisScriptMicrosPerCall: of(variant, 'scriptUs'),
    ...Object.fromEntries(samples.get(variant)!.map((sample, round) => [`round${round}`, sample.rate])),
    ...(variant === floor
      ? {}
      : Object.fromEntries(toFloor.get(variant)!.map((ratio, round) => [`ratioRound${round}`, ratio]))),
  });
  const floorRow = (variant: Variant, target?: number): Row =>
    ratioRow(
      variant.name,
      value(variant),
      metrics(variant),
      { value: median(toFloor.get(variant)!), of: 'floor' },
      target === undefined ? undefined : { op: '>=', target },
    );
  const scriptPerConsume = of(ours, 'scriptUs');
  const rows: Row[] = [
    { variant: floor.name, value: value(floor), metrics: metrics(floor) },
    floorRow(ours, 2.0),
    floorRow(withDeadline),
    floorRow(unbatched, 0.95),
    floorRow(rlf),
    ratioRow(
      'RedisBucketStore (batched) vs RateLimiterRedis',
      '',
      { ratioMedian: median(oursToRlf) },
      { value: median(oursToRlf), of: 'RateLimiterRedis' },
      { op: '>=', target: 2.5 },
    ),
    {
      variant: 'Redis time per batched consume (INFO commandstats)',
      value: `${formatUs(scriptPerConsume)} per consume (the goal is in the goals table)`,
      metrics: { microsPerConsume: scriptPerConsume },
    },
    ratioRow(
      'One call in flight: batched vs batch: false',
      `batched ${formatUs(median(latency.get(ours)!))}, batch: false ${formatUs(median(latency.get(unbatched)!))}, ` +
        `floor ${formatUs(median(latency.get(floor)!))} per call`,
      {
        batchedMicros: median(latency.get(ours)!),
        unbatchedMicros: median(latency.get(unbatched)!),
        floorMicros: median(latency.get(floor)!),
      },
      { value: median(loneRatios), of: 'batch: false latency' },
      { op: '<=', target: 1.05 },
    ),
  ];
  return {
    id: 'store-throughput',
    title: '2. Store throughput',
    method:
      `${inFlight} calls in flight over one ioredis client, ${formatInt(keys)} keys, cost 1 (always allowed); ` +
      `${alternatingRounds(rounds)} of ${seconds} s per variant; ratios are the median of the per-round ratios. ` +
      '"scripts" is the time Redis spent running scripts per call (INFO commandstats usec of EVAL and EVALSHA). ' +
      'Then one call at a time for up to 0.5 s per variant and round: mean latency.',
    rows,
    notes: [
      goalNote('Batched RedisBucketStore vs the floor', rows[1]!),
      goalNote('Unbatched RedisBucketStore vs the floor', rows[3]!),
      goalNote('Batched RedisBucketStore vs RateLimiterRedis', rows[5]!),
      goalNote('Latency of a lone batched call', rows[7]!),
      deadlineMisses > 0
        ? `${formatInt(deadlineMisses)} consumes with timeoutMs 50 missed their deadline (counted as calls).`
        : undefined,
    ].filter((note): note is string => note !== undefined),
    seconds: (performance.now() - started) / 1000,
  };
}
