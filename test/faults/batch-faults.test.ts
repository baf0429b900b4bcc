/**
 * Batched store calls under faults, on a redis-server this file owns: a batch held back past its
 * members' deadlines is unavailable for every one of them and charges none late; a batch whose
 * connection is lost charges nobody twice; SCRIPT FLUSH between batches under load is survived with
 * every token accounted for. Over ioredis and over node-redis, each set up as docs/operations.md
 * recommends for a limiter (no offline queue, no retries, no resending of unanswered commands after
 * a reconnect).
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BucketStoreError, BucketStoreTimeoutError, RedisBucketStore } from '../../src/index.js';
import { CLIENTS, connectClient } from '../support/redis-clients.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTcpProxy } from '../support/tcp-proxy.js';
import { scriptCalls } from './redis-admin.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const FROZEN = { capacity: 1000, refillPerSecond: 0 };
const MEMBERS = 24;

describe.each(CLIENTS)('batched store calls under faults, over %s', (name) => {
  let server: RedisServer;
  let observer: Redis;
  const limiterClient = (port = server.port) => connectClient(name, port, { limiter: true });

  beforeAll(async () => {
    server = await startRedisServer();
    observer = new Redis({ port: server.port, host: '127.0.0.1' });
  });
  afterAll(async () => {
    server.resume();
    observer.disconnect();
    await server.stop();
  });

  /** Tokens taken from each of `keys` (refill 0: exact). */
  const taken = async (store: RedisBucketStore, keys: string[]) =>
    Promise.all(keys.map(async (key) => FROZEN.capacity - (await store.peek(key, FROZEN)).remaining));

  it('a batch that reaches Redis after its deadline is unavailable for every member and charges none late', async () => {
    const client = await limiterClient();
    try {
      const store = new RedisBucketStore(client.client, { prefix: 'late:' });
      await store.peek('warm', FROZEN, { timeoutMs: 1000 });
      const keys = Array.from({ length: MEMBERS }, (_, i) => `caller-${i % 8}`);
      const callsBefore = await scriptCalls(server.port);
      server.pause();
      const started = performance.now();
      const outcomes = await Promise.allSettled([
        ...keys.map((key) => store.consume(key, 3, FROZEN, { timeoutMs: 60 })),
        store.consumeAll(
          [
            { key: 'caller-0', policy: FROZEN },
            { key: 'app', policy: FROZEN },
          ],
          2,
          { timeoutMs: 60 },
        ),
      ]);
      const waited = performance.now() - started;
      await sleep(200);
      server.resume();
      expect(outcomes.every((o) => o.status === 'rejected' && o.reason instanceof BucketStoreTimeoutError)).toBe(true);
      expect(waited).toBeLessThan(60 + 200);
      expect(await client.command('PING')).toBe('PONG'); // the held batch ran before this
      expect(await scriptCalls(server.port)).toBe(callsBefore + 1);
      expect(await taken(store, ['app', ...new Set(keys)])).toEqual(Array(9).fill(0));
    } finally {
      await client.close();
    }
  });

  it('a batch lost with its connection charges nobody twice', async () => {
    const proxy = await startTcpProxy(server.port);
    const client = await limiterClient(proxy.port);
    try {
      const store = new RedisBucketStore(client.client, { prefix: 'lost:' });
      await store.peek('warm', FROZEN);
      const keys = Array.from({ length: MEMBERS }, (_, i) => `caller-${i}`);
      const callsBefore = await scriptCalls(server.port);
      // Redis holds the batch unread while the client's connection drops under it; when Redis
      // continues it runs the batch, and its reply goes nowhere.
      server.pause();
      const pending = Promise.allSettled(keys.map((key) => store.consume(key, 1, FROZEN)));
      await sleep(50);
      proxy.dropConnections();
      const outcomes = await pending;
      server.resume();
      expect(outcomes.every((o) => o.status === 'rejected' && o.reason instanceof BucketStoreError)).toBe(true);
      await sleep(300);
      const ran = (await scriptCalls(server.port)) - callsBefore;
      expect(ran).toBeLessThanOrEqual(1);
      // The client reconnects; nothing it had sent is sent again.
      expect((await store.consume('after', 1, FROZEN)).allowed).toBe(true);
      const charged = await taken(store, keys);
      expect(charged.every((tokens) => tokens === ran)).toBe(true);
      console.log(
        `batch lost with its connection (${name}): Redis ran it ${ran} time(s); each of its ${MEMBERS} members charged ${ran} token(s), none twice`,
      );
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  it('survives SCRIPT FLUSH between batches under load, every token accounted for', async () => {
    const client = await connectClient(name, server.port);
    try {
      const store = new RedisBucketStore(client.client, { prefix: 'flush:' });
      const policy = { capacity: 5000, refillPerSecond: 0 };
      let admitted = 0;
      let errors = 0;
      let stop = false;
      const lane = async (lane: number) => {
        for (let i = 0; !stop; i++) {
          try {
            if ((await store.consume(`k${(lane + i) % 20}`, 1, policy)).allowed) admitted++;
          } catch {
            errors++;
          }
        }
      };
      const lanes = Promise.all(Array.from({ length: 64 }, (_, i) => lane(i)));
      for (let flush = 0; flush < 10; flush++) {
        await sleep(40);
        expect(await observer.script('FLUSH')).toBe('OK');
      }
      stop = true;
      await lanes;
      expect(errors).toBe(0);
      const left = await Promise.all(Array.from({ length: 20 }, (_, i) => store.peek(`k${i}`, policy)));
      expect(left.reduce((sum, r) => sum + (policy.capacity - r.remaining), 0)).toBe(admitted);
      expect(admitted).toBeGreaterThan(100);
    } finally {
      await client.close();
    }
  });
});
