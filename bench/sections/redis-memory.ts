import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { BucketPolicy, BucketStore } from 'graphql-budget';
import { infoField } from '../lib/machine.js';
import { formatInt, goalNote, ratioRow, type Row, type SectionResult } from '../lib/report.js';

export interface RedisMemoryOptions {
  /** A client of the benchmark's own redis-server: this section runs FLUSHALL on it. */
  client: Redis;
  store: BucketStore;
  /** Distinct keys written per measurement. */
  keys: number;
}

const IN_FLIGHT = 256;
const PIPELINE = 1000;

/** A bucket that stays partly empty for 500 s: every key is alive while memory is measured. */
const LONG_POLICY: BucketPolicy = { capacity: 1000, refillPerSecond: 1 };
const LONG_COST = 500;

/**
 * The states measured, each charged half its capacity so that every key is alive while memory is
 * measured. The state is `'<hex ticks>:<rate>'` (the instant in hex ticks, the rate as the call
 * wrote it): its length, and so its memory, depends on how the rate prints.
 */
const STATES: Array<{ label: string; policy: BucketPolicy; cost: number }> = [
  { label: 'refill 1/s', policy: LONG_POLICY, cost: LONG_COST },
  // A token time that is not a whole number of µs (1e6 / 3).
  { label: 'refill 3/s', policy: { capacity: 1000, refillPerSecond: 3 }, cost: LONG_COST },
  // 5000 per hour: the rate is kept as 1.3888888888888888 (17 significant digits).
  { label: 'refill 5000/3600 per s', policy: { capacity: 5000, refillPerSecond: 5000 / 3600 }, cost: 2500 },
  // A small rate: 0.00001234567.
  { label: 'refill 1.234567e-5/s', policy: { capacity: 1000, refillPerSecond: 1.234567e-5 }, cost: LONG_COST },
  // The longest state there is: 14 hex digits, ':', and 23 characters of rate (1.2345678901234568e-300).
  {
    label: 'refill 1.2345678901234568e-300/s (longest state)',
    policy: { capacity: 1e-291, refillPerSecond: 1.2345678901234568e-300 },
    cost: 5e-292,
  },
];
/** What one state measured: used_memory growth, and one key's value, encoding, MEMORY USAGE and PTTL. */
interface MeasuredState {
  label: string;
  bytes: number;
  value: string;
  encoding: string;
  usage: number;
  ttlMs: number;
}

/** Memory per key against the floor (one integer with a TTL): the rate costs at most a quarter more. */
const STATE_GOAL = { op: '<=', target: 1.25 } as const;

/** A bucket that is full again 500 ms after the charge. */
const SHORT_POLICY: BucketPolicy = { capacity: 10, refillPerSecond: 10 };
const SHORT_COST = 5;
const SHORT_FULL_MS = (SHORT_COST / SHORT_POLICY.refillPerSecond) * 1000;

async function usedMemory(client: Redis): Promise<number> {
  return Number(await infoField(client, 'memory', 'used_memory'));
}

/**
 * used_memory once Redis is idle and has finished rehashing its key tables (a table that just grew
 * holds the old and the new bucket array until then): the first reading equal to the one 100 ms
 * before, within 3 s.
 */
async function settledMemory(client: Redis): Promise<number> {
  let previous = await usedMemory(client);
  for (let attempt = 0; attempt < 30; attempt++) {
    await sleep(100);
    const current = await usedMemory(client);
    if (current === previous) return current;
    previous = current;
  }
  return previous;
}

async function flush(client: Redis): Promise<number> {
  await client.flushall('SYNC');
  return usedMemory(client);
}

/** Calls `call(i)` for i in [0, count) with `IN_FLIGHT` calls outstanding. */
async function forEachKey(count: number, call: (index: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const loop = async (): Promise<void> => {
    while (next < count) await call(next++);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, loop));
}

async function allKeys(client: Redis): Promise<string[]> {
  const names: string[] = [];
  let cursor = '0';
  do {
    const [nextCursor, batch] = await client.scan(cursor, 'COUNT', 5000);
    names.push(...batch);
    cursor = nextCursor;
  } while (cursor !== '0');
  return names;
}

/**
 * Section 2: `used_memory` growth per live key for our bucket (one state per kind of rate: short,
 * fractional, with an exponent, the longest there is), for a floor of one integer value with a TTL
 * under the very same key names, and for rate-limiter-flexible; then how many of our keys are left
 * once every bucket has refilled (an absent key is a full bucket, so the goal is none).
 */
export async function redisMemory(options: RedisMemoryOptions): Promise<SectionResult> {
  const started = performance.now();
  const { client, store, keys } = options;
  const limiter = new RateLimiterRedis({
    storeClient: client,
    keyPrefix: 'bench-rlf',
    points: 2_000_000_000,
    duration: 3600,
  });

  // Load both scripts before any baseline so the script cache is not counted.
  await store.consume('warm-up', 1, LONG_POLICY);
  await limiter.consume('warm-up', 1);

  // Our bucket, one state after the other.
  const states: MeasuredState[] = [];
  let names: string[] = [];
  for (const { label, policy, cost } of STATES) {
    const base = await flush(client);
    await forEachKey(keys, (index) => store.consume(`user-${index}`, cost, policy));
    const bytes = (await settledMemory(client)) - base;
    names = await allKeys(client);
    if (names.length !== keys) throw new Error(`${label}: expected ${keys} bucket keys, found ${names.length}`);
    const sample = names[0]!;
    states.push({
      label,
      bytes,
      value: String(await client.get(sample)),
      encoding: String(await client.object('ENCODING', sample)),
      usage: Number(await client.memory('USAGE', sample)),
      ttlMs: await client.pttl(sample),
    });
  }
  const ttlMs = states[0]!.ttlMs;

  // Floor: one integer (a µs timestamp, the size of the state we would need at least) with the same TTL,
  // under the same key names.
  let base = await flush(client);
  const stamp = Date.now() * 1000;
  for (let offset = 0; offset < names.length; offset += PIPELINE) {
    const pipeline = client.pipeline();
    for (const [index, name] of names.slice(offset, offset + PIPELINE).entries()) {
      pipeline.set(name, String(stamp + offset + index), 'PX', Math.max(ttlMs, 60_000));
    }
    await pipeline.exec();
  }
  const floorBytes = (await settledMemory(client)) - base;

  // rate-limiter-flexible, same identities.
  base = await flush(client);
  await forEachKey(keys, (index) => limiter.consume(`user-${index}`, 1));
  const rlfBytes = (await settledMemory(client)) - base;

  // Refill: buckets that are full again after SHORT_FULL_MS must leave no key behind.
  base = await flush(client);
  await forEachKey(keys, (index) => store.consume(`user-${index}`, SHORT_COST, SHORT_POLICY));
  const lastWrite = performance.now();
  await sleep(Math.max(0, lastWrite + SHORT_FULL_MS + 1000 - performance.now()));
  const keysLeft = await client.dbsize();
  const leftBytes = (await settledMemory(client)) - base;
  await flush(client);

  const perKey = (bytes: number): number => bytes / keys;
  const stateRows = states.map((state) =>
    ratioRow(
      `RedisBucketStore, ${state.label}`,
      `${perKey(state.bytes).toFixed(1)} B/key`,
      { bytesPerKey: perKey(state.bytes), usedMemoryDelta: state.bytes, keys, memoryUsageSample: state.usage },
      { value: state.bytes / floorBytes, of: 'floor' },
      STATE_GOAL,
    ),
  );
  const rows: Row[] = [
    {
      variant: 'integer + TTL, same key names (floor)',
      value: `${perKey(floorBytes).toFixed(1)} B/key`,
      metrics: { bytesPerKey: perKey(floorBytes), usedMemoryDelta: floorBytes, keys },
    },
    ...stateRows,
    ratioRow(
      'RateLimiterRedis',
      `${perKey(rlfBytes).toFixed(1)} B/key`,
      { bytesPerKey: perKey(rlfBytes), usedMemoryDelta: rlfBytes, keys },
      { value: rlfBytes / floorBytes, of: 'floor' },
    ),
    {
      variant: 'RedisBucketStore keys left after refill',
      value: `${formatInt(keysLeft)} of ${formatInt(keys)} (${(leftBytes / 1024).toFixed(0)} KiB)`,
      metrics: { keysLeft, keys, usedMemoryDelta: leftBytes, waitedMs: SHORT_FULL_MS + 1000 },
      goal: { op: '=', target: 0, label: '0 keys' },
      met: keysLeft === 0,
    },
  ];
  const notes = [
    `Our bucket key (refill ${LONG_POLICY.refillPerSecond}/s): PTTL ${formatInt(ttlMs)} ms.`,
    ...states.map(
      (state, index) =>
        `${state.label}: the value is "${state.value}" (${state.value.length} characters, encoding ${state.encoding}, ` +
        `MEMORY USAGE ${state.usage} B); ${goalNote('memory per key vs the floor', stateRows[index]!)}`,
    ),
    'RateLimiterRedis keeps a small counter (Redis shares small integer objects, so the value costs nothing) ' +
      'under its own key names (`bench-rlf:user-N`), and its keys live for the whole window whatever the caller does.',
    keysLeft === 0
      ? `No key left ${formatInt(SHORT_FULL_MS + 1000)} ms after the last charge of a bucket that refills in ${SHORT_FULL_MS} ms.`
      : `Missed the goal of 0 keys: ${formatInt(keysLeft)} keys were still present ${formatInt(SHORT_FULL_MS + 1000)} ms after the last charge of a bucket that refills in ${SHORT_FULL_MS} ms.`,
  ];
  return {
    id: 'redis-memory',
    title: '3. Redis memory per live key',
    method:
      `used_memory delta over ${formatInt(keys)} distinct keys, FLUSHALL of the benchmark's own redis-server between measurements; ` +
      `the floor stores one integer with a TTL under the exact key names our store wrote.`,
    rows,
    notes: notes.filter((note): note is string => note !== undefined),
    seconds: (performance.now() - started) / 1000,
  };
}
