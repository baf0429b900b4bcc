import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { bucketKey } from '../../src/bucket/bucket-key.js';
import { BUCKET_SCRIPT, BUCKET_SCRIPT_SHA, bucketArgs, runBucketScript } from '../../src/bucket/bucket-script.js';
import { BucketStoreError } from '../../src/bucket/errors.js';
import { RedisBucketStore } from '../../src/bucket/redis-store.js';

const policy = { capacity: 10, refillPerSecond: 10 };
let client: Redis;
let store: RedisBucketStore;
let prefix: string;
let run = 0;

beforeAll(() => {
  client = new Redis({ port: inject('redisPort'), host: '127.0.0.1' });
});
afterAll(() => client.disconnect());
beforeEach(() => {
  prefix = `rs${run++}:${process.pid}:`;
  store = new RedisBucketStore(client, { prefix });
});

describe('RedisBucketStore', () => {
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
    const before = await client.get(key);
    const denied = await store.consume('alice', 9, policy);
    expect(denied.allowed).toBe(false);
    expect(denied.remaining).toBeGreaterThan(6);
    expect(denied.remaining).toBeLessThan(6.5);
    expect(denied.retryAfterMs).toBeGreaterThan(250);
    expect(denied.retryAfterMs).toBeLessThanOrEqual(300);
    expect(await client.get(key)).toBe(before);
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
    expect(await client.exists(bucketKey(prefix, 'bob'))).toBe(0);
  });

  it('caps a refund at capacity and deletes the key when full', async () => {
    await store.consume('carol', 3, policy);
    const result = await store.refund('carol', 50, policy);
    expect(result.remaining).toBe(10);
    expect(result.resetAfterMs).toBe(0);
    expect(await client.exists(bucketKey(prefix, 'carol'))).toBe(0);
  });

  it('uses the script whose SHA matches SCRIPT LOAD and survives SCRIPT FLUSH between calls', async () => {
    expect(await client.script('LOAD', BUCKET_SCRIPT)).toBe(BUCKET_SCRIPT_SHA);
    await store.consume('dave', 1, policy);
    await client.script('FLUSH');
    expect(await client.script('EXISTS', BUCKET_SCRIPT_SHA)).toEqual([0]);
    const result = await store.consume('dave', 1, policy);
    expect(result.allowed).toBe(true);
    expect(result.remaining).toBeLessThan(9);
    expect(result.remaining).toBeGreaterThan(8);
  });

  it('never refills with refillPerSecond 0 and keeps such a key without TTL', async () => {
    const noRefill = { capacity: 5, refillPerSecond: 0 };
    expect((await store.consume('erin', 2, noRefill)).remaining).toBe(3);
    const key = bucketKey(prefix, 'erin');
    expect(await client.pttl(key)).toBe(-1);
    expect(await store.consume('erin', 4, noRefill)).toEqual({
      allowed: false,
      cost: 4,
      remaining: 3,
      capacity: 5,
      retryAfterMs: -1,
      resetAfterMs: -1,
    });
    expect((await store.refund('erin', 2, noRefill)).remaining).toBe(5);
    expect(await client.exists(key)).toBe(0);
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
    expect(await client.keys(`${prefix}*`)).toEqual([]);
  });

  it('lets the script reject bad arguments itself with a clear error', async () => {
    const key = `${prefix}raw`;
    const call = (argv: string[]) => client.eval(BUCKET_SCRIPT, 1, key, ...argv);
    await expect(call(['consume', 'abc', '10', '1', '', ''])).rejects.toThrow(/cost must be a number, got "abc"/);
    await expect(call(['consume', 'nan', '10', '1', '', ''])).rejects.toThrow(/cost must be a finite number/);
    await expect(call(['consume', '1', 'inf', '1', '', ''])).rejects.toThrow(/capacity must be a finite number/);
    await expect(call(['consume', '1', '0', '1', '', ''])).rejects.toThrow(/capacity must be > 0/);
    await expect(call(['refund', '-1', '10', '1', '', ''])).rejects.toThrow(/amount must be >= 0/);
    await expect(call(['consume', '1', '10', '-2', '', ''])).rejects.toThrow(/refillPerSecond must be >= 0/);
    await expect(call(['drop', '1', '10', '1', '', ''])).rejects.toThrow(/op must be consume, refund or peek/);
    await expect(call(['consume', '1', '10', '1e-300', '', ''])).rejects.toThrow(
      /seconds to refill\) must be at most 1e9/,
    );
    await expect(call(['consume', '1', '10', '1', 'soon', ''])).rejects.toThrow(/deadline must be a number/);
    await expect(call(['consume', '1', '10', '1', '', 'later'])).rejects.toThrow(/now must be a number/);
    expect(await client.exists(key)).toBe(0);
  });

  it('rejects with BucketStoreError, cause attached, when Redis cannot be reached', async () => {
    const dead = new Redis({
      port: 1,
      host: '127.0.0.1',
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    dead.on('error', () => undefined);
    const unreachable = new RedisBucketStore(dead);
    const error = await unreachable.consume('x', 1, policy).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BucketStoreError);
    expect((error as BucketStoreError).message).toMatch(/^Redis bucket consume failed: /);
    expect((error as BucketStoreError).cause).toBeInstanceOf(Error);
    dead.disconnect();
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
      expect(await client.exists(key)).toBe(1);
    }
    expect(keys.size).toBe(hostile.length);
    expect(bucketKey(prefix, 'user:42@example.com')).toBe(`${prefix}k:user:42@example.com`);
    // A readable identity that looks like a hashed key still lands in the other namespace.
    const hashed = bucketKey(prefix, 'a b').slice(prefix.length);
    expect(bucketKey(prefix, hashed)).toBe(`${prefix}k:${hashed}`);
    expect((await client.keys(`${prefix}*`)).sort()).toEqual([...keys].sort());
  });

  it('keeps the state in Redis time: a test clock drives the same script', async () => {
    const key = `${prefix}clock`;
    const t0 = 5_000_000_000_000_000;
    const at = (nowUs: number, op: 'consume' | 'peek', amount = 0) =>
      runBucketScript(client, key, { op, amount, capacity: 10, refillPerSecond: 10, nowUs });
    expect(await at(t0, 'consume', 10)).toMatchObject({ status: 'ok', remaining: 0, resetUs: 1_000_000 });
    expect(await at(t0 + 50_000, 'peek')).toMatchObject({ status: 'ok', remaining: 0.5 });
    expect(await at(t0 + 50_000, 'consume', 1)).toMatchObject({ status: 'denied', retryUs: 50_000 });
    expect(await client.get(key)).toBe(`${((t0 + 1_000_000) * 4).toString(16)}:10`);
  });

  it('sends the optional trailing ARGV only when set, and replies with integers where it can', async () => {
    const call = { op: 'consume', amount: 1, capacity: 10, refillPerSecond: 4 } as const;
    expect(bucketArgs(call)).toEqual(['consume', '1', '10', '4']);
    expect(bucketArgs({ ...call, deadlineUs: 7.5 })).toEqual(['consume', '1', '10', '4', '7']);
    expect(bucketArgs({ ...call, nowUs: 9 })).toEqual(['consume', '1', '10', '4', '', '9']);
    const key = `${prefix}argv`;
    // 1 token at 4/s: the bucket is full again in 250 ms = 1e6 ticks; now (µs) as sent.
    expect(await client.eval(BUCKET_SCRIPT, 1, key, ...bucketArgs({ ...call, nowUs: 2e15 }))).toEqual([
      'ok',
      1_000_000,
      2e15,
    ]);
    expect(await client.eval(BUCKET_SCRIPT, 1, key, ...bucketArgs({ ...call, nowUs: 2e15, deadlineUs: 1e15 }))).toEqual(
      ['expired', 2e15],
    );
    // Refill 0: the missing tokens, a string when fractional.
    const none = { op: 'consume', amount: 0.5, capacity: 10, refillPerSecond: 0, nowUs: 2e15 } as const;
    expect(await client.eval(BUCKET_SCRIPT, 1, `${key}-0`, ...bucketArgs(none))).toEqual(['ok', '0.5', 2e15]);
    const [status, , now] = (await client.eval(BUCKET_SCRIPT, 1, `${key}-time`, ...bucketArgs(call))) as unknown[];
    expect(status).toBe('ok');
    expect(Number.isInteger(now)).toBe(true);
  });
});
