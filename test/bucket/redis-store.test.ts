import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { bucketKey } from '../../src/bucket/bucket-key.js';
import { BUCKET_SCRIPT, BUCKET_SCRIPT_SHA, bucketScriptArgs } from '../../src/bucket/bucket-script.js';
import { BucketStoreError } from '../../src/bucket/errors.js';
import { RedisBucketStore } from '../../src/bucket/redis-store.js';
import { runBucketScript } from '../../src/bucket/run-bucket-script.js';
import { connectClient, type ClientName, type ConnectOptions, type TestClient } from '../support/redis-clients.js';

const policy = { capacity: 10, refillPerSecond: 10 };
/** Reads what the store wrote, on a connection of its own. */
let admin: Redis;
let run = 0;

beforeAll(() => {
  admin = new Redis({ port: inject('redisPort'), host: '127.0.0.1' });
});
afterAll(() => admin.disconnect());

/** Every client, and node-redis in both protocols and with string replies mapped to Buffers. */
const VARIANTS: [string, ClientName, ConnectOptions][] = [
  ['ioredis', 'ioredis', {}],
  ['node-redis', 'node-redis', {}],
  ['node-redis, RESP2', 'node-redis', { resp: 2 }],
  ['node-redis, RESP3, Buffer replies', 'node-redis', { resp: 3, buffers: true }],
];

describe.each(VARIANTS)('RedisBucketStore over %s', (_label, name, connectOptions) => {
  let tested: TestClient;
  let store: RedisBucketStore;
  let prefix: string;

  beforeAll(async () => {
    tested = await connectClient(name, inject('redisPort'), connectOptions);
  });
  afterAll(() => tested.close());
  beforeEach(() => {
    prefix = `rs${run++}:${process.pid}:`;
    store = new RedisBucketStore(tested.client, { prefix });
  });

  it('takes into debt with takeAll, and refuses until the debt has refilled', async () => {
    const slow = { capacity: 10, refillPerSecond: 0.001 };
    await store.consume('debtor', 8, slow);
    const [after] = await store.takeAll([{ key: 'debtor', policy: slow }], 5);
    // 13 of 10 missing: 0 left (never below), and a 1-token consume waits for 4 tokens to refill.
    expect(after).toMatchObject({ allowed: true, cost: 5, remaining: 0 });
    const refused = await store.consume('debtor', 1, slow);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterMs).toBeGreaterThan(3_999_000);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(4_000_000);
  });

  it('takes tokens, denies without writing, and reports when to retry', async () => {
    expect(await store.consume('alice', 4, policy)).toEqual({
      allowed: true,
      cost: 4,
      remaining: 6,
      capacity: 10,
      retryAfterMs: 0,
      resetAfterMs: 400,
    });
    const key = bucketKey(prefix, 'alice');
    const before = await admin.get(key);
    const denied = await store.consume('alice', 9, policy);
    expect(denied.allowed).toBe(false);
    expect(denied.remaining).toBeGreaterThan(6);
    expect(denied.remaining).toBeLessThan(6.5);
    expect(denied.retryAfterMs).toBeGreaterThan(250);
    expect(denied.retryAfterMs).toBeLessThanOrEqual(300);
    expect(await admin.get(key)).toBe(before);
  });

  it('answers cost > capacity with retryAfterMs -1 and writes nothing', async () => {
    const result = await store.consume('bob', 11, policy);
    expect(result).toEqual({
      allowed: false,
      cost: 11,
      remaining: 10,
      capacity: 10,
      retryAfterMs: -1,
      resetAfterMs: 0,
    });
    expect(await admin.exists(bucketKey(prefix, 'bob'))).toBe(0);
  });

  it('caps a refund at capacity and deletes the key when full', async () => {
    await store.consume('carol', 3, policy);
    const result = await store.refund('carol', 50, policy);
    expect(result.remaining).toBe(10);
    expect(result.resetAfterMs).toBe(0);
    expect(await admin.exists(bucketKey(prefix, 'carol'))).toBe(0);
  });

  it('uses the script whose SHA matches SCRIPT LOAD and survives SCRIPT FLUSH between calls', async () => {
    expect(await admin.script('LOAD', BUCKET_SCRIPT)).toBe(BUCKET_SCRIPT_SHA);
    await store.consume('dave', 1, policy);
    await admin.script('FLUSH');
    expect(await admin.script('EXISTS', BUCKET_SCRIPT_SHA)).toEqual([0]);
    const result = await store.consume('dave', 1, policy);
    expect(result.allowed).toBe(true);
    expect(result.remaining).toBeLessThan(9);
    expect(result.remaining).toBeGreaterThan(8);
  });

  it('never refills with refillPerSecond 0 and keeps such a key without TTL', async () => {
    const noRefill = { capacity: 5, refillPerSecond: 0 };
    expect((await store.consume('erin', 2, noRefill)).remaining).toBe(3);
    const key = bucketKey(prefix, 'erin');
    expect(await admin.pttl(key)).toBe(-1);
    expect(await store.consume('erin', 4, noRefill)).toEqual({
      allowed: false,
      cost: 4,
      remaining: 3,
      capacity: 5,
      retryAfterMs: -1,
      resetAfterMs: -1,
    });
    expect((await store.refund('erin', 2, noRefill)).remaining).toBe(5);
    expect(await admin.exists(key)).toBe(0);
  });

  it('rejects invalid arguments before calling Redis, naming them', async () => {
    await expect(store.consume('x', -1, policy)).rejects.toThrow(
      new RangeError('cost must be a finite number >= 0, got -1'),
    );
    await expect(store.consume('x', 1, { capacity: 0, refillPerSecond: 1 })).rejects.toThrow(RangeError);
    await expect(store.consume('x', 1, { capacity: 0, refillPerSecond: 1 })).rejects.toThrow(/policy\.capacity/);
    await expect(store.consume('x', Number.NaN, policy)).rejects.toThrow(/cost must be a finite number >= 0, got NaN/);
    await expect(store.refund('x', Infinity, policy)).rejects.toThrow(RangeError);
    await expect(store.peek('x', { capacity: 1, refillPerSecond: -1 })).rejects.toThrow(/policy\.refillPerSecond/);
    await expect(store.consume('x', '1' as unknown as number, policy)).rejects.toThrow(TypeError);
    await expect(store.consume(7 as unknown as string, 1, policy)).rejects.toThrow(/key must be a string/);
    await expect(store.peek('x', policy, { timeoutMs: 0 })).rejects.toThrow(/options\.timeoutMs/);
    await expect(store.peek('x', { capacity: 10, refillPerSecond: 1e-9 })).rejects.toThrow(/seconds to refill/);
    expect(await admin.keys(`${prefix}*`)).toEqual([]);
  });

  it('rejects with BucketStoreError, cause attached, when Redis cannot be reached', async () => {
    const dead = await connectClient(name, 1, { ...connectOptions, limiter: true, lazy: true });
    try {
      const unreachable = new RedisBucketStore(dead.client);
      const error = await unreachable.consume('x', 1, policy).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BucketStoreError);
      expect((error as BucketStoreError).message).toMatch(/^Redis bucket consume failed: /);
      expect((error as BucketStoreError).cause).toBeInstanceOf(Error);
    } finally {
      await dead.close();
    }
  });

  it('stores hostile identities under a bounded, safe key', async () => {
    const hostile = [
      '{tag}',
      'a b',
      'line\nbreak',
      'x'.repeat(10_000),
      '',
      'é',
      '\ud800',
      '\udc00',
      `${'a'.repeat(65)}`,
    ];
    const keys = new Set<string>();
    for (const identity of hostile) {
      await store.consume(identity, 1, policy);
      const key = bucketKey(prefix, identity);
      keys.add(key);
      expect(key.length).toBeLessThanOrEqual(prefix.length + 66);
      expect(key.slice(prefix.length)).toMatch(/^h:[A-Za-z0-9_-]{43}$/);
      expect(await admin.exists(key)).toBe(1);
    }
    expect(keys.size).toBe(hostile.length);
    expect(bucketKey(prefix, 'user:42@example.com')).toBe(`${prefix}k:user:42@example.com`);
    // A readable identity that looks like a hashed key still lands in the other namespace.
    const hashed = bucketKey(prefix, 'a b').slice(prefix.length);
    expect(bucketKey(prefix, hashed)).toBe(`${prefix}k:${hashed}`);
    expect((await admin.keys(`${prefix}*`)).sort()).toEqual([...keys].sort());
  });

  it('keeps the state in Redis time: a test clock drives the same script', async () => {
    const key = `${prefix}clock`;
    const t0 = 5_000_000_000_000_000;
    const at = (nowUs: number, op: 'consume' | 'peek', amount = 0) =>
      runBucketScript(tested.client, key, { op, amount, capacity: 10, refillPerSecond: 10, nowUs });
    expect(await at(t0, 'consume', 10)).toMatchObject({ status: 'ok', remaining: 0, resetUs: 1_000_000 });
    expect(await at(t0 + 50_000, 'peek')).toMatchObject({ status: 'ok', remaining: 0.5 });
    expect(await at(t0 + 50_000, 'consume', 1)).toMatchObject({ status: 'denied', retryUs: 50_000 });
    expect(await admin.get(key)).toBe(`${((t0 + 1_000_000) * 4).toString(16)}:10`);
  });
});

// What the script answers whoever sends it (through the admin connection).
describe('the bucket script', () => {
  let prefix: string;
  beforeEach(() => {
    prefix = `script${run++}:${process.pid}:`;
  });

  it('lets the script refuse an operation with bad arguments, and only that one', async () => {
    const key = `${prefix}raw`;
    const call = (argv: string[], keys = [key]) =>
      admin.eval(BUCKET_SCRIPT, keys.length, ...keys, '', ...argv) as Promise<unknown[]>;
    const refused = async (argv: string[]) => {
      const [, status, message] = await call(argv);
      expect(status).toBe('error');
      return message;
    };
    expect(await refused(['c1', 'abc', '', '10', '1'])).toMatch(/cost must be a number, got "abc"/);
    expect(await refused(['c1', 'nan', '', '10', '1'])).toMatch(/cost must be a finite number/);
    expect(await refused(['c1', '1', '', 'inf', '1'])).toMatch(/capacity must be a finite number/);
    expect(await refused(['c1', '1', '', '0', '1'])).toMatch(/capacity must be > 0/);
    expect(await refused(['r1', '-1', '', '10', '1'])).toMatch(/amount must be >= 0/);
    expect(await refused(['c1', '1', '', '10', '-2'])).toMatch(/refillPerSecond must be >= 0/);
    expect(await refused(['c1', '1', '', '10', '1e-300'])).toMatch(/seconds to refill\) must be at most 1e9/);
    expect(await refused(['c1', '1', 'soon', '10', '1'])).toMatch(/deadline must be a number/);
    // One consume may not name a bucket twice (it would read it once and charge it twice).
    expect((await call(['c2', '1', '', '10', '1', '10', '1'], [key, key]))[2]).toMatch(/names the same key twice/);
    expect(await admin.exists(key)).toBe(0);
    // The next operation of the same call still runs.
    const [, first, , second] = await call(['c1', 'abc', '', '10', '1', 'c1', '1', '', '10', '1'], [key, key]);
    expect([first, second]).toEqual(['error', 'ok']);
    expect(await admin.exists(key)).toBe(1);
    await admin.del(key);
    // A call that is not a list of operations is refused whole.
    await expect(call(['drop1', '1', '', '10', '1'])).rejects.toThrow(/op must be c<n>, r<n>, p<n> or t<n>/);
    await expect(call(['c2', '1', '', '10', '1'])).rejects.toThrow(/needs more ARGV or KEYS/);
    await expect(call(['c1', '1', '', '10', '1'], [key, `${key}2`])).rejects.toThrow(/name 1 keys, KEYS has 2/);
    await expect(admin.eval(BUCKET_SCRIPT, 1, key, 'later', 'c1', '1', '', '10', '1')).rejects.toThrow(
      /now must be a number/,
    );
    await expect(call(['c1', '1', '', '10', '1', 'p9', '0', ''])).rejects.toThrow(/needs more ARGV/);
    expect(await admin.exists(key)).toBe(0);
  });

  it('encodes operations as the header says, and replies with integers where it can', async () => {
    const op = { op: 'consume', amount: 1, keys: ['k'], policies: [{ capacity: 10, refillPerSecond: 4 }] } as const;
    expect(bucketScriptArgs([op])).toEqual(['1', 'k', '', 'c1', '1', '', '10', '4']);
    expect(bucketScriptArgs([{ ...op, deadlineUs: 7.5 }])).toEqual(['1', 'k', '', 'c1', '1', '7', '10', '4']);
    expect(bucketScriptArgs([op], 9)).toEqual(['1', 'k', '9', 'c1', '1', '', '10', '4']);
    const two = { capacity: 5, refillPerSecond: 0 };
    expect(
      bucketScriptArgs([
        { op: 'peek', amount: 3, keys: ['a'], policies: [two] },
        { op: 'refund', amount: 2, keys: ['a', 'b'], policies: [two, { capacity: 1, refillPerSecond: 0.5 }] },
      ]),
    ).toEqual(['3', 'a', 'a', 'b', '', 'p1', '0', '', '5', '0', 'r2', '2', '', '5', '0', '1', '0.5']);

    const key = `${prefix}argv`;
    const run = (...ops: Parameters<typeof bucketScriptArgs>) =>
      admin.call('EVAL', BUCKET_SCRIPT, ...bucketScriptArgs(...ops));
    // 1 token at 4/s: the bucket is full again in 250 ms = 1e6 ticks; now (µs) as sent.
    expect(await run([{ ...op, keys: [key] }], 2e15)).toEqual([2e15, 'ok', 1_000_000]);
    expect(await run([{ ...op, keys: [key], deadlineUs: 1e15 }], 2e15)).toEqual([2e15, 'expired', 0]);
    // Refill 0: the missing tokens, a string when fractional.
    const none = { op: 'consume', amount: 0.5, keys: [`${key}-0`], policies: [two] } as const;
    expect(await run([none], 2e15)).toEqual([2e15, 'ok', '0.5']);
    const [now, status] = (await run([{ ...op, keys: [`${key}-time`] }])) as unknown[];
    expect(status).toBe('ok');
    expect(Number.isInteger(now)).toBe(true);
  });
});
