/**
 * Attack: fill the metrics backend with series, by naming every operation differently.
 *
 *   query Op0001 { items(first: 1) { id } }, query Op0002 { … }, …      × 3,000
 *
 * With `metrics: { operationName: true }` the operation name is a metric attribute, and the client
 * chooses it. One caller with 5 tokens filled the SDK's 2,000-series limit on `cost.estimated`
 * although 2,999 of the 3,000 requests were refused: refused operations were recorded under their
 * names too.
 *
 * Guarantee: the number of distinct `graphql.operation.name` values is bounded (the first
 * `metrics.maxOperationNames`, 100 by default, then one overflow value), names are recorded only
 * for operations that were priced and admitted, and a name over 64 characters is the overflow value.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { installMeterProvider, type Point } from '../support/otel.js';
import { startBudgetServer, type BudgetServer } from '../plugin/budget-server.js';

let server: BudgetServer;
let provider: ReturnType<typeof installMeterProvider>;

beforeAll(async () => {
  provider = installMeterProvider();
  server = await startBudgetServer({
    store: new MemoryBucketStore(),
    policy: { capacity: 5, refillPerSecond: 0 },
    metrics: { operationName: true },
  });
});
afterAll(async () => {
  await server.stop();
  await provider.shutdown();
});

const names = (points: Point[]) =>
  new Set(points.filter((p) => p.name === 'cost.estimated').map((p) => p.attributes['graphql.operation.name']));

it('keeps the names of refused operations out of the metrics', async () => {
  for (let i = 0; i < 300; i++) {
    const name = `Op${String(i).padStart(4, '0')}`;
    await server.post(`query ${name} { items(first: 1) { id } }`, { user: 'mallory', operationName: name });
  }
  const seen = names(await provider.collect());
  // One admitted operation (3 tokens of 5), the others refused: one name, and refusals without one.
  expect(seen).toEqual(new Set(['Op0000', undefined]));
});

it('bounds the distinct names of admitted operations, and long names', async () => {
  for (let i = 0; i < 150; i++) {
    const name = `Paid${i}`;
    await server.post(`query ${name} { items(first: 1) { id } }`, { user: `payer-${i}`, operationName: name });
  }
  const long = `L${'x'.repeat(100)}`;
  await server.post(`query ${long} { items(first: 1) { id } }`, { user: 'long', operationName: long });
  const seen = names(await provider.collect());
  seen.delete(undefined);
  expect(seen.size).toBe(101); // Op0000, Paid0 … Paid98, and the overflow value
  expect(seen.has('Paid98')).toBe(true);
  expect(seen.has('Paid99')).toBe(false);
  expect(seen.has('(other)')).toBe(true);
  expect([...seen].some((name) => String(name).length > 64)).toBe(false);
});
