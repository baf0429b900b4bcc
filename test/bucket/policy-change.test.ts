/**
 * A policy change keeps the tokens the caller is missing: remaining = max(0, new capacity − missing),
 * missing counted under the policy the bucket was last written with up to the call, refilled at the
 * new rate from then on. The same in both stores; then what Redis keeps (the instant and the rate,
 * exactly) and how it reads the previous release's state.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKET_SCRIPT, bucketScriptArgs } from '../../src/bucket/bucket-script.js';
import type { BucketPolicy } from '../../src/bucket/types.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { connectClient, type TestClient } from '../support/redis-clients.js';
import { clockAhead, clockedMemory, clockedRedis, type ClockedStore } from './clocked-stores.js';

let server: RedisServer;
let client: Redis;
let nodeRedis: TestClient;
let startUs: number;
let run = 0;

beforeAll(async () => {
  server = await startRedisServer();
  client = new Redis({ port: server.port, host: '127.0.0.1' });
  nodeRedis = await connectClient('node-redis', server.port);
  startUs = await clockAhead(client);
});
afterAll(async () => {
  client.disconnect();
  await nodeRedis.close();
  await server.stop();
});

const SLOW = { capacity: 1000, refillPerSecond: 1 };
const FAST = { capacity: 1000, refillPerSecond: 100 };
const PRO = { capacity: 1000, refillPerSecond: 10 };
const BASIC = { capacity: 100, refillPerSecond: 1 };
const FROZEN = { capacity: 1000, refillPerSecond: 0 };

describe.each([
  ['MemoryBucketStore', () => clockedMemory()],
  ['Redis script over ioredis', () => clockedRedis(client, `change${run++}:`)],
  ['Redis script over node-redis', () => clockedRedis(nodeRedis.client, `change${run++}:`)],
])('%s', (_name, makeStore: () => ClockedStore) => {
  let store: ClockedStore;
  /** One call `ms` after the test's start. */
  const at = (ms: number, op: 'consume' | 'refund' | 'peek', amount: number, policy: BucketPolicy) =>
    store.call('k', op, amount, policy, startUs + ms * 1000);

  it('an upgrade keeps the tokens left, and the new rate refills the missing ones', async () => {
    store = makeStore();
    expect(await at(0, 'consume', 10, SLOW)).toMatchObject({ remaining: 990, resetAfterMs: 10_000 });
    // Read under the new rate at once: 10 missing, refilled at 100/s.
    expect(await at(0, 'peek', 0, FAST)).toMatchObject({ remaining: 990, resetAfterMs: 100 });
    // Until a call writes, the bucket refills at the rate it was written with (1/s).
    expect(await at(2000, 'peek', 0, FAST)).toMatchObject({ remaining: 992, resetAfterMs: 80 });
    expect(await at(2000, 'consume', 2, FAST)).toMatchObject({ remaining: 990, resetAfterMs: 100 });
    expect(await at(2050, 'peek', 0, FAST)).toMatchObject({ remaining: 995, resetAfterMs: 50 });
  });

  it('a downgrade keeps the debt, and going back up gives nothing back', async () => {
    store = makeStore();
    expect(await at(0, 'consume', 900, PRO)).toMatchObject({ remaining: 100, resetAfterMs: 90_000 });
    // 900 missing from a capacity of 100: nothing left until 800 have refilled (at 1/s, 800 s).
    expect(await at(0, 'peek', 0, BASIC)).toMatchObject({ remaining: 0, resetAfterMs: 900_000 });
    expect(await at(0, 'consume', 1, BASIC)).toMatchObject({ allowed: false, retryAfterMs: 801_000 });
    // A refund under the small tier writes the debt under its rate (1/s): 850 missing.
    expect(await at(0, 'refund', 50, BASIC)).toMatchObject({ remaining: 0, resetAfterMs: 850_000 });
    expect(await at(0, 'peek', 0, PRO)).toMatchObject({ remaining: 150, resetAfterMs: 85_000 });
    // 10 s later at 1/s: 840 missing.
    expect(await at(10_000, 'consume', 50, PRO)).toMatchObject({ allowed: true, remaining: 110 });
    expect(await at(10_000, 'peek', 0, BASIC)).toMatchObject({ remaining: 0, resetAfterMs: 890_000 });
  });

  it('a capacity change at the same rate keeps the missing tokens as they are', async () => {
    store = makeStore();
    await at(0, 'consume', 900, PRO);
    const small = { capacity: 100, refillPerSecond: 10 };
    expect(await at(1000, 'consume', 1, small)).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 79_100 });
    expect(await at(1000, 'peek', 0, PRO)).toMatchObject({ remaining: 110 });
    expect(await at(80_000, 'consume', 10, small)).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 1000 });
    expect(await at(81_000, 'consume', 10, small)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('a switch to refill 0 keeps the real debt, and a refund there is kept without refill', async () => {
    store = makeStore();
    await at(0, 'consume', 10, SLOW);
    expect(await at(4000, 'peek', 0, FROZEN)).toMatchObject({ remaining: 994, resetAfterMs: -1 });
    expect(await at(4000, 'consume', 6, FROZEN)).toMatchObject({ remaining: 988, resetAfterMs: -1 });
    expect(await at(9000, 'refund', 2, FROZEN)).toMatchObject({ remaining: 990, resetAfterMs: -1 });
    // Back to refilling: the 10 missing tokens refill at 1/s from the switch on.
    expect(await at(60_000, 'peek', 0, SLOW)).toMatchObject({ remaining: 990, resetAfterMs: 10_000 });
    expect(await at(60_000, 'consume', 0.5, SLOW)).toMatchObject({ remaining: 989.5 });
    expect(await at(65_000, 'peek', 0, SLOW)).toMatchObject({ remaining: 994.5, resetAfterMs: 5500 });
  });

  it('a never-refilling bucket keeps its debt when its capacity is lowered, and a refund pays it off first', async () => {
    store = makeStore();
    expect(await at(0, 'consume', 900, FROZEN)).toMatchObject({ remaining: 100, resetAfterMs: -1 });
    // 900 missing from a capacity of 100: a debt of 800, not clamped to an empty bucket.
    const small = { capacity: 100, refillPerSecond: 0 };
    expect(await at(1000, 'peek', 0, small)).toMatchObject({ remaining: 0, resetAfterMs: -1 });
    expect(await at(1000, 'consume', 1, small)).toMatchObject({ allowed: false, retryAfterMs: -1, remaining: 0 });
    // A refund of 850 leaves 50 missing: 50 left of 100, and 950 of 1000 back on the big tier.
    expect(await at(2000, 'refund', 850, small)).toMatchObject({ allowed: true, remaining: 50, resetAfterMs: -1 });
    expect(await at(2000, 'peek', 0, FROZEN)).toMatchObject({ remaining: 950, resetAfterMs: -1 });
    // Paying off the rest empties nothing and leaves the bucket full: reset 0.
    expect(await at(3000, 'refund', 60, small)).toMatchObject({ remaining: 100, resetAfterMs: 0 });
    expect(await at(3000, 'peek', 0, FROZEN)).toMatchObject({ remaining: 1000, resetAfterMs: 0 });
  });

  it('bounds a carried debt so that the new rate refills it within 1e9 s', async () => {
    store = makeStore();
    const huge = { capacity: 1e6, refillPerSecond: 1000 };
    await at(0, 'consume', 1e6, huge);
    const trickle = { capacity: 1, refillPerSecond: 1e-4 };
    expect(await at(0, 'peek', 0, trickle)).toMatchObject({ remaining: 0, resetAfterMs: 1e12 });
    expect(await at(0, 'refund', 1, trickle)).toMatchObject({ remaining: 0, resetAfterMs: 1e12 - 1e7 });
    expect(await at(0, 'peek', 0, huge)).toMatchObject({ remaining: 1e6 - 99_999 });
  });

  it('a refund or a consume of 0 under another policy writes nothing, so the bucket keeps refilling at its own rate', async () => {
    store = makeStore();
    await at(0, 'consume', 10, SLOW);
    expect(await at(1000, 'refund', 0, FAST)).toMatchObject({ remaining: 991, resetAfterMs: 90 });
    expect(await at(1000, 'consume', 0, FAST)).toMatchObject({ allowed: true, remaining: 991, resetAfterMs: 90 });
    // Still written at 1/s: 2 s after the consume 8 are missing, not 0 (as a conversion to 100/s would give).
    expect(await at(2000, 'peek', 0, SLOW)).toMatchObject({ remaining: 992, resetAfterMs: 8000 });
  });

  it('a cost above the new capacity is never admitted, and writes nothing', async () => {
    store = makeStore();
    await at(0, 'consume', 10, SLOW);
    expect(await at(0, 'consume', 101, BASIC)).toMatchObject({ allowed: false, retryAfterMs: -1, remaining: 90 });
    expect(await at(0, 'peek', 0, SLOW)).toMatchObject({ remaining: 990, resetAfterMs: 10_000 });
  });
});

describe('what Redis keeps', () => {
  const key = (name: string) => `kept${run++}:${name}`;
  /** The script's raw reply to one operation, as [status, state, now]. */
  const call = async (
    name: string,
    op: 'consume' | 'refund' | 'peek',
    amount: number,
    policy: BucketPolicy,
    ms = 0,
  ) => {
    const args = bucketScriptArgs([{ op, amount, keys: [name], policies: [policy] }], startUs + ms * 1000);
    const [now, status, state] = (await client.call('EVAL', BUCKET_SCRIPT, ...args)) as [
      number,
      string,
      number | string,
    ];
    return [status, state, now];
  };

  it('the instant in hex ticks and the rate exactly, as the call wrote it', async () => {
    const cases: Array<[number, string]> = [
      [1, '1'],
      [0.5, '0.5'],
      [5000 / 3600, '1.3888888888888888'],
      [1e-5, '0.00001'],
      [1.234567e-5, '0.00001234567'],
      [123456789, '123456789'],
      [1 / 3e7, '3.3333333333333334e-8'],
    ];
    for (const [rate, text] of cases) {
      const name = key('format');
      const policy = { capacity: Math.min(1000, rate * 1e6), refillPerSecond: rate };
      const [, ticks] = await call(name, 'consume', policy.capacity / 2, policy);
      const value = await client.get(name);
      expect(value).toBe(`${(startUs * 4 + Number(ticks)).toString(16)}:${text}`);
      expect((value as string).length).toBeLessThanOrEqual(39);
      expect(await client.pexpiretime(name)).toBe(Math.ceil((startUs * 4 + Number(ticks)) / 4000));
    }
  });

  it('the same rate is the same policy: no conversion, exactly full again when due', async () => {
    const name = key('same');
    const exact = { capacity: 1000, refillPerSecond: 5000 / 3600 };
    await call(name, 'consume', 1000, exact);
    // Read at the exact rate, 720 s later: exactly full again (a conversion would not be).
    expect(await call(name, 'peek', 0, exact, 719_999)).toEqual(['ok', 4000, startUs + 719_999_000]);
    expect(await call(name, 'peek', 0, exact, 720_000)).toEqual(['ok', 0, startUs + 720_000_000]);
  });

  it("reads the previous release's state (a decimal instant) under the call's rate, and rewrites it on the next write", async () => {
    const name = key('previous');
    const fullAt = (startUs + 10_000_000) * 4; // full again in 10 s
    await client.set(name, String(fullAt), 'PXAT', Math.ceil(fullAt / 4000));
    const peek = await call(name, 'peek', 0, SLOW);
    expect(peek).toEqual(['ok', 40_000_000, startUs]);
    await call(name, 'consume', 5, SLOW);
    expect(await client.get(name)).toBe(`${(fullAt + 20_000_000).toString(16)}:1`);
    // Under refill 0 the previous release read an instant still ahead as an empty bucket: so does this one.
    const frozen = key('previous-frozen');
    await client.set(frozen, String(fullAt), 'PXAT', Math.ceil(fullAt / 4000));
    expect(await call(frozen, 'peek', 0, FROZEN)).toEqual(['ok', 1000, startUs]);
    expect(await call(frozen, 'peek', 0, FROZEN, 10_001)).toEqual(['ok', 0, startUs + 10_001_000]);
  });

  it('reads a planted instant beyond 1e9 s from now as 1e9 s, and writes what it can expire', async () => {
    // Found by an independent review: '1e300' (a bare instant) made a refund's SET fail with
    // "invalid expire time", and 'ffffffffffffffffffff:1' read as a wait of 4.6e15 s.
    for (const planted of ['1e300', 'ffffffffffffffffffff:1']) {
      const name = key('planted');
      await client.set(name, planted);
      expect(await call(name, 'peek', 0, SLOW)).toEqual(['ok', 4e15, startUs]);
      const [status] = await call(name, 'refund', 5, SLOW);
      expect(status).toBe('ok');
      const value = (await client.get(name)) as string;
      expect(value.length).toBeLessThanOrEqual(39);
      expect(await client.pexpiretime(name)).toBeLessThanOrEqual(Math.ceil((startUs * 4 + 4e15) / 4000));
    }
  });

  it('keeps refill 0 as minus the missing tokens, without TTL, and converts it at a switch', async () => {
    const name = key('frozen');
    await call(name, 'consume', 2.5, FROZEN);
    expect(await client.get(name)).toBe('-2.5');
    expect(await client.pttl(name)).toBe(-1);
    await call(name, 'consume', 1, SLOW);
    expect(await client.get(name)).toBe(`${((startUs + 3_500_000) * 4).toString(16)}:1`);
    expect(await client.pttl(name)).toBeGreaterThan(0);
    await call(name, 'refund', 1, FROZEN, 1000);
    expect(await client.get(name)).toBe('-1.5');
    expect(await client.pttl(name)).toBe(-1);
  });

  it('takes a value that is no state at all as a full bucket, and replaces it', async () => {
    for (const garbage of ['not a bucket', 'nan', 'inf', '-inf', 'zz:1', '12ab:nan', '12ab:inf', '12ab:0', '12ab:-1']) {
      const name = key('garbage');
      await client.set(name, garbage);
      expect(await call(name, 'peek', 0, SLOW)).toEqual(['ok', 0, startUs]);
      expect(await call(name, 'peek', 0, FROZEN)).toEqual(['ok', 0, startUs]);
      await call(name, 'consume', 1, SLOW);
      expect(await client.get(name)).toMatch(/^[0-9a-f]+:1$/);
    }
  });
});
