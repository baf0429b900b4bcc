/**
 * `timeoutMs`: the store answers in time, and a command that reaches Redis after its deadline has
 * no effect. The server is this suite's own, paused with SIGSTOP to hold commands back.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketKey } from '../../src/bucket/bucket-key.js';
import { BUCKET_SCRIPT_SHA } from '../../src/bucket/bucket-script.js';
import { BucketStoreTimeoutError } from '../../src/bucket/errors.js';
import { RedisBucketStore } from '../../src/bucket/redis-store.js';
import { CLIENTS, connectClient, type TestClient } from '../support/redis-clients.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

const policy = { capacity: 10, refillPerSecond: 1 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MARGIN_MS = 200;

/** How many times Redis ran the bucket script (EVAL or EVALSHA). */
async function scriptRuns(client: Redis): Promise<number> {
  const stats = await client.info('commandstats');
  let runs = 0;
  for (const match of stats.matchAll(/cmdstat_(?:eval|evalsha):calls=(\d+)/g)) runs += Number(match[1]);
  return runs;
}

/** Settles `promise` and reports how long that took. */
async function timed(promise: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  try {
    await promise;
    return { error: undefined, ms: performance.now() - started };
  } catch (error) {
    return { error, ms: performance.now() - started };
  }
}

describe.each(CLIENTS)('per-call deadline over %s', (name) => {
  let server: RedisServer;
  let tested: TestClient;
  let client: TestClient['client'];
  let observer: Redis;

  beforeAll(async () => {
    server = await startRedisServer();
    tested = await connectClient(name, server.port);
    client = tested.client;
    observer = new Redis({ port: server.port, host: '127.0.0.1' });
  });
  afterAll(async () => {
    server.resume();
    await tested.close();
    observer.disconnect();
    await server.stop();
  });

  it('rejects within the timeout, and the late command changes nothing', async () => {
    const store = new RedisBucketStore(client, { prefix: 'd1:' });
    await store.consume('late', 4, policy, { timeoutMs: 1000 }); // the store now knows the Redis clock
    const key = bucketKey('d1:', 'late');
    const stateBefore = await observer.get(key);
    const runsBefore = await scriptRuns(observer);

    server.pause();
    const pending = store.consume('late', 3, policy, { timeoutMs: 50 });
    const outcome = await timed(pending);
    await sleep(300 - outcome.ms);
    server.resume();

    expect(outcome.error).toBeInstanceOf(BucketStoreTimeoutError);
    expect(outcome.ms).toBeGreaterThanOrEqual(49);
    expect(outcome.ms).toBeLessThan(50 + MARGIN_MS);
    expect(await tested.command('PING')).toBe('PONG'); // the held command ran before this one
    expect(await scriptRuns(observer)).toBe(runsBefore + 1);
    expect(await observer.get(key)).toBe(stateBefore);
  });

  it('meets the deadline before the store has measured the Redis clock', async () => {
    const fresh = await connectClient(name, server.port);
    try {
      const store = new RedisBucketStore(fresh.client, { prefix: 'd2:' });
      server.pause();
      const outcome = await timed(store.consume('first', 5, policy, { timeoutMs: 50 }));
      await sleep(300 - outcome.ms);
      server.resume();
      expect(outcome.error).toBeInstanceOf(BucketStoreTimeoutError);
      expect(outcome.ms).toBeLessThan(50 + MARGIN_MS);
      expect(await fresh.command('PING')).toBe('PONG');
      expect(await observer.exists(bucketKey('d2:', 'first'))).toBe(0);
      // The TIME reply that came late still taught the store the offset: the next call works.
      expect(await store.consume('first', 5, policy, { timeoutMs: 1000 })).toMatchObject({
        allowed: true,
        remaining: 5,
      });
    } finally {
      await fresh.close();
    }
  });

  it('gives the tokens back when a consume ran in time but its answer came after the timeout', async () => {
    const store = new RedisBucketStore(client, { prefix: 'd3:' });
    await store.peek('slow-reply', policy, { timeoutMs: 1000 });
    const runsBefore = await scriptRuns(observer);
    const pending = timed(store.consume('slow-reply', 6, policy, { timeoutMs: 30 }));
    // Redis answers at once, but this process is busy past the timeout, so the timer fires first.
    // The busy spell starts once the command is written: node-redis writes in a setImmediate of its
    // own, queued a few promise and nextTick hops after the call; ours is queued after those.
    for (let hop = 0; hop < 100; hop++) await new Promise<void>((resolve) => process.nextTick(resolve));
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        const until = performance.now() + 80;
        while (performance.now() < until);
        resolve();
      }),
    );
    const outcome = await pending;
    expect(outcome.error).toBeInstanceOf(BucketStoreTimeoutError);
    await sleep(50);
    expect(await scriptRuns(observer)).toBe(runsBefore + 2); // the consume, then its refund
    expect(await observer.exists(bucketKey('d3:', 'slow-reply'))).toBe(0);
    expect((await store.peek('slow-reply', policy)).remaining).toBe(10);
  });

  it('survives a Redis restart (empty script cache) with a deadline set', async () => {
    const store = new RedisBucketStore(client, { prefix: 'd5:' });
    expect((await store.consume('restart', 3, policy, { timeoutMs: 1000 })).remaining).toBe(7);
    await server.restart();
    expect(await observer.script('EXISTS', BUCKET_SCRIPT_SHA)).toEqual([0]);
    const result = await store.consume('restart', 3, policy, { timeoutMs: 2000 });
    expect(result).toMatchObject({ allowed: true, remaining: 7 }); // no persistence: a full bucket again
    await observer.ping();
  });

  it('answers normally when Redis is in time', async () => {
    const store = new RedisBucketStore(client, { prefix: 'd4:' });
    const results = await Promise.all(
      Array.from({ length: 50 }, () => store.consume('ok', 0.2, policy, { timeoutMs: 2000 })),
    );
    expect(results.every((r) => r.allowed)).toBe(true);
    expect(Math.min(...results.map((r) => r.remaining))).toBeCloseTo(0, 1);
  });
});
