import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import type { RedisBucketStore } from '../../src/bucket/redis-store.js';
import { BudgetErrorCode } from '../../src/core/errors.js';
import {
  type TestContext,
  costOf,
  isolatedStore,
  itemsQuery,
  startBudgetServer,
  type BudgetServer,
  type PluginOptions,
  type ServerOptions,
  warmUp,
  fileRedis,
  serversStoppedAfterEach,
  serverKind,
} from './budget-server.js';

const POLICY = { capacity: 100, refillPerSecond: 0 };

const redis = fileRedis();
const servers = serversStoppedAfterEach();

async function start(
  options: Partial<PluginOptions> = {},
  serverOptions: ServerOptions = {},
): Promise<{ server: BudgetServer; store: RedisBucketStore }> {
  const store = isolatedStore(redis);
  // These tests are about the contract, not deadlines (store-errors.test.ts is): a generous deadline
  // keeps a busy shared machine from turning a slow answer into a fail-open response.
  const server = await startBudgetServer(
    { store, policy: POLICY, tuning: { storeTimeoutMs: 1000 }, ...options },
    serverOptions,
  );
  servers.push(server);
  await warmUp(server);
  return { server, store };
}

describe('allowed operation', () => {
  it('answers 200 with extensions.cost (numbers) and draft-10 RateLimit headers', async () => {
    const { server } = await start({ policy: { capacity: 1000, refillPerSecond: 50 } });
    const reply = await server.post(itemsQuery(28), { user: 'ann' });

    expect(reply.status).toBe(200);
    expect(reply.body.data?.items).toHaveLength(28);
    expect(costOf(reply)).toEqual({
      requestedQueryCost: 30,
      actualQueryCost: 30,
      throttleStatus: { maximumAvailable: 1000, currentlyAvailable: 970, restoreRate: 50 },
    });
    expect(reply.headers.get('ratelimit-policy')).toBe('"budget";q=1000;w=20;graphql-budget-unit="query-cost"');
    // 30 tokens missing at 50/s: full again in 0.6 s, rounded up to 1.
    expect(reply.headers.get('ratelimit')).toBe('"budget";r=970;t=1');
  });

  it('names the policy as configured and omits w when the bucket never refills', async () => {
    const { server } = await start({ policyName: 'graph-api' });
    const reply = await server.post(itemsQuery(8), { user: 'ann' });
    expect(reply.headers.get('ratelimit-policy')).toBe('"graph-api";q=100;graphql-budget-unit="query-cost"');
    expect(reply.headers.get('ratelimit')).toBe('"graph-api";r=90');
  });

  it('charges each caller separately: one exhausted, the other unaffected', async () => {
    const { server } = await start();
    expect((await server.post(itemsQuery(98), { user: 'ann' })).status).toBe(200);
    expect((await server.post(itemsQuery(1), { user: 'ann' })).status).toBe(429);

    const bob = await server.post(itemsQuery(1), { user: 'bob' });
    expect(bob.status).toBe(200);
    expect(costOf(bob).throttleStatus?.currentlyAvailable).toBe(97);
  });

  it('applies per-request policies (tiers)', async () => {
    const { server } = await start({
      policy: ({ contextValue }) =>
        contextValue.tier === 'paid' ? { capacity: 1000, refillPerSecond: 100 } : { capacity: 20, refillPerSecond: 1 },
    });
    const free = await server.post(itemsQuery(30), { user: 'free-user', tier: 'free' });
    expect(free.status).toBe(400);
    expect(free.body.errors?.[0]?.extensions).toMatchObject({ code: 'COST_ESTIMATED_TOO_EXPENSIVE', maxCost: 20 });

    const paid = await server.post(itemsQuery(30), { user: 'paid-user', tier: 'paid' });
    expect(paid.status).toBe(200);
    expect(costOf(paid).throttleStatus).toEqual({ maximumAvailable: 1000, currentlyAvailable: 968, restoreRate: 100 });
    expect(paid.headers.get('ratelimit-policy')).toBe('"budget";q=1000;w=10;graphql-budget-unit="query-cost"');
  });
});

describe('refunds', () => {
  it('gives back requested − actual when a list returns fewer items, visible in the next response', async () => {
    const { server, store } = await start();
    const first = await server.post(itemsQuery(50, 10), { user: 'ann' });
    expect(first.body.data?.items).toHaveLength(10);
    expect(costOf(first)).toEqual({
      requestedQueryCost: 52,
      actualQueryCost: 12,
      throttleStatus: { maximumAvailable: 100, currentlyAvailable: 88, restoreRate: 0 },
    });
    expect((await store.peek('ann', POLICY)).remaining).toBe(88);

    const second = await server.post(itemsQuery(1), { user: 'ann' });
    expect(costOf(second).throttleStatus?.currentlyAvailable).toBe(85);
  });
});

describe('over budget', () => {
  it('answers 429 with Retry-After, one RATE_LIMITED error, no data, and takes no tokens', async () => {
    const policy = { capacity: 100, refillPerSecond: 10 };
    const { server, store } = await start({ policy });
    expect((await server.post(itemsQuery(88), { user: 'ann' })).status).toBe(200); // 90 taken, 10 left

    const reply = await server.post(itemsQuery(38), { user: 'ann' }); // costs 40
    expect(reply.status).toBe(429);
    expect(reply.body.data).toBeUndefined();
    expect(reply.body.errors).toHaveLength(1);
    expect(reply.body.errors?.[0]?.extensions?.code).toBe(BudgetErrorCode.RATE_LIMITED);
    expect(reply.body.errors?.[0]?.message).toMatch(/costs 40/);
    // 30 tokens missing at 10/s: 3 s, whole seconds rounded up (never earlier than the bucket allows).
    const retryAfter = Number(reply.headers.get('retry-after'));
    expect(retryAfter).toBe(3);
    expect(reply.body.errors?.[0]?.extensions?.retryAfter).toBe(3);
    // The RateLimit field's reset names the same instant as Retry-After (draft-10 §6), not the
    // time until the bucket is full (9 s).
    expect(reply.headers.get('ratelimit')).toMatch(/^"budget";r=1[01];t=3$/);
    const cost = costOf(reply);
    expect(cost.requestedQueryCost).toBe(40);
    expect(cost.actualQueryCost).toBe(0);
    expect(cost.throttleStatus?.maximumAvailable).toBe(100);
    expect(cost.throttleStatus?.currentlyAvailable).toBeGreaterThanOrEqual(10);
    expect(cost.throttleStatus?.currentlyAvailable).toBeLessThan(12);
    // Nothing was taken: the bucket only refilled since.
    const after = await store.peek('ann', policy);
    expect(after.remaining).toBeGreaterThanOrEqual(10);
    expect(after.remaining).toBeLessThan(13);
  });

  it('lets the same operation through once Retry-After has passed', async () => {
    const { server } = await start({ policy: { capacity: 10, refillPerSecond: 20 } });
    expect((await server.post(itemsQuery(8), { user: 'ann' })).status).toBe(200);
    const rejected = await server.post(itemsQuery(8), { user: 'ann' });
    expect(rejected.status).toBe(429);
    const seconds = Number(rejected.headers.get('retry-after'));
    expect(seconds).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    expect((await server.post(itemsQuery(8), { user: 'ann' })).status).toBe(200);
  });
});

describe('too expensive for any budget', () => {
  it('answers 400 COST_ESTIMATED_TOO_EXPENSIVE above the capacity, with the estimate and the maximum, no tokens taken', async () => {
    const { server, store } = await start();
    const reply = await server.post(itemsQuery(150), { user: 'ann' });
    expect(reply.status).toBe(400);
    expect(reply.body.data).toBeUndefined();
    expect(reply.body.errors?.[0]?.extensions).toMatchObject({
      code: 'COST_ESTIMATED_TOO_EXPENSIVE',
      estimatedCost: 152,
      maxCost: 100,
    });
    expect(costOf(reply)).toEqual({ requestedQueryCost: 152, actualQueryCost: 0, throttleStatus: null });
    expect((await store.peek('ann', POLICY)).remaining).toBe(100);
  });

  it('uses maxCost when it is lower than the capacity', async () => {
    const { server, store } = await start({ maxCost: 30 });
    expect((await server.post(itemsQuery(28), { user: 'ann' })).status).toBe(200);
    const reply = await server.post(itemsQuery(29), { user: 'ann' });
    expect(reply.status).toBe(400);
    expect(reply.body.errors?.[0]?.extensions).toMatchObject({
      code: 'COST_ESTIMATED_TOO_EXPENSIVE',
      estimatedCost: 31,
      maxCost: 30,
    });
    expect((await store.peek('ann', POLICY)).remaining).toBe(70);
  });

  it('charges what the cost option returns', async () => {
    const { server } = await start({ cost: ({ typeCost, fieldCost }) => 2 * (typeCost + fieldCost) });
    const reply = await server.post(itemsQuery(8), { user: 'ann' });
    expect(costOf(reply).requestedQueryCost).toBe(20);
    expect(costOf(reply).throttleStatus?.currentlyAvailable).toBe(80);
  });
});

describe('cost engine errors', () => {
  it('answers 400 (never 500) when the operation exceeds the work cap', async () => {
    const { server, store } = await start({ maxNodes: 5 });
    const aliases = Array.from({ length: 20 }, (_, i) => `a${i}: items(first: 1) { id }`).join(' ');
    const reply = await server.post(`{ ${aliases} }`, { user: 'ann' });
    expect(reply.status).toBe(400);
    expect(reply.body.errors).toHaveLength(1);
    expect(reply.body.errors?.[0]?.extensions?.code).toBe('COST_ANALYSIS_LIMIT');
    expect(reply.body.data).toBeUndefined();
    expect((await store.peek('ann', POLICY)).remaining).toBe(100);
  });

  it('answers 400 for variables of the wrong type', async () => {
    const { server } = await start();
    const reply = await server.post('query Q($n: Int) { items(first: $n) { id } }', {
      user: 'ann',
      variables: { n: 'many' },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.errors).toHaveLength(1);
    expect(reply.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(reply.body.data).toBeUndefined();
  });
});

describe('introspection', () => {
  it('is priced like any other selection in production; only __typename is free', async () => {
    const { server } = await start({ introspection: 'priced' });
    const reply = await server.post('{ __typename __schema { queryType { name } } }', { user: 'ann' });
    expect(reply.status).toBe(200);
    // Query 1 + __Schema 1 + __Type 1, and the composite fields __schema 1 + queryType 1.
    expect(costOf(reply).requestedQueryCost).toBe(5);
    expect((await server.post('{ __typename }', { user: 'ann' })).body.extensions?.cost?.requestedQueryCost).toBe(1);
  });

  it('outside production, an operation of nothing but introspection is free; beside other fields it is priced', async () => {
    const { server } = await start({ introspection: 'free-when-alone' });
    expect((await server.post(itemsQuery(98), { user: 'ann' })).status).toBe(200);
    const tools = await server.post('{ __typename __schema { queryType { name } } }', { user: 'ann' });
    expect(tools.status).toBe(200);
    expect(costOf(tools).requestedQueryCost).toBe(0);
    const mixed = await server.post('{ items(first: 1) { id } __schema { queryType { name } } }', { user: 'bob' });
    expect(costOf(mixed).requestedQueryCost).toBe(3 + 4);
  });

  it("introspection: 'free' makes it free and answered even with an empty bucket", async () => {
    const { server } = await start({ introspection: 'free' });
    expect((await server.post(itemsQuery(98), { user: 'ann' })).status).toBe(200);
    const reply = await server.post('{ __typename __schema { queryType { name } } }', { user: 'ann' });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({ __typename: 'Query', __schema: { queryType: { name: 'Query' } } });
    expect(costOf(reply).requestedQueryCost).toBe(0);
  });
});

describe('measure mode', () => {
  it('never rejects, reports and logs the would-be decision, and charges exactly like enforce', async () => {
    const { server, store } = await start({ mode: 'measure' });
    const first = await server.post(itemsQuery(78), { user: 'ann' });
    expect(first.status).toBe(200);
    expect(costOf(first).throttleStatus?.currentlyAvailable).toBe(20);
    expect(costOf(first).wouldReject).toBeUndefined();

    const overBudget = await server.post(itemsQuery(48), { user: 'ann' });
    expect(overBudget.status).toBe(200);
    expect(overBudget.body.data?.items).toHaveLength(48);
    expect(costOf(overBudget)).toMatchObject({ requestedQueryCost: 50, wouldReject: 'RATE_LIMITED' });
    expect(costOf(overBudget).throttleStatus?.currentlyAvailable).toBe(20);
    expect(overBudget.headers.get('retry-after')).toBeNull();

    const tooExpensive = await server.post(itemsQuery(200), { user: 'ann' });
    expect(tooExpensive.status).toBe(200);
    expect(costOf(tooExpensive)).toMatchObject({
      requestedQueryCost: 202,
      wouldReject: 'COST_ESTIMATED_TOO_EXPENSIVE',
    });

    // A rejected consume takes nothing, in both modes.
    expect((await store.peek('ann', POLICY)).remaining).toBe(20);
    const logged = server.logs.filter((log) => log.message.includes('would reject'));
    expect(logged).toHaveLength(2);
    expect(logged[0]?.message).toMatch(/RATE|costs 50/);
  });
});

describe('measure mode and operations that cannot be priced', () => {
  it('runs them uncharged and reports the code enforce mode would have answered with', async () => {
    const { server, store } = await start({ mode: 'measure', maxNodes: 5 });
    const aliases = Array.from({ length: 20 }, (_, i) => `a${i}: items(first: 1) { id }`).join(' ');
    const reply = await server.post(`{ ${aliases} }`, { user: 'ann' });
    expect(reply.status).toBe(200);
    expect(reply.body.errors).toBeUndefined();
    expect(Object.keys(reply.body.data ?? {})).toHaveLength(20);
    expect(costOf(reply)).toEqual({
      requestedQueryCost: 0,
      actualQueryCost: 0,
      throttleStatus: null,
      wouldReject: 'COST_ANALYSIS_LIMIT',
    });
    expect((await store.peek('ann', POLICY)).remaining).toBe(100);
  });
});

describe('exposeCost', () => {
  it('false: no extensions.cost and no RateLimit headers, but a 429 still carries Retry-After', async () => {
    const { server } = await start({ exposeCost: false, policy: { capacity: 100, refillPerSecond: 1 } });
    const ok = await server.post(itemsQuery(90), { user: 'ann' });
    expect(ok.status).toBe(200);
    expect(ok.body.extensions?.cost).toBeUndefined();
    expect(ok.headers.get('ratelimit')).toBeNull();
    expect(ok.headers.get('ratelimit-policy')).toBeNull();

    const rejected = await server.post(itemsQuery(90), { user: 'ann' });
    expect(rejected.status).toBe(429);
    expect(rejected.body.extensions?.cost).toBeUndefined();
    expect(Number(rejected.headers.get('retry-after'))).toBeGreaterThanOrEqual(83);
  });

  it('a function decides per request', async () => {
    const { server } = await start({ exposeCost: ({ contextValue }) => contextValue.user === 'ann' });
    expect((await server.post(itemsQuery(1), { user: 'ann' })).body.extensions?.cost).toBeDefined();
    expect((await server.post(itemsQuery(1), { user: 'bob' })).body.extensions?.cost).toBeUndefined();
  });
});

describe('debug header', () => {
  it('graphql-budget-debug: fields adds the per-field breakdown for callers fieldBreakdown allows', async () => {
    const { server } = await start({ fieldBreakdown: ({ contextValue }) => contextValue.user === 'ann' });
    const reply = await server.post(itemsQuery(4), { user: 'ann', headers: { 'graphql-budget-debug': 'fields' } });
    const fields = costOf(reply).fields;
    expect(fields).toBeDefined();
    expect(fields?.some((field) => field.path === 'items')).toBe(true);
    expect(costOf(reply).requestedQueryCost).toBe(6);

    const plain = await server.post(itemsQuery(4), { user: 'ann' });
    expect(costOf(plain).fields).toBeUndefined();

    const other = await server.post(itemsQuery(4), { user: 'bob', headers: { 'graphql-budget-debug': 'fields' } });
    expect(costOf(other).fields).toBeUndefined();
  });

  it('is ignored when exposeCost is false', async () => {
    const { server } = await start({ exposeCost: false, fieldBreakdown: true });
    const reply = await server.post(itemsQuery(4), { user: 'ann', headers: { 'graphql-budget-debug': 'fields' } });
    expect(reply.body.extensions).toBeUndefined();
  });
});

describe('batched HTTP requests', () => {
  it('charges each operation; a rejected member gets its own error and the batch stays 200', async () => {
    const { server, store } = await start({}, { allowBatchedHttpRequests: true });
    const reply = await server.postBatch(
      [{ query: itemsQuery(38) }, { query: itemsQuery(38) }, { query: itemsQuery(38) }],
      { user: 'ann' },
    );
    expect(reply.status).toBe(200);
    expect(reply.headers.get('retry-after')).toBeNull();
    expect(reply.body).toHaveLength(3);
    const rejected = reply.body.filter((member) => member.errors?.[0]?.extensions?.code === 'RATE_LIMITED');
    const served = reply.body.filter((member) => member.data?.items);
    expect(served).toHaveLength(2);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]?.data).toBeUndefined();
    expect((await store.peek('ann', POLICY)).remaining).toBe(20);
    expect(reply.headers.get('ratelimit')).toMatch(/^"budget";r=\d+$/);
  });
});

describe('estimates', () => {
  it('depend on the variables: one document, two costs (the cache is keyed by variables)', async () => {
    const { server } = await start();
    const query = 'query Q($n: Int) { items(first: $n) { id } }';
    const small = await server.post(query, { user: 'ann', variables: { n: 5 } });
    const large = await server.post(query, { user: 'ann', variables: { n: 50 } });
    const smallAgain = await server.post(query, { user: 'ann', variables: { n: 5 } });
    expect([small, large, smallAgain].map((reply) => costOf(reply).requestedQueryCost)).toEqual([7, 52, 7]);
    expect(costOf(smallAgain).throttleStatus?.currentlyAvailable).toBe(100 - 7 - 52 - 7);
  });
});

describe('interplay with Apollo and other plugins', () => {
  it('refunds everything when another plugin rejects the operation after it was charged', async () => {
    const rejecter: ApolloServerPlugin<TestContext> = {
      async requestDidStart() {
        return {
          async didResolveOperation() {
            await new Promise((resolve) => setTimeout(resolve, 1));
            throw new GraphQLError('not today', { extensions: { code: 'FORBIDDEN', http: { status: 403 } } });
          },
        };
      },
    };
    // The same on GraphQL Yoga: an Envelop plugin after the budget's stops the execution.
    const stopper: Plugin<TestContext> = {
      onExecute: ({ setResultAndStopExecution }) =>
        setResultAndStopExecution({
          errors: [new GraphQLError('not today', { extensions: { code: 'FORBIDDEN', http: { status: 403 } } })],
        }),
    };
    const { server, store } = await start(
      {},
      serverKind() === 'yoga' ? { extraEnvelopPlugins: [stopper] } : { extraPlugins: [rejecter] },
    );
    const reply = await server.post(itemsQuery(30), { user: 'ann' });
    expect(reply.status).toBe(403);
    expect(costOf(reply)).toMatchObject({ requestedQueryCost: 32, actualQueryCost: 0 });
    expect((await store.peek('ann', POLICY)).remaining).toBe(100);
  });

  it('returns a GraphQLError thrown by identify as is', async () => {
    const { server } = await start({
      identify: ({ contextValue }) => {
        if (!contextValue.user)
          throw new GraphQLError('Sign in first.', { extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } } });
        return contextValue.user;
      },
    });
    const reply = await server.post(itemsQuery(1));
    expect(reply.status).toBe(401);
    expect(reply.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('sends no stack trace with its errors even when Apollo includes stack traces', async () => {
    const { server } = await start({}, { includeStacktraceInErrorResponses: true });
    const tooExpensive = await server.post(itemsQuery(200), { user: 'ann' });
    expect(tooExpensive.status).toBe(400);
    await server.post(itemsQuery(98), { user: 'ann' });
    const limited = await server.post(itemsQuery(5), { user: 'ann' });
    expect(limited.status).toBe(429);
    for (const reply of [tooExpensive, limited]) {
      expect(reply.body.errors?.[0]?.extensions).not.toHaveProperty('stacktrace');
    }
  });

  it('warns once that the default in-process store is not shared', async () => {
    const server = await startBudgetServer({ policy: POLICY });
    servers.push(server);
    await server.post(itemsQuery(1), { user: 'ann' });
    await server.post(itemsQuery(1), { user: 'ann' });
    const warnings = server.logs.filter((log) => log.level === 'warn' && log.message.includes('not shared'));
    expect(warnings).toHaveLength(1);
  });
});
