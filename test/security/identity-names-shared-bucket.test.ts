import { describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import type { BucketStore } from '../../src/bucket/types.js';
import type { BudgetLimit } from '../../src/core/limits.js';
import {
  type BudgetServer,
  isolatedStore,
  itemsQuery,
  startBudgetServer,
  fileRedis,
  serversStoppedAfterEach,
} from '../plugin/budget-server.js';

const redis = fileRedis();
const servers = serversStoppedAfterEach();

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
      tuning: { storeTimeoutMs: 1000 },
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
