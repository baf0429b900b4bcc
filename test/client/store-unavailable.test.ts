/**
 * A 503 BUDGET_UNAVAILABLE (the store failed and `onStoreError` is `'deny'`): nothing ran, and
 * Retry-After says when the store will be tried again. Each client, with its helper, waits that
 * long and retries; with `maxRetries: 0` it hands the 503 on. A real Apollo Server with the plugin,
 * over a store whose first call for each caller fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BucketStoreError } from '../../src/bucket/errors.js';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import type { BucketCallOptions, BucketPolicy, BucketResult, BucketStore } from '../../src/bucket/types.js';
import { itemsQuery, startBudgetServer, type BudgetServer } from '../plugin/budget-server.js';
import { CLIENT_NAMES, makeClient } from '../support/budget-clients.js';
import { loopbackFetch } from '../support/loopback-fetch.js';
import { waitProblem } from '../support/recording-fetch.js';

/** Fails the first charge of each caller, then charges as MemoryBucketStore does. */
class FirstCallFails implements BucketStore {
  readonly #inner = new MemoryBucketStore();
  readonly #seen = new Set<string>();

  async consume(key: string, cost: number, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    if (!this.#seen.has(key)) {
      this.#seen.add(key);
      throw new BucketStoreError('the store is down for this first call');
    }
    return this.#inner.consume(key, cost, policy, options);
  }
  refund(key: string, amount: number, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    return this.#inner.refund(key, amount, policy, options);
  }
  peek(key: string, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    return this.#inner.peek(key, policy, options);
  }
  /** One circuit breaker per caller: one caller's failure does not open it for the others. */
  partitionOf(key: string): string {
    return key;
  }
}

let server: BudgetServer;

beforeAll(async () => {
  server = await startBudgetServer(
    { store: new FirstCallFails(), policy: { capacity: 100, refillPerSecond: 10 }, onStoreError: 'deny' },
    { server: 'apollo' },
  );
});
afterAll(() => server?.stop());

describe.concurrent.each(CLIENT_NAMES)('%s with the library helper, on a 503', (name) => {
  it('waits Retry-After and retries; with maxRetries 0, hands the 503 on', async () => {
    const raw = loopbackFetch();
    const client = makeClient(name, { url: server.url, fetch: raw, headers: { 'x-test-user': `retry-${name}` } });
    const outcome = await client.send(itemsQuery(3));
    expect(outcome.code).toBeNull();
    const [refused, retried, ...more] = raw.sent;
    expect(more).toEqual([]);
    expect(refused?.status).toBe(503);
    expect(retried?.status).toBe(200);
    const retryAfterMs = Number(refused?.retryAfter) * 1000;
    expect(retryAfterMs).toBeGreaterThanOrEqual(1000);
    const gap = (retried?.at as number) - (refused?.answeredAt as number);
    expect(waitProblem(gap, retryAfterMs)).toBeUndefined();

    const once = loopbackFetch();
    const handsOn = makeClient(name, {
      url: server.url,
      fetch: once,
      headers: { 'x-test-user': `no-retry-${name}` },
      options: { maxRetries: 0 },
    });
    expect((await handsOn.send(itemsQuery(3))).code).toBe('BUDGET_UNAVAILABLE');
    expect(once.sent.map((request) => request.status)).toEqual([503]);
  });
});
