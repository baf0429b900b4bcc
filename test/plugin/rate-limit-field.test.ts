import { describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { rateLimitResolvers, rateLimitTypeDefs } from '../../src/core/rate-limit-field.js';
import { itemsResolvers, itemsTypeDefs } from '../support/items-schema.js';
import {
  costOf,
  startBudgetServer,
  type BudgetServer,
  type PluginOptions,
  serversStoppedAfterEach,
} from './budget-server.js';

/** GitHub's `rateLimit(dryRun:)` field, merged into the items schema, over HTTP. */

const POLICY = { capacity: 100, refillPerSecond: 5 };
const servers = serversStoppedAfterEach();

let itemResolverRuns = 0;
const schema = {
  typeDefs: `${itemsTypeDefs}\n${rateLimitTypeDefs}`,
  resolvers: {
    Query: {
      ...itemsResolvers.Query,
      items: (source: unknown, args: { first: number; returned?: number | null }) => {
        itemResolverRuns += 1;
        return itemsResolvers.Query.items(source, args);
      },
      ...rateLimitResolvers.Query,
    },
  },
};

async function start(options: PluginOptions = {}): Promise<BudgetServer> {
  const server = await startBudgetServer({ store: new MemoryBucketStore(), policy: POLICY, ...options }, { schema });
  servers.push(server);
  return server;
}

interface RateLimitJson {
  cost: number;
  limit: number;
  remaining: number;
  used: number;
  resetAt: string;
}

function rateLimitOf(body: { data?: Record<string, unknown> | null }): RateLimitJson {
  return body.data?.rateLimit as RateLimitJson;
}

describe('rateLimit', () => {
  it('costs nothing extra and shows the bucket after this operation', async () => {
    const server = await start();
    const plain = await server.post('{ items(first: 8) { id } }', { user: 'ann' });
    const withField = await server.post('{ items(first: 8) { id } rateLimit { cost limit remaining used resetAt } }', {
      user: 'ann',
    });
    expect(costOf(withField).requestedQueryCost).toBe(costOf(plain).requestedQueryCost);
    const view = rateLimitOf(withField.body);
    expect(view).toMatchObject({ cost: 10, limit: 100, remaining: 80, used: 20 });
    // 20 tokens at 5/s: full again in 4 s.
    const resetIn = Date.parse(view.resetAt) - Date.now();
    expect(resetIn).toBeGreaterThan(3000);
    expect(resetIn).toBeLessThanOrEqual(4000);
  });

  it('dryRun: prices without charging, runs nothing else, and answers with rateLimit alone', async () => {
    const server = await start();
    await server.post('{ items(first: 18) { id } }', { user: 'ann' });
    const runsBefore = itemResolverRuns;
    const query =
      'query Check($dry: Boolean) { items(first: 28) { id } limits: rateLimit(dryRun: $dry) { cost remaining } }';
    const dry = await server.post(query, { user: 'ann', variables: { dry: true } });
    expect(dry.status).toBe(200);
    expect(dry.body.data).toEqual({ limits: { cost: 30, remaining: 80 } });
    expect(itemResolverRuns).toBe(runsBefore);

    const again = await server.post(query, { user: 'ann', variables: { dry: true } });
    expect(rateLimitOf({ data: { rateLimit: again.body.data?.limits } })).toMatchObject({ remaining: 80 });

    // The same operation charged for real costs what the dry run said.
    const real = await server.post(query, { user: 'ann', variables: { dry: false } });
    expect(costOf(real).requestedQueryCost).toBe(30);
    expect(real.body.data?.limits).toEqual({ cost: 30, remaining: 50 });
    expect(itemResolverRuns).toBe(runsBefore + 1);
  });

  it('is null where the plugin decided nothing for the request (skipped)', async () => {
    const server = await start({ skip: () => true });
    const reply = await server.post('{ rateLimit { remaining } }', { user: 'ann' });
    expect(reply.body.data).toEqual({ rateLimit: null });
  });
});
