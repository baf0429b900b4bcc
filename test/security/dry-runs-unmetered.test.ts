/**
 * Attack: make the limiter's store work for free with dry runs.
 *
 *   { rateLimit(dryRun: true) { cost remaining } items(first: 50) { id } }     × 1,000
 *
 * A dry run takes no tokens, so nothing ever refuses it. Against an empty budget, 1,000 refused
 * operations made no store call (the deny cache answered them), but 1,000 dry runs made 1,000 store
 * reads, all on one key and so on one Redis shard, and took nothing.
 *
 * Guarantee: a dry run takes no tokens, and a caller's dry runs make no more store calls than
 * refused operations would: where this process's deny cache knows the caller's bucket cannot pay,
 * it answers the dry run; otherwise each caller's dry runs pass a local limit of their own
 * (`tuning.dryRunLimit`, 10 at once and 1 per second by default, per process, never the caller's bucket),
 * and one over it is refused with a 429.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import type { BucketCallOptions, BucketPolicy, BucketResult, BucketStore } from '../../src/bucket/types.js';
import { rateLimitResolvers, rateLimitTypeDefs } from '../../src/core/rate-limit-field.js';
import { itemsResolvers, itemsTypeDefs } from '../support/items-schema.js';
import { startBudgetServer, type BudgetServer } from '../plugin/budget-server.js';

/** A real MemoryBucketStore that counts the calls made to it, per key. */
class CountedStore implements BucketStore {
  readonly #inner = new MemoryBucketStore();
  readonly calls = new Map<string, number>();
  #count(key: string): void {
    this.calls.set(key, (this.calls.get(key) ?? 0) + 1);
  }
  consume(key: string, cost: number, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    this.#count(key);
    return this.#inner.consume(key, cost, policy, options);
  }
  refund(key: string, amount: number, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    this.#count(key);
    return this.#inner.refund(key, amount, policy, options);
  }
  peek(key: string, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    this.#count(key);
    return this.#inner.peek(key, policy, options);
  }
}

const DRY_RUN = '{ rateLimit(dryRun: true) { cost remaining } items(first: 50) { id } }';
const policy = { capacity: 100, refillPerSecond: 0 };
const store = new CountedStore();
let server: BudgetServer;

beforeAll(async () => {
  server = await startBudgetServer(
    { store, policy },
    {
      schema: {
        typeDefs: `${itemsTypeDefs}\n${rateLimitTypeDefs}`,
        resolvers: { Query: { ...itemsResolvers.Query, ...rateLimitResolvers.Query } },
      },
    },
  );
});
afterAll(() => server.stop());

it('answers the dry runs of a caller whose budget is spent from the deny cache', async () => {
  expect((await server.post('{ items(first: 98) { id } }', { user: 'empty' })).status).toBe(200);
  expect((await server.post('{ items(first: 10) { id } }', { user: 'empty' })).status).toBe(429);
  const before = store.calls.get('empty') ?? 0;
  for (let i = 0; i < 200; i++) {
    expect((await server.post('{ items(first: 10) { id } }', { user: 'empty' })).status).toBe(429);
  }
  expect(store.calls.get('empty')).toBe(before);
  for (let i = 0; i < 200; i++) {
    const reply = await server.post(DRY_RUN, { user: 'empty' });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({ rateLimit: { cost: 52, remaining: 0 } });
  }
  expect(store.calls.get('empty')).toBe(before);
});

it("limits a caller's dry runs locally, without touching their bucket", async () => {
  const started = performance.now();
  const statuses = new Map<number, number>();
  for (let i = 0; i < 200; i++) {
    const reply = await server.post(DRY_RUN, { user: 'prober' });
    statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
    if (reply.status === 429) expect(reply.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
  }
  const seconds = (performance.now() - started) / 1000;
  const calls = store.calls.get('prober') ?? 0;
  // 10 at once, then 1 per second: the rest are refused here, with no store call.
  expect(calls).toBeLessThanOrEqual(10 + Math.ceil(seconds));
  expect(statuses.get(200)).toBe(calls);
  expect((await store.peek('prober', policy)).remaining).toBe(100);
  // The caller's own budget is untouched: a real operation still runs.
  expect((await server.post('{ items(first: 10) { id } }', { user: 'prober' })).status).toBe(200);
});

it('remembers what a dry run read as a refusal would be, so the next ones need no store call', async () => {
  // Spent by admitted operations alone: no refusal yet for the deny cache to know of.
  expect((await server.post('{ items(first: 96) { id } }', { user: 'spender' })).status).toBe(200);
  const before = store.calls.get('spender') ?? 0;
  for (let i = 0; i < 50; i++) {
    const reply = await server.post(DRY_RUN, { user: 'spender' });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({ rateLimit: { cost: 52, remaining: 2 } });
  }
  // The first dry run read the bucket; the 49 others were answered here.
  expect((store.calls.get('spender') ?? 0) - before).toBe(1);
});
