import { describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import type { BucketCallOptions, BucketPolicy, BucketResult, BucketStore } from '../../src/bucket/types.js';
import type { BudgetDecision } from '../../src/core/decision-event.js';
import type { BudgetLimit } from '../../src/core/limits.js';
import {
  costOf,
  isolatedStore,
  itemsQuery,
  startBudgetServer,
  type BudgetServer,
  type PluginOptions,
  fileRedis,
  serversStoppedAfterEach,
} from './budget-server.js';

/** Several buckets per operation, all-or-nothing, through a real Apollo Server over HTTP. */

const WINDOWS: BudgetLimit[] = [
  { name: 'second', capacity: 100, refillPerSecond: 5 },
  { name: 'minute', capacity: 150, refillPerSecond: 150 / 60 },
];
const withApp = (capacity: number): BudgetLimit[] => [
  ...WINDOWS,
  { name: 'app', key: 'app:42', capacity, refillPerSecond: 1 },
];

const redis = fileRedis();
const servers = serversStoppedAfterEach();

async function start(options: PluginOptions): Promise<BudgetServer> {
  const server = await startBudgetServer({ tuning: { storeTimeoutMs: 1000 }, ...options });
  servers.push(server);
  return server;
}

const stores: [string, () => BucketStore][] = [
  ['MemoryBucketStore', () => new MemoryBucketStore()],
  ['RedisBucketStore', () => isolatedStore(redis)],
];

describe.each(stores)('%s', (_name, makeStore) => {
  it('charges every window, lists them, and binds on the one with the fewest tokens left', async () => {
    const server = await start({ store: makeStore(), policy: WINDOWS });
    const reply = await server.post(itemsQuery(38), { user: 'ann' }); // 40
    expect(reply.status).toBe(200);
    expect(costOf(reply)).toMatchObject({
      requestedQueryCost: 40,
      throttleStatus: { maximumAvailable: 100, currentlyAvailable: 60, restoreRate: 5 },
      budgets: [
        { name: 'second', maximumAvailable: 100, currentlyAvailable: 60, restoreRate: 5 },
        { name: 'minute', maximumAvailable: 150, currentlyAvailable: 110, restoreRate: 2.5 },
      ],
    });
    expect(reply.headers.get('ratelimit-policy')).toBe(
      '"second";q=100;w=20;graphql-budget-unit="query-cost", "minute";q=150;w=60;graphql-budget-unit="query-cost"',
    );
    expect(reply.headers.get('ratelimit')).toBe('"second";r=60;t=8');
  });

  it('refuses when one bucket cannot pay, takes nothing from any, and waits for all of them', async () => {
    const server = await start({ store: makeStore(), policy: WINDOWS });
    expect((await server.post(itemsQuery(78), { user: 'ann' })).status).toBe(200); // 80: second 20, minute 70
    // Within a second the "second" window has about 25 and "minute" 72: 60 fits neither.
    const refused = await server.post(itemsQuery(58), { user: 'ann' });
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    // "second" needs 35 more tokens at 5/s (7 s); "minute" needs 0 (70 ≥ 60)... the longest wait binds.
    expect(retryAfter).toBeGreaterThanOrEqual(7);
    expect(retryAfter).toBeLessThanOrEqual(8);
    expect(refused.headers.get('ratelimit')).toMatch(new RegExp(`^"second";r=2\\d;t=${retryAfter}$`));
    expect(costOf(refused).budgets?.map((bucket) => bucket.currentlyAvailable)).toEqual([
      expect.any(Number),
      expect.any(Number),
    ]);
    // Nothing was taken: a cheaper operation still finds both windows as the first left them.
    const cheap = await server.post(itemsQuery(8), { user: 'ann' });
    expect(cheap.status).toBe(200);
    expect(costOf(cheap).budgets?.[1]?.currentlyAvailable).toBeGreaterThanOrEqual(60);
  });

  it('a shared bucket refuses a caller whose own buckets have tokens', async () => {
    const server = await start({ store: makeStore(), policy: withApp(60) });
    expect((await server.post(itemsQuery(48), { user: 'ann' })).status).toBe(200); // app 10 left
    const bob = await server.post(itemsQuery(18), { user: 'bob' }); // 20 > app's 10
    expect(bob.status).toBe(429);
    expect(bob.body.errors?.[0]?.message).toMatch(/only 10 of the 60 tokens of the "app" budget are left/);
    expect(bob.headers.get('ratelimit')).toMatch(/^"app";r=10;t=1\d$/);
    expect(costOf(bob).budgets).toMatchObject([
      { name: 'second', currentlyAvailable: 100 },
      { name: 'minute', currentlyAvailable: 150 },
      { name: 'app', currentlyAvailable: 10 },
    ]);
  });

  it('refunds every bucket it charged', async () => {
    const server = await start({ store: makeStore(), policy: withApp(1000) });
    const reply = await server.post(itemsQuery(30, 10), { user: 'ann' }); // 32 charged, 12 spent
    expect(costOf(reply)).toMatchObject({ requestedQueryCost: 32, actualQueryCost: 12 });
    expect(costOf(reply).budgets?.map((bucket) => bucket.currentlyAvailable)).toEqual([88, 138, 988]);
  });

  it('the largest cost one operation may have is the smallest capacity', async () => {
    const server = await start({ store: makeStore(), policy: withApp(30) });
    const reply = await server.post(itemsQuery(30), { user: 'ann' });
    expect(reply.status).toBe(400);
    expect(reply.body.errors?.[0]?.extensions).toMatchObject({ code: 'COST_ESTIMATED_TOO_EXPENSIVE', maxCost: 30 });
  });
});

/** Counts the store calls for each key, to see what the deny cache spares. */
class CountingStore implements BucketStore {
  readonly inner = new MemoryBucketStore();
  calls = 0;
  consume(key: string, cost: number, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    this.calls += 1;
    return this.inner.consume(key, cost, policy, options);
  }
  refund(key: string, amount: number, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    this.calls += 1;
    return this.inner.refund(key, amount, policy, options);
  }
  peek(key: string, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    this.calls += 1;
    return this.inner.peek(key, policy, options);
  }
}

describe('deny cache', () => {
  it('answers an abusive caller from this process after a refusal, the same 429, without a store call', async () => {
    const store = new CountingStore();
    const server = await start({ store, policy: { capacity: 100, refillPerSecond: 1 } });
    expect((await server.post(itemsQuery(98), { user: 'mallory' })).status).toBe(200);
    const first = await server.post(itemsQuery(48), { user: 'mallory' }); // 50 > 0: refused by the store
    expect(first.status).toBe(429);
    const callsAfterFirst = store.calls;
    const repeats = [];
    for (let i = 0; i < 20; i++) repeats.push(await server.post(itemsQuery(48), { user: 'mallory' }));
    expect(store.calls).toBe(callsAfterFirst);
    for (const reply of repeats) {
      expect(reply.status).toBe(429);
      expect(reply.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
      expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(49);
      expect(reply.headers.get('ratelimit')).toMatch(/^"budget";r=0;t=\d+$/);
    }
    // A cheaper operation that could fit by the account goes to the store.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const cheap = await server.post('{ expensive }', { user: 'mallory' }); // 1 + 7 = 8 > ~1: still refused...
    expect(cheap.status).toBe(429);
    expect(store.calls).toBe(callsAfterFirst);
    const tiny = await server.post('{ __typename }', { user: 'mallory' }); // 1 ≤ ~1.1: asks the store
    expect(store.calls).toBeGreaterThan(callsAfterFirst);
    expect(tiny.status).toBe(200);
  });

  it("a shared bucket's refusal answers every caller of it", async () => {
    const store = new CountingStore();
    const policy: BudgetLimit[] = [
      { name: 'own', capacity: 100, refillPerSecond: 1 },
      { name: 'org', key: 'org:7', capacity: 50, refillPerSecond: 1 },
    ];
    const server = await start({ store, policy });
    expect((await server.post(itemsQuery(48), { user: 'ann' })).status).toBe(200); // org 0 left
    expect((await server.post(itemsQuery(18), { user: 'ann' })).status).toBe(429); // the store refuses
    const calls = store.calls;
    const bob = await server.post(itemsQuery(18), { user: 'bob' });
    expect(bob.status).toBe(429);
    expect(store.calls).toBe(calls);
    // What this process does not know of bob's own bucket it does not pretend to.
    expect(costOf(bob).budgets).toMatchObject([
      { name: 'own', currentlyAvailable: null },
      { name: 'org', currentlyAvailable: 0 },
    ]);
  });
});

/** A store that is down. */
class DownStore implements BucketStore {
  consume(): Promise<BucketResult> {
    return Promise.reject(new Error('connection refused'));
  }
  refund(): Promise<BucketResult> {
    return Promise.reject(new Error('connection refused'));
  }
  peek(): Promise<BucketResult> {
    return Promise.reject(new Error('connection refused'));
  }
}

describe("onStoreError 'local'", () => {
  it('charges the same buckets, all-or-nothing, in this process while the store is down', async () => {
    const server = await start({ store: new DownStore(), policy: withApp(60), onStoreError: 'local' });
    expect((await server.post(itemsQuery(48), { user: 'ann' })).status).toBe(200);
    const bob = await server.post(itemsQuery(18), { user: 'bob' });
    expect(bob.status).toBe(429);
    expect(bob.headers.get('ratelimit')).toMatch(/^"app";r=10;/);
    // Bob's own buckets were not touched by the refusal.
    expect((await server.post(itemsQuery(8), { user: 'bob' })).status).toBe(200);
  });
});

describe('onDecision', () => {
  it('reports the bucket that binds, and a refusal the deny cache answered', async () => {
    const decisions: BudgetDecision[] = [];
    const server = await start({
      store: new MemoryBucketStore(),
      policy: withApp(60),
      onDecision: (decision) => void decisions.push(decision),
    });
    await server.post(itemsQuery(48), { user: 'ann' });
    await server.post(itemsQuery(18), { user: 'bob' });
    await server.post(itemsQuery(18), { user: 'bob' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(decisions.map(({ bucket, result, store, remaining }) => ({ bucket, result, store, remaining }))).toEqual([
      { bucket: 'app', result: 'COST_OK', store: 'ok', remaining: 10 },
      { bucket: 'app', result: 'RATE_LIMITED', store: 'ok', remaining: expect.closeTo(10, 0) },
      { bucket: 'app', result: 'RATE_LIMITED', store: 'deny_cache', remaining: expect.closeTo(10, 0) },
    ]);
    expect(decisions[0]?.policy).toEqual({ capacity: 60, refillPerSecond: 1 });
  });
});
