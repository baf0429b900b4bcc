/**
 * `timeoutMs`: the store answers in time, a command that reaches Redis after its deadline has no
 * effect, and the deadline measures the store, not this process: a reply that came in time is an
 * answer however long the event loop was busy. The server is this suite's own, paused with SIGSTOP
 * to hold commands back.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketKey } from '../../src/bucket/bucket-key.js';
import { BUCKET_SCRIPT_SHA } from '../../src/bucket/bucket-script.js';
import { BucketStoreTimeoutError } from '../../src/bucket/errors.js';
import { RedisBucketStore } from '../../src/bucket/redis-store.js';
import { CLIENTS, connectClient, type TestClient } from '../support/redis-clients.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startDelayingProxy } from './delaying-proxy.js';

const policy = { capacity: 10, refillPerSecond: 1 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MARGIN_MS = 200;

/** Keeps this process busy, as other requests' CPU-heavy work would (ms). */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** Resolves once a command issued just before has been written by either client (see the test). */
async function afterWrite(): Promise<void> {
  for (let hop = 0; hop < 100; hop++) await new Promise<void>((resolve) => process.nextTick(resolve));
}

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

  it('keeps one timer for calls of every length: a short call trips on time beside the longest one, and nothing spins', async () => {
    // Found by the second review: a timeoutMs beyond Node's longest timer re-armed the watch every
    // millisecond (1,600 TimeoutOverflowWarnings and 208 ms of CPU in 2 s); such a value is refused
    // now, and the longest one Node keeps sleeps.
    const store = new RedisBucketStore(client, { prefix: 'd0:' });
    await store.peek('long', policy, { timeoutMs: 1000 });
    await expect(store.consume('long', 1, policy, { timeoutMs: 3e9 })).rejects.toThrow(
      new RangeError('options.timeoutMs must be at most 2147483647 (about 24.8 days), got 3000000000'),
    );
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    server.pause();
    try {
      const longest = store.consume('long', 1, policy, { timeoutMs: 2_147_483_647 });
      longest.catch(() => undefined);
      const cpuBefore = process.cpuUsage();
      const short = await timed(store.consume('short', 1, policy, { timeoutMs: 30 }));
      await sleep(300);
      const cpu = process.cpuUsage(cpuBefore);
      expect(short.error).toBeInstanceOf(BucketStoreTimeoutError);
      expect(short.ms).toBeLessThan(30 + MARGIN_MS);
      // Idle but for the two calls in flight: no timer firing every millisecond.
      expect((cpu.user + cpu.system) / 1000).toBeLessThan(60);
    } finally {
      server.resume();
      process.off('warning', onWarning);
    }
    expect(warnings.map((warning) => warning.name)).not.toContain('TimeoutOverflowWarning');
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

  it('answers a call whose reply came in time, however long the process is busy after issuing it', async () => {
    const store = new RedisBucketStore(client, { prefix: 'd3:' });
    await store.peek('busy', policy, { timeoutMs: 1000 });
    const runsBefore = await scriptRuns(observer);
    // Twenty calls, then 200 ms of synchronous work in the same callback: the commands leave after
    // it, and each still has its 50 ms.
    const issued = Array.from({ length: 20 }, (_, i) =>
      timed(store.consume(`busy-${i % 4}`, 1, policy, { timeoutMs: 50 })),
    );
    busy(200);
    const outcomes = await Promise.all(issued);
    expect(outcomes.map((outcome) => outcome.error)).toEqual(new Array(20).fill(undefined));
    expect(await scriptRuns(observer)).toBeGreaterThan(runsBefore);
    for (let key = 0; key < 4; key++) expect((await store.peek(`busy-${key}`, policy)).remaining).toBeCloseTo(5, 0);
  });

  it('answers a call whose reply waits in the socket while the process is busy past the deadline', async () => {
    const store = new RedisBucketStore(client, { prefix: 'd6:' });
    await store.peek('waiting', policy, { timeoutMs: 1000 });
    const runsBefore = await scriptRuns(observer);
    const pending = timed(store.consume('waiting', 6, policy, { timeoutMs: 30 }));
    // The busy spell starts once the command is written (node-redis writes in a setImmediate of its
    // own, queued a few promise and nextTick hops after the call; ours is queued after those), so
    // the reply arrives during it and the deadline timer is due before the socket is read.
    await afterWrite();
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        busy(80);
        resolve();
      }),
    );
    const outcome = await pending;
    expect(outcome.error).toBeUndefined();
    expect(await scriptRuns(observer)).toBe(runsBefore + 1); // one consume, nothing given back
    expect((await store.peek('waiting', policy)).remaining).toBeCloseTo(4, 0);
  });

  it('sends again a command that Redis refused as expired because the process wrote it late', async () => {
    // Through a proxy whose answers take 5 ms, so that no answer is back by the first poll phase
    // after the write.
    const proxy = await startDelayingProxy(server.port);
    proxy.replyDelayMs = 5;
    const distant = await connectClient(name, proxy.port);
    try {
      const store = new RedisBucketStore(distant.client, { prefix: 'd7:' });
      await store.peek('late-write', policy, { timeoutMs: 1000 });
      // A CPU-heavy callback queued before the call's: it runs after the command has left the
      // store and before node-redis writes it (ioredis writes at once), past the 30 ms deadline.
      setImmediate(() => busy(80));
      const outcome = await timed(store.consume('late-write', 3, policy, { timeoutMs: 30 }));
      expect(outcome.error).toBeUndefined();
      expect((await store.peek('late-write', policy)).remaining).toBeCloseTo(7, 0); // taken once
    } finally {
      await distant.close();
      await proxy.close();
    }
  });

  it('gives the tokens back when a consume ran in time but its answer came after the timeout', async () => {
    const proxy = await startDelayingProxy(server.port);
    const slow = await connectClient(name, proxy.port);
    try {
      const store = new RedisBucketStore(slow.client, { prefix: 'd8:' });
      await store.peek('slow-reply', policy, { timeoutMs: 1000 }); // the Redis clock, learnt in time
      const runsBefore = await scriptRuns(observer);
      proxy.replyDelayMs = 100; // Redis answers at once; the network holds the answer back
      const outcome = await timed(store.consume('slow-reply', 6, policy, { timeoutMs: 30 }));
      expect(outcome.error).toBeInstanceOf(BucketStoreTimeoutError);
      expect(outcome.ms).toBeLessThan(30 + MARGIN_MS);
      await sleep(200);
      proxy.replyDelayMs = 0;
      expect(await scriptRuns(observer)).toBe(runsBefore + 2); // the consume, then its refund
      expect(await observer.exists(bucketKey('d8:', 'slow-reply'))).toBe(0);
    } finally {
      await slow.close();
      await proxy.close();
    }
  });

  it('times out within the deadline while Redis is paused, the time a busy process held the command back aside', async () => {
    const store = new RedisBucketStore(client, { prefix: 'd9:' });
    await store.peek('paused', policy, { timeoutMs: 1000 });
    const stateBefore = await observer.get(bucketKey('d9:', 'paused'));
    server.pause();
    try {
      const idle = await Promise.all(
        Array.from({ length: 10 }, () => timed(store.consume('paused', 1, policy, { timeoutMs: 50 }))),
      );
      const held = Array.from({ length: 10 }, () => timed(store.consume('paused', 1, policy, { timeoutMs: 50 })));
      busy(150);
      const heldOutcomes = await Promise.all(held);
      for (const outcome of [...idle, ...heldOutcomes]) expect(outcome.error).toBeInstanceOf(BucketStoreTimeoutError);
      for (const outcome of idle) expect(outcome.ms).toBeLessThan(50 + MARGIN_MS);
      expect(Math.max(...idle.map((outcome) => outcome.ms))).toBeGreaterThanOrEqual(49);
      // The commands left after the 150 ms of work, each with its 50 ms.
      for (const outcome of heldOutcomes) {
        expect(outcome.ms).toBeGreaterThanOrEqual(150 + 49);
        expect(outcome.ms).toBeLessThan(150 + 50 + MARGIN_MS);
      }
    } finally {
      server.resume();
    }
    await sleep(50);
    expect(await tested.command('PING')).toBe('PONG'); // the held commands ran before this one
    expect(await observer.get(bucketKey('d9:', 'paused'))).toBe(stateBefore);
  });

  it('judges Redis healthy while the event loop is busy in stretches longer than the deadline, other calls in flight', async () => {
    // ioredis as the docs recommend it (auto-pipelining: it writes the command a turn later), and
    // node-redis (which always does): a busy stretch between the store and the write.
    const writing = await connectClient(name, server.port, { autoPipelining: true });
    const store = new RedisBucketStore(writing.client);
    const wide = { capacity: 1e9, refillPerSecond: 1e6 };
    try {
      await store.peek('warm', wide, { timeoutMs: 2000 });
      const block = setInterval(() => busy(60), 1);
      const others = setInterval(() => void store.peek('other', wide, { timeoutMs: 50 }).catch(() => undefined), 7);
      let timeouts = 0;
      try {
        for (let call = 0; call < 30; call++) {
          const error = await store.consume(`busy-${call}`, 1, wide, { timeoutMs: 50 }).then(
            () => undefined,
            (reason: unknown) => reason,
          );
          if (error instanceof BucketStoreTimeoutError) timeouts += 1;
          else if (error !== undefined) throw error;
        }
      } finally {
        clearInterval(block);
        clearInterval(others);
      }
      expect(timeouts).toBe(0);
    } finally {
      await writing.close();
    }
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
