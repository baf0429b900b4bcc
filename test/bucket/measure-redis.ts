/**
 * Measures RedisBucketStore against a throw-away redis-server (never 6379):
 *   - bytes per bucket key: `INFO memory` used_memory delta over 100k keys;
 *   - consumes per second at 64 in flight on one ioredis client.
 * Run: npx tsx test/bucket/measure-redis.ts
 */
import { Redis } from 'ioredis';
import { RedisBucketStore } from '../../src/bucket/redis-store.js';
import type { BucketPolicy } from '../../src/bucket/types.js';
import { startRedisServer } from '../support/redis-server.js';

const KEYS = 100_000;
const IN_FLIGHT = 64;
const CONSUMES = 200_000;

async function usedMemory(client: Redis): Promise<number> {
  const info = await client.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1]);
}

/** Runs `total` calls with `inFlight` of them pending at any time; returns calls per second. */
async function throughput(total: number, inFlight: number, call: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < total) await call(next++);
    }),
  );
  return total / ((performance.now() - started) / 1000);
}

async function bytesPerKey(
  client: Redis,
  store: RedisBucketStore,
  label: string,
  policy: BucketPolicy,
  cost: number,
): Promise<void> {
  await client.flushall();
  const before = await usedMemory(client);
  await throughput(KEYS, IN_FLIGHT, (i) => store.consume(`caller-${i}`, cost, policy));
  const keys = await client.dbsize();
  const after = await usedMemory(client);
  const sample = await client.get('gb:k:caller-1');
  console.log(
    `${label}: ${keys} keys, ${((after - before) / keys).toFixed(1)} bytes/key (value ${JSON.stringify(sample)}, key "gb:k:caller-1")`,
  );
}

const server = await startRedisServer();
const client = new Redis({ port: server.port, host: '127.0.0.1' });
try {
  const store = new RedisBucketStore(client);
  console.log(`redis-server ${(await client.info('server')).match(/redis_version:(\S+)/)?.[1]} on port ${server.port}`);
  await bytesPerKey(client, store, 'refill 0.01/s', { capacity: 100, refillPerSecond: 0.01 }, 1);
  await bytesPerKey(client, store, 'refill 0.03/s', { capacity: 100, refillPerSecond: 0.03 }, 1);

  await client.flushall();
  const policy = { capacity: 1e9, refillPerSecond: 1000 };
  await throughput(20_000, IN_FLIGHT, (i) => store.consume(`warm-${i % 1000}`, 1, policy));
  const spread = await throughput(CONSUMES, IN_FLIGHT, (i) => store.consume(`caller-${i % 10_000}`, 1, policy));
  console.log(`${CONSUMES} consumes, ${IN_FLIGHT} in flight, 10k keys: ${Math.round(spread)} consumes/s`);
  const hot = await throughput(CONSUMES, IN_FLIGHT, () => store.consume('hot', 1, policy));
  console.log(`${CONSUMES} consumes, ${IN_FLIGHT} in flight, one key: ${Math.round(hot)} consumes/s`);
  const withDeadline = await throughput(CONSUMES, IN_FLIGHT, (i) =>
    store.consume(`caller-${i % 10_000}`, 1, policy, { timeoutMs: 1000 }),
  );
  console.log(
    `${CONSUMES} consumes, ${IN_FLIGHT} in flight, 10k keys, timeoutMs 1000: ${Math.round(withDeadline)} consumes/s`,
  );
} finally {
  client.disconnect();
  await server.stop();
}
