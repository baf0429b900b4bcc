import { describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import type { BudgetDecision } from '../../src/core/decision-event.js';
import {
  costOf,
  itemsQuery,
  startBudgetServer,
  type BudgetServer,
  type PluginOptions,
  serversStoppedAfterEach,
} from './budget-server.js';

const POLICY = { capacity: 100, refillPerSecond: 0 };
const servers = serversStoppedAfterEach();

async function start(options: PluginOptions): Promise<BudgetServer> {
  const server = await startBudgetServer({ store: new MemoryBucketStore(), policy: POLICY, ...options });
  servers.push(server);
  return server;
}

describe('cost(estimate, requestContext)', () => {
  it('prices by the request, for the estimate and the actual cost alike', async () => {
    const server = await start({
      cost: (estimate, { contextValue }) =>
        (estimate.typeCost + estimate.fieldCost) * (contextValue.tier === 'batch' ? 2 : 1),
    });
    expect(costOf(await server.post(itemsQuery(10, 4), { user: 'ann' }))).toMatchObject({
      requestedQueryCost: 12,
      actualQueryCost: 6,
    });
    expect(costOf(await server.post(itemsQuery(10, 4), { user: 'bob', tier: 'batch' }))).toMatchObject({
      requestedQueryCost: 24,
      actualQueryCost: 12,
      throttleStatus: { currentlyAvailable: 88 },
    });
  });
});

describe('maxCost and mode per request', () => {
  it('maxCost as a function of the request', async () => {
    const server = await start({ maxCost: ({ contextValue }) => (contextValue.tier === 'strict' ? 10 : 50) });
    expect((await server.post(itemsQuery(20), { user: 'ann', tier: 'strict' })).status).toBe(400);
    expect((await server.post(itemsQuery(20), { user: 'ann' })).status).toBe(200);
  });

  it('mode as a function of the request: a dark launch for one tenant, enforcement for another', async () => {
    const server = await start({
      mode: ({ contextValue }) => (contextValue.tier === 'pilot' ? 'enforce' : 'measure'),
    });
    for (const user of ['pilot-user', 'other-user']) {
      await server.post(itemsQuery(98), { user, tier: user === 'pilot-user' ? 'pilot' : undefined });
    }
    const enforced = await server.post(itemsQuery(8), { user: 'pilot-user', tier: 'pilot' });
    const measured = await server.post(itemsQuery(8), { user: 'other-user' });
    expect(enforced.status).toBe(429);
    expect(measured.status).toBe(200);
    expect(costOf(measured).wouldReject).toBe('RATE_LIMITED');
  });

  it('a mode function returning something else is a 500, logged', async () => {
    const server = await start({ mode: () => 'shadow' as never });
    const reply = await server.post(itemsQuery(1), { user: 'ann' });
    expect(reply.status).toBe(500);
    expect(server.logs.some((log) => log.level === 'error' && /mode/.test(log.message))).toBe(true);
  });
});

describe('skip', () => {
  it('never charges skipped callers, reports SKIPPED, and lets identify return null for them only', async () => {
    const decisions: BudgetDecision[] = [];
    const server = await start({
      // The request's header, as each server hands it over (Apollo's request context, Yoga's Fetch request).
      skip: (request) => headerOf(request, 'x-internal-token') === 'trusted-service',
      identify: ({ contextValue }) => contextValue.user ?? null,
      onDecision: (decision) => void decisions.push(decision),
    });
    for (let i = 0; i < 3; i++) {
      const reply = await server.post(itemsQuery(90), { headers: { 'x-internal-token': 'trusted-service' } });
      expect(reply.status).toBe(200);
      expect(reply.body.extensions?.cost).toBeUndefined();
      expect(reply.headers.get('ratelimit')).toBeNull();
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(decisions.map((decision) => decision.result)).toEqual(['SKIPPED', 'SKIPPED', 'SKIPPED']);
    expect(decisions[0]).toMatchObject({
      key: null,
      policy: null,
      requestedCost: 92,
      actualCost: 92,
      store: 'not_called',
    });

    // Not skipped and no identity: a server fault, never an uncharged request.
    const anonymous = await server.post(itemsQuery(1));
    expect(anonymous.status).toBe(500);
    expect(server.logs.some((log) => /identify` returned null/.test(log.message))).toBe(true);
  });
});

/** A request header, from Apollo Server's request context or from the Envelop context of GraphQL Yoga. */
function headerOf(request: unknown, name: string): string | null | undefined {
  const apollo = (request as { request?: { http?: { headers: { get(name: string): string | undefined } } } }).request;
  if (apollo?.http !== undefined) return apollo.http.headers.get(name);
  const yoga = (request as { contextValue?: { request?: { headers: Headers } } }).contextValue?.request;
  return yoga?.headers.get(name);
}
