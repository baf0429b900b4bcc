/**
 * A misspelled store option is refused by name at construction, never ignored in favour of its
 * default (`maxkeys: 10` would otherwise leave the store at 100,000 buckets).
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MemoryBucketStore, type MemoryBucketStoreOptions } from '../../src/bucket/memory-store.js';
import { RedisBucketStore, type RedisBucketStoreOptions } from '../../src/bucket/redis-store.js';

describe('MemoryBucketStore options', () => {
  it.each([
    [{ maxkeys: 10 }, 'MemoryBucketStore options: unknown option `maxkeys`. Did you mean `maxKeys`?'],
    [
      { sweepInterval: 10 },
      'MemoryBucketStore options: unknown option `sweepInterval`. Did you mean `sweepIntervalMs`?',
    ],
    [
      { capacity: 10 },
      'MemoryBucketStore options: unknown option `capacity`. The options are `maxKeys`, `now`, `sweepIntervalMs`.',
    ],
  ])('refuses %o', (options, message) => {
    expect(() => new MemoryBucketStore(options as MemoryBucketStoreOptions)).toThrow(new TypeError(message));
  });

  it('refuses options that are not an object, and takes the known ones', () => {
    expect(() => new MemoryBucketStore(null as unknown as MemoryBucketStoreOptions)).toThrow(
      new TypeError('MemoryBucketStore options must be an object, got null'),
    );
    expect(new MemoryBucketStore({ maxKeys: 5, now: () => 0, sweepIntervalMs: 10 }).size).toBe(0);
  });
});

describe('RedisBucketStore options', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis({ port: inject('redisPort'), host: '127.0.0.1', lazyConnect: true });
  });
  afterAll(() => redis.disconnect());

  it.each([
    [{ prefx: 'a:' }, 'RedisBucketStore options: unknown option `prefx`. Did you mean `prefix`?'],
    [{ batching: false }, 'RedisBucketStore options: unknown option `batching`. Did you mean `batch`?'],
    [{ batch: { window: 5 } }, 'RedisBucketStore options.batch: unknown option `window`. Did you mean `windowUs`?'],
    [
      { batch: { maxOps: 5 } },
      'RedisBucketStore options.batch: unknown option `maxOps`. The options are `windowUs`, `maxOperations`.',
    ],
  ])('refuses %o', (options, message) => {
    expect(() => new RedisBucketStore(redis, options as RedisBucketStoreOptions)).toThrow(new TypeError(message));
  });

  it('takes the known ones', () => {
    expect(() => new RedisBucketStore(redis, { prefix: 'u:', batch: { windowUs: 5, maxOperations: 8 } })).not.toThrow();
  });
});
