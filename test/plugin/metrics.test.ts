import { afterEach, describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import type { BucketPolicy, BucketResult, BucketStore } from '../../src/bucket/types.js';
import { VERSION } from '../../src/version.js';
import { installMeterProvider, type Point } from '../support/otel.js';
import { itemsQuery, startBudgetServer, type BudgetServer, type PluginOptions } from './budget-server.js';

/**
 * The plugin's OpenTelemetry metrics, read through the real SDK (`@opentelemetry/sdk-metrics`) from
 * a real Apollo Server over HTTP: names, units, attributes and values for every outcome.
 */

const POLICY: BucketPolicy = { capacity: 100, refillPerSecond: 0 };
const servers: BudgetServer[] = [];
let shutdown: (() => Promise<void>) | undefined;

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
  await shutdown?.();
});

async function setUp(options: PluginOptions): Promise<{ server: BudgetServer; collect: () => Promise<Point[]> }> {
  const provider = installMeterProvider();
  shutdown = provider.shutdown;
  const server = await startBudgetServer({ store: new MemoryBucketStore(), policy: POLICY, ...options });
  servers.push(server);
  return { server, collect: provider.collect };
}

function only(points: Point[], name: string, attributes: Record<string, unknown> = {}): Point {
  const matching = points.filter(
    (point) => point.name === name && Object.entries(attributes).every(([k, v]) => point.attributes[k] === v),
  );
  if (matching.length !== 1) throw new Error(`${matching.length} points of ${name} ${JSON.stringify(attributes)}`);
  return matching[0] as Point;
}

const OK = { 'cost.result': 'COST_OK', 'budget.mode': 'enforce' };

describe('cost histograms', () => {
  it('COST_OK: estimated, actual and delta (estimated − actual) with the meter graphql-budget', async () => {
    const { server, collect } = await setUp({});
    // Priced for 10 items (12), 4 returned (6): 6 refunded.
    expect((await server.post(itemsQuery(10, 4), { user: 'ann' })).status).toBe(200);
    const points = await collect();
    const estimated = only(points, 'cost.estimated', OK);
    expect(estimated).toMatchObject({ scope: `graphql-budget@${VERSION}`, unit: '{cost}', count: 1, sum: 12 });
    expect(estimated.attributes).toEqual(OK);
    expect(only(points, 'cost.actual', OK)).toMatchObject({ unit: '{cost}', count: 1, sum: 6 });
    expect(only(points, 'cost.delta', OK)).toMatchObject({ unit: '{cost}', count: 1, sum: 6 });
  });

  it('records every outcome with its cost.result; only executed operations have actual and delta', async () => {
    let skipHealth = true;
    const { server, collect } = await setUp({
      skip: ({ contextValue }) => skipHealth && contextValue.user === 'health-check',
    });
    await server.post(itemsQuery(3), { user: 'ann' }); // COST_OK 5
    await server.post(itemsQuery(200), { user: 'ann' }); // too expensive: 202
    await server.post('query Q($n: Int) { items(first: $n) { id } }', { user: 'ann', variables: { n: 'x' } });
    await server.post(itemsQuery(93), { user: 'ann' }); // 95 > 95 left? 100 − 5 = 95: fits
    await server.post(itemsQuery(8), { user: 'ann' }); // 10 > 0 left: RATE_LIMITED
    await server.post(itemsQuery(2), { user: 'health-check' }); // SKIPPED 4
    skipHealth = false;
    const points = await collect();

    const estimated = (result: string) => only(points, 'cost.estimated', { 'cost.result': result });
    expect(estimated('COST_OK')).toMatchObject({ count: 2, sum: 5 + 95 });
    expect(estimated('COST_ESTIMATED_TOO_EXPENSIVE')).toMatchObject({ count: 1, sum: 202 });
    expect(estimated('COST_QUERY_PARSE_FAILURE')).toMatchObject({ count: 1, sum: 0 });
    expect(estimated('RATE_LIMITED')).toMatchObject({ count: 1, sum: 10 });
    expect(estimated('SKIPPED')).toMatchObject({ count: 1, sum: 4 });
    expect(only(points, 'cost.actual', { 'cost.result': 'COST_OK' })).toMatchObject({ count: 2, sum: 100 });
    expect(only(points, 'cost.actual', { 'cost.result': 'SKIPPED' })).toMatchObject({ count: 1, sum: 4 });
    for (const refused of ['COST_ESTIMATED_TOO_EXPENSIVE', 'COST_QUERY_PARSE_FAILURE', 'RATE_LIMITED']) {
      expect(points.filter((p) => p.name !== 'cost.estimated' && p.attributes['cost.result'] === refused)).toEqual([]);
    }
  });

  it('measure mode: budget.mode measure, the result enforce mode would have given, and the operation executed', async () => {
    const { server, collect } = await setUp({ mode: 'measure' });
    await server.post(itemsQuery(98), { user: 'ann' });
    await server.post(itemsQuery(8), { user: 'ann' });
    const points = await collect();
    const wouldRefuse = { 'cost.result': 'RATE_LIMITED', 'budget.mode': 'measure' };
    expect(only(points, 'cost.estimated', wouldRefuse)).toMatchObject({ count: 1, sum: 10 });
    expect(only(points, 'cost.actual', wouldRefuse)).toMatchObject({ count: 1, sum: 10 });
    expect(only(points, 'cost.estimated', { 'cost.result': 'COST_OK', 'budget.mode': 'measure' }).sum).toBe(100);
  });

  it('graphql.operation.name only when metrics.operationName is on', async () => {
    const off = await setUp({});
    await off.server.post('query Cheap { items(first: 1) { id } }', { user: 'ann', operationName: 'Cheap' });
    expect(only(await off.collect(), 'cost.estimated', OK).attributes).toEqual(OK);
    await shutdown?.();

    const on = await setUp({ metrics: { operationName: true } });
    await on.server.post('query Cheap { items(first: 1) { id } }', { user: 'ann', operationName: 'Cheap' });
    expect(only(await on.collect(), 'cost.estimated', OK).attributes).toEqual({
      ...OK,
      'graphql.operation.name': 'Cheap',
    });
  });

  it('metrics: false records nothing', async () => {
    const { server, collect } = await setUp({ metrics: false });
    await server.post(itemsQuery(3), { user: 'ann' });
    expect(await collect()).toEqual([]);
  });

  it('counts an operation whose actual cost exceeded its estimate instead of a negative delta', async () => {
    // A cost function that prices the estimate at 3 and the actual cost 5 above its own: the delta
    // would be negative, which histograms cannot hold.
    let calls = 0;
    const { server, collect } = await setUp({
      cost: (estimate) => (++calls === 1 ? 3 : estimate.typeCost + estimate.fieldCost + 5),
    });
    await server.post(itemsQuery(1), { user: 'ann' });
    const points = await collect();
    expect(points.filter((point) => point.name === 'cost.delta')).toEqual([]);
    expect(only(points, 'budget.cost.underestimated', OK)).toMatchObject({ unit: '{operation}', sum: 1 });
  });
});

/** A store that fails, hangs or answers, as the test says. */
class ScriptedStore implements BucketStore {
  mode: 'error' | 'hang' | 'ok' = 'ok';
  readonly #inner = new MemoryBucketStore();
  consume(key: string, cost: number, policy: BucketPolicy): Promise<BucketResult> {
    if (this.mode === 'error') return Promise.reject(new Error('connection refused'));
    if (this.mode === 'hang') return new Promise<BucketResult>(() => undefined);
    return this.#inner.consume(key, cost, policy);
  }
  refund(key: string, amount: number, policy: BucketPolicy): Promise<BucketResult> {
    return this.#inner.refund(key, amount, policy);
  }
  peek(key: string, policy: BucketPolicy): Promise<BucketResult> {
    return this.#inner.peek(key, policy);
  }
}

describe('store health', () => {
  it('budget.store.duration by outcome (ok, error, timeout, breaker_open, fallback) and breaker transitions', async () => {
    const store = new ScriptedStore();
    const provider = installMeterProvider();
    shutdown = provider.shutdown;
    const server = await startBudgetServer({
      store,
      policy: POLICY,
      onStoreError: 'local',
      tuning: { storeTimeoutMs: 20, circuitBreaker: { failureThreshold: 3, cooldownMs: 60_000 } },
    });
    servers.push(server);

    await server.post(itemsQuery(1), { user: 'ann' }); // ok
    store.mode = 'error';
    await server.post(itemsQuery(1), { user: 'ann' }); // error → fallback
    await server.post(itemsQuery(1), { user: 'ann' }); // error → fallback
    store.mode = 'hang';
    await server.post(itemsQuery(1), { user: 'ann' }); // timeout → fallback; the breaker opens
    await server.post(itemsQuery(1), { user: 'ann' }); // breaker_open → fallback
    const points = await provider.collect();

    const duration = (outcome: string) => only(points, 'budget.store.duration', { outcome });
    expect(duration('ok')).toMatchObject({ unit: 's', count: 1 });
    expect(duration('error')).toMatchObject({ unit: 's', count: 2 });
    expect(duration('timeout').count).toBe(1);
    // The deadline (20 ms) and the backstop's grace (20 ms): the wait is seconds, not ms.
    expect(duration('timeout').min).toBeGreaterThanOrEqual(0.02);
    expect(duration('timeout').max).toBeLessThan(1);
    expect(duration('breaker_open')).toMatchObject({ count: 1, sum: 0 });
    expect(duration('fallback').count).toBe(4);
    expect(only(points, 'budget.breaker.transitions')).toMatchObject({
      unit: '{transition}',
      sum: 1,
      attributes: { 'budget.store.partition': 'store', 'budget.breaker.state': 'open' },
    });
    // Decided in this process meanwhile: still COST_OK, not BUDGET_UNAVAILABLE.
    expect(only(points, 'cost.estimated', OK).count).toBe(5);
  });

  it("BUDGET_UNAVAILABLE when nothing decides ('allow' runs the operation uncharged)", async () => {
    const store = new ScriptedStore();
    store.mode = 'error';
    const provider = installMeterProvider();
    shutdown = provider.shutdown;
    const server = await startBudgetServer({ store, policy: POLICY, onStoreError: 'allow' });
    servers.push(server);
    expect((await server.post(itemsQuery(2), { user: 'ann' })).status).toBe(200);
    const points = await provider.collect();
    const unavailable = { 'cost.result': 'BUDGET_UNAVAILABLE', 'budget.mode': 'enforce' };
    expect(only(points, 'cost.estimated', unavailable).sum).toBe(4);
    expect(only(points, 'cost.actual', unavailable).sum).toBe(4);
  });
});
