/**
 * The attack: a caller empties their bucket, then floods the in-process store with fresh identities
 * (`x-test-user: spent-0`, `spent-1`, … as a pool of API keys would give them), 2,500 that each
 * empty their own bucket too, past the store's `maxKeys` of 2,000.
 * What it would gain: a store that drops buckets to make room, and forgets what they owed, hands
 * the emptied caller a full budget again, as often as the flood is repeated.
 * The guarantee that stops it: `MemoryBucketStore` (the default store and the plugin's `'local'`
 * fallback) evicts from its table the bucket that owes least at that moment (a refilled one owes
 * nothing), so cheap identities never push out a debt; and what an evicted bucket owes is kept in a
 * ledger of 2 × `maxKeys` slots (4,096 here), 16 per set, each set keeping its 16 largest debts, so
 * the caller is still refused after 2,500 spent identities. docs/security.md gives the figure: after
 * `maxKeys` + n spent identities the debt is gone with probability P(Poisson(16n / slots) ≥ 16):
 * below 1e-9 here (n = 500).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { type BudgetServer, costOf, itemsQuery, startBudgetServer } from '../plugin/budget-server.js';

const MAX_KEYS = 2_000;
/** 0.5 token per second: the test ends long before the caller could afford 100 tokens again. */
const POLICY = { capacity: 100, refillPerSecond: 0.5 };
/** Requests sent at once, so that 2,500 of them take seconds, not minutes. */
const AT_ONCE = 50;

describe('a flood of fresh identities against MemoryBucketStore', () => {
  let server: BudgetServer;

  beforeAll(async () => {
    server = await startBudgetServer({ store: new MemoryBucketStore({ maxKeys: MAX_KEYS }), policy: POLICY });
  });
  afterAll(() => server.stop());

  /** Sends `query` once as each of `count` identities named `prefix-i`; every reply must be a 200. */
  async function flood(prefix: string, count: number, query: string): Promise<void> {
    for (let from = 0; from < count; from += AT_ONCE) {
      const replies = await Promise.all(
        Array.from({ length: Math.min(AT_ONCE, count - from) }, (_, i) =>
          server.post(query, { user: `${prefix}-${from + i}` }),
        ),
      );
      for (const reply of replies) expect(reply.status).toBe(200);
    }
  }

  it('leaves the emptied bucket owing: its owner is still refused its next cost-100 operation', async () => {
    const emptied = await server.post(itemsQuery(98), { user: 'attacker' }); // costs 100: the whole bucket
    expect(emptied.status).toBe(200);
    expect(costOf(emptied).throttleStatus?.currentlyAvailable).toBe(0);

    await flood('spent', MAX_KEYS + 500, itemsQuery(98)); // each empties its bucket
    const again = await server.post(itemsQuery(98), { user: 'attacker' }); // costs 100
    expect(again.status).toBe(429);
    expect(costOf(again).throttleStatus?.currentlyAvailable).toBeLessThan(100);
  });
});
