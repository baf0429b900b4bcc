/**
 * The attack: where `identify` returns something the client sends (an API key header, a token
 * claim), a client sends each request under a fresh identity of 15,000 characters: 400 of them,
 * fewer than the in-process store keeps. Each spends 5 of its 10 tokens, then is refused once (the
 * next query costs 7), so the deny cache remembers it too.
 * What it would gain: `MemoryBucketStore` (the default store and the `'local'` fallback) and the
 * deny cache keyed their entries by the identity itself, so the memory they hold grew with the
 * bytes the client chose to send, up to `maxKeys` × the longest header the server accepts
 * (100,000 × 16 KB: over a gigabyte) instead of a few hundred bytes per bucket.
 * The guarantee that stops it: both key their entries as the Redis store does (`bucketKey`): an
 * identity longer than 64 characters, or with any character outside `[A-Za-z0-9._:@-]`, is kept as
 * its SHA-256, so an entry's size does not depend on what the client sends.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { itemsQuery, serversStoppedAfterEach, startBudgetServer } from '../plugin/budget-server.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function settledHeap(): number {
  for (let i = 0; i < 4; i++) gc();
  return process.memoryUsage().heapUsed;
}

const IDENTITIES = 400;
const LENGTH = 15_000;

describe('long identities', () => {
  const servers = serversStoppedAfterEach();

  it('cost the in-process store and the deny cache a bounded entry each, whatever their length', async () => {
    const store = new MemoryBucketStore({ maxKeys: 10_000 });
    // 10 tokens: the first query (5) is kept by the store, the second (7) refused and remembered.
    const server = await startBudgetServer({ store, policy: { capacity: 10, refillPerSecond: 0.01 } });
    servers.push(server);
    const spend = async (user: string): Promise<void> => {
      expect((await server.post(itemsQuery(3), { user })).status).toBe(200); // costs 5: kept by the store
      expect((await server.post(itemsQuery(5), { user })).status).toBe(429); // costs 7: remembered
    };
    // The same traffic under short identities first, so that what the server keeps anyway (caches,
    // compiled code) is in place before the measurement.
    for (let i = 0; i < IDENTITIES; i++) await spend(`short-${i}`);
    const before = settledHeap();
    for (let i = 0; i < IDENTITIES; i++) await spend(`${i}-`.padEnd(LENGTH, 'x'));
    const grown = settledHeap() - before;
    // Keyed by the identities themselves, the two would hold 2 × 400 × 15,000 bytes (12 MB) more.
    expect(grown).toBeLessThan(4_000_000);
    expect(store.size).toBe(2 * IDENTITIES);
  });
});
