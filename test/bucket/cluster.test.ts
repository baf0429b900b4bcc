/** RedisBucketStore over an ioredis Cluster: one key per bucket, any identity, deadlines work. */
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketKey } from '../../src/bucket/bucket-key.js';
import { RedisBucketStore } from '../../src/bucket/redis-store.js';
import { startRedisCluster, type RedisCluster } from '../support/redis-cluster.js';

describe('RedisBucketStore on a Redis Cluster', () => {
  let cluster: RedisCluster;
  let client: Cluster;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    client = new Cluster([...cluster.startupNodes]);
  });
  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  it('keeps each bucket under its own key on the node owning its slot, for any identity', async () => {
    const store = new RedisBucketStore(client, { prefix: 'c:' });
    const policy = { capacity: 5, refillPerSecond: 1 };
    const identities = [
      'alice',
      '{alice}',
      'a}{b',
      'line\nbreak',
      'x'.repeat(10_000),
      ...Array.from({ length: 30 }, (_, i) => `user-${i}`),
    ];
    for (const identity of identities) {
      expect(await store.consume(identity, 2, policy, { timeoutMs: 2000 })).toMatchObject({
        allowed: true,
        remaining: 3,
      });
      expect(await store.consume(identity, 4, policy)).toMatchObject({ allowed: false, cost: 4 });
      const key = bucketKey('c:', identity);
      expect(key).not.toMatch(/[{}]/);
      const owner = await cluster.masterFor(key);
      expect(await cluster.command(owner, 'EXISTS', key)).toBe(1);
    }
    const owners = new Set<number>();
    for (const identity of identities) owners.add((await cluster.masterFor(bucketKey('c:', identity))).port);
    expect(owners.size).toBe(3);
  }, 30_000);
});
