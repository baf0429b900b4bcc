import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { BucketStore } from '../../src/bucket/types.js';
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
  /** Our store, built over `client`. */
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
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const redisCpu = (await redisCpuMicros(client)) - redisBefore;
  return { rate: done / elapsed, nodeCpu: (cpu.user + cpu.system) / done, redisCpu: redisCpu / done };
}

/**
 * Section 1: calls/s of `RedisBucketStore.consume`, rate-limiter-flexible's `RateLimiterRedis.consume`
 * and a `return 1` script (the floor: one EVALSHA round trip that does no work), all through the same
 * ioredis client, 64 in flight over 1,000 keys, alternating variants round by round.
 */
export async function storeThroughput(options: StoreThroughputOptions): Promise<SectionResult> {
  const started = performance.now();
  const { client, store, inFlight, keys, rounds, seconds } = options;
  client.defineCommand('benchFloor', { numberOfKeys: 1, lua: 'return 1' });
  const floorClient = client as unknown as FloorClient;
  // Budgets far above what a run can spend: every call is an allowed consume that writes.
  const policy = { capacity: 1e12, refillPerSecond: 1e6 };
  const limiter = new RateLimiterRedis({
    storeClient: client,
    keyPrefix: 'bench-rlf',
    points: 2_000_000_000,
    duration: 3600,
  });

  const ours: Variant = { name: 'RedisBucketStore.consume', call: (key) => store.consume(`user-${key}`, 1, policy) };
  // As the plugin calls it: with a deadline (its default storeTimeoutMs), which adds a timer per call.
  let deadlineMisses = 0;
  const withDeadline: Variant = {
    name: 'RedisBucketStore.consume, timeoutMs 50',
    call: (key) =>
      store.consume(`user-${key}`, 1, policy, { timeoutMs: 50 }).catch(() => {
        deadlineMisses++;
      }),
  };
  const rlf: Variant = { name: 'RateLimiterRedis.consume', call: (key) => limiter.consume(`user-${key}`, 1) };
  const floor: Variant = {
    name: '`return 1` script (floor)',
    call: (key) => floorClient.benchFloor(`bench-floor:user-${key}`),
  };
  const variants = [ours, withDeadline, rlf, floor];

  // Warm-up: loads the scripts, fills the connection's buffers and lets V8 optimise each path.
  for (const variant of variants) await measure(client, variant, keys, inFlight, Math.min(0.5, seconds));

  const samples = new Map<Variant, number[]>(variants.map((variant) => [variant, []]));
  const nodeCpu = new Map<Variant, number[]>(variants.map((variant) => [variant, []]));
  const redisCpu = new Map<Variant, number[]>(variants.map((variant) => [variant, []]));
  const oursToFloor: number[] = [];
  const rlfToFloor: number[] = [];
  const oursToRlf: number[] = [];
  const deadlineToFloor: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const perRound = new Map<Variant, number>();
    for (const variant of rotate(variants, round)) {
      const sample = await measure(client, variant, keys, inFlight, seconds);
      perRound.set(variant, sample.rate);
      samples.get(variant)!.push(sample.rate);
      nodeCpu.get(variant)!.push(sample.nodeCpu);
      redisCpu.get(variant)!.push(sample.redisCpu);
    }
    oursToFloor.push(perRound.get(ours)! / perRound.get(floor)!);
    rlfToFloor.push(perRound.get(rlf)! / perRound.get(floor)!);
    oursToRlf.push(perRound.get(ours)! / perRound.get(rlf)!);
    deadlineToFloor.push(perRound.get(withDeadline)! / perRound.get(floor)!);
  }

  const value = (variant: Variant): string => {
    const [low, high] = range(samples.get(variant)!);
    const cpu = `Node ${formatUs(median(nodeCpu.get(variant)!))} + Redis ${formatUs(median(redisCpu.get(variant)!))} CPU/call`;
    return `${formatInt(median(samples.get(variant)!))} calls/s (${formatInt(low)}–${formatInt(high)}); ${cpu}`;
  };
  const metrics = (variant: Variant, ratios?: number[]): Record<string, number> => ({
    callsPerSecondMedian: median(samples.get(variant)!),
    nodeCpuMicrosPerCall: median(nodeCpu.get(variant)!),
    redisCpuMicrosPerCall: median(redisCpu.get(variant)!),
    ...Object.fromEntries(samples.get(variant)!.map((rate, round) => [`round${round}`, rate])),
    ...(ratios ? Object.fromEntries(ratios.map((ratio, round) => [`ratioRound${round}`, ratio])) : {}),
  });

  const rows: Row[] = [
    { variant: floor.name, value: value(floor), metrics: metrics(floor) },
    ratioRow(
      ours.name,
      value(ours),
      metrics(ours, oursToFloor),
      { value: median(oursToFloor), of: 'floor' },
      { op: '>=', target: 0.9 },
    ),
    ratioRow(withDeadline.name, value(withDeadline), metrics(withDeadline, deadlineToFloor), {
      value: median(deadlineToFloor),
      of: 'floor',
    }),
    ratioRow(rlf.name, value(rlf), metrics(rlf, rlfToFloor), { value: median(rlfToFloor), of: 'floor' }),
    ratioRow(
      'RedisBucketStore vs RateLimiterRedis',
      '',
      { ratioMedian: median(oursToRlf) },
      { value: median(oursToRlf), of: 'RateLimiterRedis' },
      { op: '>=', target: 1.15 },
    ),
  ];
  return {
    id: 'store-throughput',
    title: '1. Store throughput',
    method:
      `${inFlight} calls in flight over one ioredis client, ${formatInt(keys)} keys, cost 1 (always allowed); ` +
      `${alternatingRounds(rounds)} of ${seconds} s per variant; ratios are the median of the per-round ratios.`,
    rows,
    notes: [
      goalNote('RedisBucketStore vs the floor', rows[1]!),
      goalNote('RedisBucketStore vs RateLimiterRedis', rows[4]!),
      deadlineMisses > 0
        ? `${formatInt(deadlineMisses)} consumes with timeoutMs 50 missed their deadline (counted as calls).`
        : undefined,
    ].filter((note): note is string => note !== undefined),
    seconds: (performance.now() - started) / 1000,
  };
}
