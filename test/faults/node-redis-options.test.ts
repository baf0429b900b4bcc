/**
 * node-redis under a killed Redis, with its default options and with the ones docs/operations.md
 * recommends for a limiter. By default node-redis queues the commands sent while it is
 * disconnected (its offline queue) and sends them once it has reconnected, with a backoff that
 * grows to 2 s: every store call still settles within its deadline (BucketStoreTimeoutError), and
 * the queued commands reach the restarted Redis after their deadlines, where the script refuses
 * them, so nothing is charged late; but they cost memory meanwhile and limiting resumes up to 2 s
 * late. With `disableOfflineQueue` and a short reconnect strategy, a call fails at once
 * (BucketStoreError), nothing is sent late, and limiting resumes within ~200 ms.
 */
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { BucketStoreError, BucketStoreTimeoutError, RedisBucketStore } from '../../src/index.js';
import { connectClient, type TestClient } from '../support/redis-clients.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { scriptCalls } from './redis-admin.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const POLICY = { capacity: 1_000_000, refillPerSecond: 0 };
const TIMEOUT_MS = 50;
/** What a call may take beyond its deadline on a busy machine (ms). */
const MARGIN_MS = 150;
const LANES = 16;

describe.each([
  { options: 'default options', limiter: false },
  { options: 'the limiter options', limiter: true },
])('node-redis with $options, Redis killed and restarted', ({ limiter }) => {
  let server: RedisServer | undefined;
  let tested: TestClient | undefined;
  afterEach(async () => {
    await tested?.close();
    await server?.stop();
  });

  it('settles every call within its deadline, and charges nothing late', async () => {
    server = await startRedisServer();
    tested = await connectClient('node-redis', server.port, { limiter });
    const store = new RedisBucketStore(tested.client, { prefix: 'down:' });
    expect((await store.consume('warm', 1, POLICY, { timeoutMs: 1000 })).allowed).toBe(true);

    await server.kill();
    const outcomes: { error: unknown; ms: number }[] = [];
    const stopAt = performance.now() + 1500;
    const lane = async () => {
      while (performance.now() < stopAt) {
        const started = performance.now();
        const error = await store.consume('caller', 1, POLICY, { timeoutMs: TIMEOUT_MS }).then(
          () => undefined,
          (e: unknown) => e,
        );
        outcomes.push({ error, ms: performance.now() - started });
        if (limiter) await sleep(10); // a failing call returns at once: do not spin
      }
    };
    await Promise.all(Array.from({ length: LANES }, lane));
    expect(outcomes.length).toBeGreaterThan(LANES * 10);
    expect(outcomes.filter((o) => o.error === undefined)).toEqual([]);
    expect(outcomes.every((o) => o.error instanceof BucketStoreError)).toBe(true);
    const timedOut = outcomes.filter((o) => o.error instanceof BucketStoreTimeoutError).length;
    if (limiter)
      expect(timedOut).toBe(0); // not queued: refused at once
    else expect(timedOut).toBe(outcomes.length); // queued until the deadline
    const slowest = Math.max(...outcomes.map((o) => o.ms));
    expect(slowest).toBeLessThan(TIMEOUT_MS + MARGIN_MS);

    const restartedAt = performance.now();
    await server.restart();
    // Limiting resumes once the client has reconnected.
    let resumedMs: number | undefined;
    while (resumedMs === undefined && performance.now() - restartedAt < 5000) {
      const result = await store.consume('probe', 1, POLICY, { timeoutMs: TIMEOUT_MS }).catch(() => undefined);
      if (result?.allowed) resumedMs = Math.round(performance.now() - restartedAt);
      else await sleep(20);
    }
    expect(resumedMs).toBeDefined();
    await sleep(200);
    // The restarted Redis is empty: the caller's bucket is full unless a command ran late.
    expect((await store.peek('caller', POLICY, { timeoutMs: 1000 })).remaining).toBe(POLICY.capacity);
    // Script calls the restarted Redis ran: the probes, the peek, and whatever was queued.
    const ran = await scriptCalls(server.port);
    console.log(
      `node-redis, ${limiter ? 'limiter options' : 'default options'}: ${outcomes.length} calls while Redis was down ` +
        `(${timedOut} timed out, slowest ${Math.round(slowest)} ms); limiting resumed ${resumedMs} ms after the restart; ` +
        `the restarted Redis ran ${ran} script calls, none of them charged late`,
    );
    if (limiter) expect(ran).toBeLessThan(20);
    else expect(ran).toBeGreaterThan(LANES); // the queued calls did arrive, and were refused
  }, 30_000);
});
