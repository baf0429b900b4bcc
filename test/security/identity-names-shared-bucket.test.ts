/**
 * The attack: on a server where organisations share a bucket (`policy` returns a limit with
 * `key: 'acme'`) and other callers get one plain bucket (`policy` returns a single policy), a
 * caller picks an identity equal to the organisation's key (a user name, an account id or a token
 * claim the caller chooses: `acme`), or one that spells the shared bucket's identity in the deny
 * cache (`acme` NUL `acme`), and spends their own budget.
 * What it would gain: if a caller's plain bucket and a shared bucket can have the same identity,
 * the caller's requests drain the organisation's budget, and every member of the organisation is
 * refused (by the store, or by the deny cache remembering the caller's refusal) without having
 * spent anything.
 * The guarantee that stops it: a shared bucket lives under a hash tag (its own key, unless one is
 * given), so its Redis key never equals a caller's plain bucket, and the deny cache names every
 * bucket by an encoding no identity can spell: no identity a caller picks reaches another owner's
 * bucket.
 */
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import type { BucketStore } from '../../src/bucket/types.js';
import type { BudgetLimit } from '../../src/plugin/limits.js';
import {
  type BudgetServer,
  isolatedStore,
  itemsQuery,
  startBudgetServer,
  testRedis,
  whenReady,
} from '../plugin/budget-server.js';

let redis: Redis;
const servers: BudgetServer[] = [];

beforeAll(async () => {
  redis = testRedis(inject('redisPort'));
  await whenReady(redis);
});
afterAll(() => redis.disconnect());
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

const MEMBERS = new Set(['alice', 'bob']);
/** Members: a window of their own and the organisation's shared bucket. */
const memberLimits: BudgetLimit[] = [
  { name: 'own', capacity: 1000, refillPerSecond: 0 },
  { name: 'org', key: 'acme', capacity: 20, refillPerSecond: 0 },
];
/** Everyone else: one plain bucket of their own. */
const everyoneElse = { capacity: 1000, refillPerSecond: 0 };

describe.each([
  ['RedisBucketStore', (): BucketStore => isolatedStore(redis)],
  ['MemoryBucketStore', (): BucketStore => new MemoryBucketStore()],
])('on %s', (_name, makeStore) => {
  async function start(): Promise<BudgetServer> {
    const server = await startBudgetServer({
      store: makeStore(),
      // The identity comes from a value the caller chooses (decoded as a token claim would be).
      identify: ({ contextValue }) => decodeURIComponent(contextValue.user ?? 'anonymous'),
      policy: ({ contextValue }) => (MEMBERS.has(contextValue.user ?? '') ? memberLimits : everyoneElse),
      storeTimeoutMs: 1000,
    });
    servers.push(server);
    return server;
  }

  it("a caller named like the organisation's key spends only their own bucket", async () => {
    const server = await start();
    // 10 requests of cost 12 (120 tokens): far more than the organisation's 20.
    for (let i = 0; i < 10; i += 1) {
      expect((await server.post(itemsQuery(10), { user: 'acme' })).status).toBe(200);
    }
    const member = await server.post(itemsQuery(10), { user: 'alice' }); // costs 12 of the org's 20
    expect(member.status).toBe(200);
  });

  it("a caller whose identity spells the shared bucket's deny-cache name is refused alone", async () => {
    const server = await start();
    const spelled = encodeURIComponent('acme\u0000acme');
    // Spend the caller's own 1000 tokens, then get refused: the deny cache remembers that refusal.
    for (let i = 0; i < 2; i += 1) {
      expect((await server.post(itemsQuery(498), { user: spelled })).status).toBe(200); // 500 each
    }
    expect((await server.post(itemsQuery(10), { user: spelled })).status).toBe(429);
    const member = await server.post(itemsQuery(10), { user: 'bob' });
    expect(member.status).toBe(200);
  });
});
