/**
 * Hold under load: an app server whose event loop other callers keep busy with affordable but
 * CPU-heavy operations (several at once, each 50–100 ms of CPU), while a caller whose bucket is
 * spent keeps asking, with a healthy redis-server.
 *
 * The store's deadline counted the event loop's lag as Redis' time: the reply sat in the socket
 * while the timer fired first, three such "failures" opened the breaker, and the local fallback
 * gave the spent caller a fresh bucket: 56 operations served in 8 s where the refill allowed 11.
 *
 * Guarantee: the deadline measures the store, not the event loop; with Redis healthy no store call
 * fails under CPU-heavy load, so the spent caller is served at most what their refill allows. And
 * with Redis paused (SIGSTOP) the breaker opens and the in-process stand-in starts from what Redis
 * last said, not full.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisBucketStore } from '../../src/bucket/redis-store.js';
import type { BudgetDecision } from '../../src/core/decision-event.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { startBudgetServer, testRedis, whenReady, type BudgetServer } from '../plugin/budget-server.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

const typeDefs = `${costDirectivesTypeDefs}
type Query {
  "Burns the CPU for ms milliseconds: affordable, but it blocks the event loop."
  heavy(ms: Int!): Int @cost(weight: "1")
  ping: Int @cost(weight: "4")
}
`;
const resolvers = {
  Query: {
    heavy: (_: unknown, { ms }: { ms: number }) => {
      const until = performance.now() + ms;
      while (performance.now() < until) {
        // Busy: what a CPU-heavy resolver (rendering, hashing, a big sort) does to the event loop.
      }
      return ms;
    },
    ping: () => 1,
  },
};

/** The spent caller's policy: 50 tokens, refilling 1 per second; `{ ping }` costs 5. */
const SPENT_POLICY = { capacity: 50, refillPerSecond: 1 };
const PING_COST = 5;
const RUN_MS = 8000;

let redis: RedisServer;
let client: Redis;
let server: BudgetServer;
const decisions: BudgetDecision[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
  client = testRedis(redis.port);
  await whenReady(client);
  server = await startBudgetServer(
    {
      store: new RedisBucketStore(client),
      identify: ({ contextValue }) => contextValue.user ?? 'anonymous',
      policy: ({ contextValue }) =>
        contextValue.user?.startsWith('worker') === true
          ? { capacity: 1_000_000, refillPerSecond: 1000 }
          : SPENT_POLICY,
      onDecision: (decision) => {
        decisions.push(decision);
      },
      // Every request of the spent caller asks Redis (no deny cache answering for it): the
      // deadline alone decides whether Redis is judged healthy.
      tuning: { denyCacheMaxEntries: 0 },
    },
    { schema: { typeDefs, resolvers } },
  );
}, 60_000);
afterAll(async () => {
  await server?.stop();
  client?.disconnect();
  await redis?.stop();
});

/** Keeps `lanes` heavy operations of 50–100 ms of CPU in flight until `until`. */
async function busy(lanes: number, until: number): Promise<number> {
  let sent = 0;
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      while (performance.now() < until) {
        const ms = 50 + ((sent * 7 + lane * 13) % 51);
        sent += 1;
        const reply = await server.post(`{ heavy(ms: ${ms}) }`, { user: `worker-${lane}` });
        expect(reply.status).toBe(200);
      }
    }),
  );
  return sent;
}

describe('with Redis healthy', () => {
  it('serves a spent caller no more than their refill while other callers keep the event loop busy', async () => {
    // Spend the caller's bucket in Redis: ten pings of 5.
    for (let ping = 0; ping < 10; ping++) expect((await server.post('{ ping }', { user: 'spent' })).status).toBe(200);
    expect((await server.post('{ ping }', { user: 'spent' })).status).toBe(429);
    decisions.length = 0;

    const started = performance.now();
    const until = started + RUN_MS;
    let served = 0;
    let asked = 0;
    const spender = (async () => {
      while (performance.now() < until) {
        asked += 1;
        if ((await server.post('{ ping }', { user: 'spent' })).status === 200) served += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const heavy = await busy(4, until);
    await spender;
    const elapsedS = (performance.now() - started) / 1000;

    // What the refill allows over the run (and one more for the token that was partly refilled at the start).
    const allowed = Math.floor((SPENT_POLICY.refillPerSecond * elapsedS) / PING_COST) + 1;
    console.info(
      `busy server: ${heavy} heavy operations, ${asked} pings by the spent caller, ${served} served (refill allows ${allowed})`,
    );
    expect(heavy).toBeGreaterThan(60);
    expect(asked).toBeGreaterThan(10);
    expect(served).toBeLessThanOrEqual(allowed);
    // No store call failed: every decision was Redis' own (or the deny cache's, which only repeats Redis).
    const stores = new Set(decisions.map((decision) => decision.store));
    expect([...stores].filter((store) => store !== 'ok' && store !== 'deny_cache')).toEqual([]);
  }, 30_000);
});

describe('with Redis paused (SIGSTOP)', () => {
  it("opens the breaker, and the stand-in bucket starts from what Redis last said of the caller's", async () => {
    // Redis says `drained` has 10 of 50 left: two pings.
    for (let ping = 0; ping < 8; ping++) expect((await server.post('{ ping }', { user: 'drained' })).status).toBe(200);
    decisions.length = 0;
    redis.pause();
    const statuses: number[] = [];
    try {
      for (let ping = 0; ping < 6; ping++) statuses.push((await server.post('{ ping }', { user: 'drained' })).status);
    } finally {
      redis.resume();
    }
    expect(statuses).toEqual([200, 200, 429, 429, 429, 429]);
    expect(decisions.some((decision) => decision.store === 'fallback')).toBe(true);
  }, 30_000);
});
