/**
 * The attack: a caller empties their bucket, then sends one cheap request under each of many fresh
 * identities (`x-test-user: flood-0`, `flood-1`, … as an IPv6 /64 or a pool of API keys would give
 * them), twice as many as the in-process store keeps.
 * What it would gain: a store that drops the least recently used bucket to make room forgets the
 * emptied bucket, so the caller's next request is admitted on a full budget again, as often as
 * the flood is repeated.
 * The guarantee that stops it: `MemoryBucketStore` (the default store and the plugin's `'local'`
 * fallback) drops the buckets closest to full first, so an emptied bucket outlives a flood of
 * barely used ones; to push it out, the attacker must hold `maxKeys` buckets that are each further
 * from full, that is, spend at least as much on every identity.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { type BudgetServer, costOf, itemsQuery, startBudgetServer } from '../plugin/budget-server.js';

const MAX_KEYS = 100;
/** 0.5 token per second: the test ends long before the victim's next request could be afforded. */
const POLICY = { capacity: 100, refillPerSecond: 0.5 };

describe('a flood of fresh identities against MemoryBucketStore', () => {
  let server: BudgetServer;

  beforeAll(async () => {
    server = await startBudgetServer({ store: new MemoryBucketStore({ maxKeys: MAX_KEYS }), policy: POLICY });
  });
  afterAll(() => server.stop());

  it('leaves the emptied bucket in place: its owner is still refused', async () => {
    const emptied = await server.post(itemsQuery(98), { user: 'attacker' }); // costs 100: the whole bucket
    expect(emptied.status).toBe(200);
    expect(costOf(emptied).throttleStatus?.currentlyAvailable).toBe(0);

    for (let i = 0; i < 2 * MAX_KEYS; i++) {
      const reply = await server.post(itemsQuery(1), { user: `flood-${i}` }); // costs 3
      expect(reply.status).toBe(200);
    }

    const again = await server.post(itemsQuery(18), { user: 'attacker' }); // costs 20
    expect(again.status).toBe(429);
    expect(costOf(again).throttleStatus?.currentlyAvailable).toBeLessThan(20);
  });
});
