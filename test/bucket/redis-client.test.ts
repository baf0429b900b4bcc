// The published types describe the Redis client RedisBucketStore needs (RedisBucketClient) instead
// of importing ioredis, an optional peer. The type assertions below are checked by `npm run
// typecheck`, which fails when an ioredis Redis or Cluster stops fitting without a cast; the runtime
// part checks that the same values work.
import { Cluster, Redis } from 'ioredis';
import { describe, expect, expectTypeOf, inject, it } from 'vitest';
import { RedisBucketStore, type RedisBucketClient } from '../../src/index.js';

describe('RedisBucketClient', () => {
  it('is fitted by an ioredis Redis and an ioredis Cluster as they are, in either reply mapping', () => {
    expectTypeOf<Redis>().toExtend<RedisBucketClient>();
    expectTypeOf<Cluster>().toExtend<RedisBucketClient>();
    expectTypeOf<Redis<'resp3'>>().toExtend<RedisBucketClient>();
    expectTypeOf<Cluster<'resp3'>>().toExtend<RedisBucketClient>();
  });

  it('is not fitted by a client without defineCommand or with a slot map of another shape', () => {
    interface Partial {
      isCluster: boolean;
      time(): Promise<number[]>;
    }
    expectTypeOf<Partial>().not.toExtend<RedisBucketClient>();
    expectTypeOf<
      Partial & { defineCommand(name: string, definition: { lua: string }): void; slots: number[] }
    >().not.toExtend<RedisBucketClient>();
  });

  it('takes an ioredis Redis, which charges its bucket on one partition', async () => {
    const client = new Redis({ port: inject('redisPort'), host: '127.0.0.1' });
    try {
      const store = new RedisBucketStore(client, { prefix: `client-type:${process.pid}:` });
      expect(await store.consume('alice', 1, { capacity: 2, refillPerSecond: 1 })).toMatchObject({ allowed: true });
      expect(store.partitionOf('alice')).toBe('redis');
    } finally {
      client.disconnect();
    }
  });

  it('takes an ioredis Cluster, whose partitions are named by slot until its slot map is known', () => {
    const cluster = new Cluster([{ host: '127.0.0.1', port: inject('redisPort') }], { lazyConnect: true });
    try {
      const store = new RedisBucketStore(cluster);
      expect(store.partitionOf('alice')).toMatch(/^slot \d+$/);
    } finally {
      cluster.disconnect();
    }
  });
});
