/** Keys live exactly as long as their bucket is not full (real time, short refill times). */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { bucketKey } from '../../src/bucket/bucket-key.js';
import { RedisBucketStore } from '../../src/bucket/redis-store.js';
import type { BucketResult } from '../../src/bucket/types.js';
import { CLIENTS, connectClient } from '../support/redis-clients.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('bucket key TTL', () => {
  let server: RedisServer;
  let client: Redis;
  let store: RedisBucketStore;

  beforeAll(async () => {
    server = await startRedisServer();
    client = new Redis({ port: server.port, host: '127.0.0.1' });
    store = new RedisBucketStore(client, { prefix: 't:' });
  });
  afterAll(async () => {
    client.disconnect();
    await server.stop();
  });

  it.each(CLIENTS)('sets PTTL to the time until full and the key is gone after it, over %s', async (name) => {
    const tested = await connectClient(name, server.port);
    onTestFinished(() => tested.close());
    const store = new RedisBucketStore(tested.client, { prefix: `t-${name}:` });
    const policy = { capacity: 10, refillPerSecond: 10 };
    const result = await store.consume('ttl', 2, policy);
    expect(result.resetAfterMs).toBe(200);
    const key = bucketKey(`t-${name}:`, 'ttl');
    const pttl = await client.pttl(key);
    expect(pttl).toBeGreaterThan(100);
    expect(pttl).toBeLessThanOrEqual(201);
    await store.consume('ttl', 1, policy);
    expect(await client.pttl(key)).toBeGreaterThan(pttl);
    await sleep(320);
    expect(await client.exists(key)).toBe(0);
    expect((await store.peek('ttl', policy)).remaining).toBe(10);
  });

  it('100k distinct callers leave zero keys once they have refilled', async () => {
    // Each caller's bucket is full again 1.5 s after its consume.
    const policy = { capacity: 15, refillPerSecond: 10 };
    let created = 0;
    let smallestBatchPeak = Infinity;
    for (let start = 0; start < 100_000; start += 5000) {
      const batch: Promise<BucketResult>[] = [];
      for (let i = start; i < start + 5000; i++) batch.push(store.consume(`caller-${i}`, 15, policy));
      for (const result of await Promise.all(batch)) if (result.allowed && result.resetAfterMs === 1500) created++;
      smallestBatchPeak = Math.min(smallestBatchPeak, await client.dbsize());
    }
    expect(created).toBe(100_000);
    // However slowly the batches went, each one's keys existed right after it was written.
    expect(smallestBatchPeak).toBeGreaterThanOrEqual(5000);
    const deadline = Date.now() + 6000;
    let keys = await client.dbsize();
    while (keys > 0 && Date.now() < deadline) {
      await sleep(100);
      keys = await client.dbsize();
    }
    expect(keys).toBe(0);
  }, 30_000);
});
