/**
 * consumeAll / refundAll / peekAll on one Redis node and in memory: all or nothing, the wait until
 * every bucket can pay, the binding bucket, argument checks; then what only Redis has: one script
 * call, hash-tagged keys, the deadline and the give-back of a late answer.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bucketKey } from '../../src/bucket/bucket-key.js';
import { BucketStoreTimeoutError } from '../../src/bucket/errors.js';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { RedisBucketStore } from '../../src/bucket/redis-store.js';
import type { BucketLimit, BucketStore } from '../../src/bucket/types.js';
import { CLIENTS, connectClient, type TestClient } from '../support/redis-clients.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startDelayingProxy } from './delaying-proxy.js';

const MINUTE = { capacity: 20, refillPerSecond: 0 };
const HOUR = { capacity: 50, refillPerSecond: 0 };
const APP = { capacity: 30, refillPerSecond: 10 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** ioredis: the store's client in the ioredis runs, and what every test reads Redis through. */
let client: Redis;
let nodeRedis: TestClient;
let run = 0;
beforeAll(async () => {
  client = new Redis({ port: inject('redisPort'), host: '127.0.0.1' });
  nodeRedis = await connectClient('node-redis', inject('redisPort'));
});
afterAll(async () => {
  client.disconnect();
  await nodeRedis.close();
});
/** The client of `name` on the shared node. */
const clientNamed = (name: string) => (name === 'ioredis' ? client : nodeRedis.client);

/** How many times Redis ran a script (EVAL or EVALSHA). */
async function scriptRuns(redis: Redis): Promise<number> {
  const stats = await redis.info('commandstats');
  let runs = 0;
  for (const match of stats.matchAll(/cmdstat_(?:eval|evalsha):calls=(\d+)/g)) runs += Number(match[1]);
  return runs;
}

describe.each([
  ['MemoryBucketStore', () => new MemoryBucketStore()],
  ['RedisBucketStore over ioredis', () => new RedisBucketStore(client, { prefix: `multi${run++}:${process.pid}:` })],
  [
    'RedisBucketStore over node-redis',
    () => new RedisBucketStore(nodeRedis.client, { prefix: `multi${run++}:${process.pid}:` }),
  ],
])(
  '%s',
  (_name, makeStore: () => BucketStore & Required<Pick<BucketStore, 'consumeAll' | 'refundAll' | 'peekAll'>>) => {
    const limits = (caller: string): BucketLimit[] => [
      { key: `${caller}:minute`, policy: MINUTE },
      { key: `${caller}:hour`, policy: HOUR },
      { key: 'app:42', policy: APP },
    ];

    it('a tagged key is another bucket than the same key untagged or under another tag', async () => {
      const store = makeStore();
      const policy = { capacity: 10, refillPerSecond: 0 };
      await store.consume('acme', 4, policy);
      await store.consumeAll([{ key: 'acme', policy, hashTag: 'acme' }], 1);
      await store.consumeAll([{ key: 'acme', policy, hashTag: 'other' }], 2);
      // A plain key that starts with NUL, or spells a tag and a key, is still a plain key.
      await store.consume('\u00004:acmeacme', 3, policy);
      expect((await store.peek('acme', policy)).remaining).toBe(6);
      expect((await store.peekAll([{ key: 'acme', policy, hashTag: 'acme' }]))[0]?.remaining).toBe(9);
      expect((await store.peekAll([{ key: 'acme', policy, hashTag: 'other' }]))[0]?.remaining).toBe(8);
      expect((await store.peek('\u00004:acmeacme', policy)).remaining).toBe(7);
    });

    it('charges every bucket when each holds the cost; the binding bucket has the fewest tokens left', async () => {
      const store = makeStore();
      const result = await store.consumeAll(limits('alice'), 8);
      expect(result).toMatchObject({ allowed: true, retryAfterMs: 0, binding: 0 });
      expect(result.results.map((r) => [r.allowed, r.cost, r.remaining, r.capacity])).toEqual([
        [true, 8, 12, 20],
        [true, 8, 42, 50],
        [true, 8, 22, 30],
      ]);
      expect(result.results[2]?.resetAfterMs).toBe(800);
      expect((await store.consumeAll(limits('bob'), 20)).binding).toBe(0);
      // The app bucket is shared: bob's charge took from it too (30 - 8 - 20 = 2 left, ~0.2 refilled).
      const app = await store.peek('app:42', APP);
      expect(app.remaining).toBeGreaterThanOrEqual(2);
      expect(app.remaining).toBeLessThan(3);
    });

    it('takes nothing from any bucket when one cannot pay, and waits for the slowest', async () => {
      const store = makeStore();
      await store.consume('carol:minute', 15, MINUTE);
      await store.consume('app:42', 28, APP);
      const denied = await store.consumeAll(limits('carol'), 10);
      expect(denied.allowed).toBe(false);
      // minute: 5 left, never refills (-1): the charge can never succeed as things stand.
      expect(denied.results.map((r) => r.allowed)).toEqual([false, true, false]);
      expect(denied.retryAfterMs).toBe(-1);
      expect(denied.binding).toBe(0);
      expect(denied.results[1]).toMatchObject({ allowed: true, cost: 10, remaining: 50, retryAfterMs: 0 });
      expect(await store.peekAll(limits('carol'))).toMatchObject([{ remaining: 5 }, { remaining: 50 }, {}]);
      expect((await store.peek('carol:hour', HOUR)).remaining).toBe(50);

      // With the minute bucket able to pay, the app bucket decides: about 300 ms until 5 tokens exist.
      const waits = await store.consumeAll(limits('carol'), 5);
      expect(waits).toMatchObject({ allowed: false, binding: 2 });
      expect(waits.retryAfterMs).toBeGreaterThan(200);
      expect(waits.retryAfterMs).toBeLessThanOrEqual(300);
      expect(waits.results[0]).toMatchObject({ allowed: true, remaining: 5 });
      expect((await store.peek('carol:minute', MINUTE)).remaining).toBe(5);
    });

    it('answers -1 for a cost above one capacity, naming that bucket', async () => {
      const store = makeStore();
      const result = await store.consumeAll(limits('dave'), 25);
      expect(result).toMatchObject({ allowed: false, retryAfterMs: -1, binding: 0 });
      expect(result.results.map((r) => r.retryAfterMs)).toEqual([-1, 0, 0]);
      expect((await store.peekAll(limits('dave'))).map((r) => r.remaining)).toEqual([20, 50, 30]);
    });

    it('refunds and reads every bucket', async () => {
      const store = makeStore();
      await store.consumeAll(limits('erin'), 10);
      const refunded = await store.refundAll(limits('erin'), 4);
      expect(refunded.map((r) => [r.allowed, r.cost, r.capacity])).toEqual([
        [true, 4, 20],
        [true, 4, 50],
        [true, 4, 30],
      ]);
      expect(refunded.slice(0, 2).map((r) => r.remaining)).toEqual([14, 44]);
      const read = await store.peekAll(limits('erin'));
      expect(read.map((r) => r.cost)).toEqual([0, 0, 0]);
      expect(read.slice(0, 2).map((r) => r.remaining)).toEqual([14, 44]);
      expect((await store.refundAll(limits('erin'), 1000)).map((r) => r.remaining)).toEqual([20, 50, 30]);
    });

    it('charges nothing for a cost of 0, and a single limit behaves as consume', async () => {
      const store = makeStore();
      expect(await store.consumeAll(limits('frank'), 0)).toMatchObject({ allowed: true, binding: 0 });
      expect((await store.peek('frank:minute', MINUTE)).remaining).toBe(20);
      const one = await store.consumeAll([{ key: 'frank:minute', policy: MINUTE }], 3);
      expect(one).toEqual({
        allowed: true,
        results: [await store.peek('frank:minute', MINUTE).then((r) => ({ ...r, cost: 3 }))],
        retryAfterMs: 0,
        binding: 0,
      });
    });

    it('rejects bad arguments before touching any bucket, naming them', async () => {
      const store = makeStore();
      const bad = (value: unknown) => value as BucketLimit[];
      await expect(store.consumeAll(bad('x'), 1)).rejects.toThrow(
        new TypeError('limits must be an array of { key, policy, hashTag? }, got "x"'),
      );
      await expect(store.consumeAll([], 1)).rejects.toThrow(RangeError);
      await expect(store.consumeAll(bad([null]), 1)).rejects.toThrow(/limits\[0\] must be an object/);
      await expect(store.consumeAll(bad([{ key: 1, policy: MINUTE }]), 1)).rejects.toThrow(
        /limits\[0\]\.key must be a string/,
      );
      await expect(
        store.consumeAll(
          [
            { key: 'a', policy: MINUTE },
            { key: 'b', policy: { capacity: 0, refillPerSecond: 1 } },
          ],
          1,
        ),
      ).rejects.toThrow(/limits\[1\]\.policy\.capacity must be a finite number > 0, got 0/);
      await expect(store.consumeAll(bad([{ key: 'a', policy: MINUTE, hashTag: 7 }]), 1)).rejects.toThrow(
        /limits\[0\]\.hashTag must be a string/,
      );
      await expect(
        store.consumeAll(
          [
            { key: 'a', policy: MINUTE },
            { key: 'b', policy: HOUR },
            { key: 'a', policy: HOUR },
          ],
          1,
        ),
      ).rejects.toThrow(new RangeError('limits[2].key repeats limits[0].key "a": each bucket appears once'));
      await expect(store.consumeAll(limits('gina'), -1)).rejects.toThrow(/cost must be a finite number >= 0/);
      await expect(store.refundAll(limits('gina'), Number.NaN)).rejects.toThrow(/amount must be a finite number/);
      await expect(store.peekAll(limits('gina'), { timeoutMs: -5 })).rejects.toThrow(/options\.timeoutMs/);
      expect((await store.peekAll(limits('gina'))).map((r) => r.remaining)).toEqual([20, 50, 30]);
    });
  },
);

describe.each(CLIENTS)('RedisBucketStore with several buckets, over %s', (name) => {
  it('charges them in one script call, and a denial leaves every key as it was', async () => {
    const prefix = `one-call${process.pid}-${name}:`;
    const store = new RedisBucketStore(clientNamed(name), { prefix });
    const limits: BucketLimit[] = [
      { key: 'hal', policy: { capacity: 10, refillPerSecond: 1 } },
      { key: 'app', policy: { capacity: 12, refillPerSecond: 0 } },
    ];
    const before = await scriptRuns(client);
    expect((await store.consumeAll(limits, 7)).allowed).toBe(true);
    expect(await scriptRuns(client)).toBe(before + 1);
    const values = async () => client.mget(bucketKey(prefix, 'hal'), bucketKey(prefix, 'app'));
    const charged = await values();
    expect(charged[1]).toBe('-7');
    const denied = await store.consumeAll(limits, 6);
    expect(denied).toMatchObject({ allowed: false, binding: 1, retryAfterMs: -1 });
    expect(await values()).toEqual(charged);
    expect(await client.pttl(bucketKey(prefix, 'hal'))).toBeGreaterThan(5000);
  });

  it('keeps an untagged limit under the key consume uses, and a tagged one under a key its tag places', async () => {
    const prefix = `tagged${process.pid}-${name}:`;
    const store = new RedisBucketStore(clientNamed(name), { prefix });
    const policy = { capacity: 10, refillPerSecond: 0 };
    await store.consume('ivy', 4, policy);
    const result = await store.consumeAll([{ key: 'ivy', policy }], 1);
    expect(result.results[0]?.remaining).toBe(5);
    await store.consumeAll([{ key: 'ivy', policy, hashTag: 'org-7' }], 2);
    expect(bucketKey(prefix, 'ivy', 'org-7')).toBe(`${prefix}{k:org-7}k:ivy`);
    expect(await client.get(`${prefix}{k:org-7}k:ivy`)).toBe('-2');
    expect(await client.get(bucketKey(prefix, 'ivy'))).toBe('-5');
    // Text that is not a readable identity is hashed, so no `{` or `}` of the caller's reaches the key.
    const hostile = bucketKey(prefix, 'x}{y', '{evil}');
    expect(hostile).toMatch(new RegExp(`^${prefix}\\{h:[A-Za-z0-9_-]{43}\\}h:[A-Za-z0-9_-]{43}$`));
    expect(store.partitionOf('ivy', 'org-7')).toBe('redis');
  });
});

describe.each(CLIENTS)('RedisBucketStore deadlines with several buckets, over %s', (name) => {
  let server: RedisServer;
  let own: TestClient;
  let observer: Redis;
  const limits: BucketLimit[] = [
    { key: 'kim', policy: { capacity: 10, refillPerSecond: 0 } },
    { key: 'shared', policy: { capacity: 100, refillPerSecond: 0 } },
  ];

  beforeAll(async () => {
    server = await startRedisServer();
    own = await connectClient(name, server.port);
    observer = new Redis({ port: server.port, host: '127.0.0.1' });
  });
  afterAll(async () => {
    server.resume();
    await own.close();
    observer.disconnect();
    await server.stop();
  });

  it('a charge that reaches Redis after its deadline changes no bucket', async () => {
    const store = new RedisBucketStore(own.client, { prefix: 'late:' });
    await store.consumeAll(limits, 1, { timeoutMs: 1000 });
    const keys = [bucketKey('late:', 'kim'), bucketKey('late:', 'shared')];
    const before = await observer.mget(...keys);
    const runsBefore = await scriptRuns(observer);
    server.pause();
    const error = await store.consumeAll(limits, 3, { timeoutMs: 50 }).catch((e: unknown) => e);
    await sleep(200);
    server.resume();
    expect(error).toBeInstanceOf(BucketStoreTimeoutError);
    expect(await own.command('PING')).toBe('PONG'); // the held script ran before this
    expect(await scriptRuns(observer)).toBe(runsBefore + 1);
    expect(await observer.mget(...keys)).toEqual(before);
  });

  it('gives every bucket back when the charge ran in time but its answer came after the timeout', async () => {
    const proxy = await startDelayingProxy(server.port);
    const slow = await connectClient(name, proxy.port);
    try {
      const store = new RedisBucketStore(slow.client, { prefix: 'slow:' });
      await store.peekAll(limits, { timeoutMs: 1000 }); // the Redis clock, learnt in time
      proxy.replyDelayMs = 100; // Redis answers at once; the network holds the answer back
      expect(await store.consumeAll(limits, 6, { timeoutMs: 30 }).catch((e: unknown) => e)).toBeInstanceOf(
        BucketStoreTimeoutError,
      );
      await sleep(200);
      proxy.replyDelayMs = 0;
      expect((await store.peekAll(limits)).map((r) => r.remaining)).toEqual([10, 100]);
    } finally {
      await slow.close();
      await proxy.close();
    }
  });
});
