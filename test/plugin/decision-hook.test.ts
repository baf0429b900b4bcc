import { describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import type { BudgetDecision } from '../../src/core/decision-event.js';
import {
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

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('onDecision', () => {
  it('is called once per operation, after its response, with what was decided', async () => {
    const decisions: BudgetDecision[] = [];
    const server = await start({ onDecision: (decision) => void decisions.push(decision) });
    await server.post('query Page { items(first: 10, returned: 4) { id } }', { user: 'ann', operationName: 'Page' });
    await server.post(itemsQuery(95), { user: 'ann' });
    await server.post(itemsQuery(400), { user: 'ann' });
    await settle();
    expect(decisions).toHaveLength(3);
    const [page, refused, tooBig] = decisions as [BudgetDecision, BudgetDecision, BudgetDecision];
    expect(page).toMatchObject({
      key: 'ann',
      policy: POLICY,
      operationName: 'Page',
      mode: 'enforce',
      result: 'COST_OK',
      requestedCost: 12,
      actualCost: 6,
      remaining: 94,
      retryAfterMs: null,
      store: 'ok',
    });
    expect(page.pluginMs).toBeGreaterThan(0);
    expect(page.pluginMs).toBeLessThan(1000);
    expect(refused).toMatchObject({ result: 'RATE_LIMITED', requestedCost: 97, actualCost: null, remaining: 94 });
    // A bucket that never refills: no retry time (-1).
    expect(refused.retryAfterMs).toBe(-1);
    expect(tooBig).toMatchObject({ result: 'COST_ESTIMATED_TOO_EXPENSIVE', store: 'not_called', remaining: null });
  });

  it('a hook that throws or rejects changes nothing in the response and is logged once per burst', async () => {
    let calls = 0;
    const server = await start({
      onDecision: async () => {
        calls += 1;
        if (calls % 2 === 0) throw new Error(`hook failed ${calls}`);
        await Promise.reject(new Error(`hook rejected ${calls}`));
      },
    });
    const replies = [];
    for (let i = 0; i < 6; i++) replies.push(await server.post(itemsQuery(1), { user: 'ann' }));
    await settle();
    for (const reply of replies) {
      expect(reply.status).toBe(200);
      expect(reply.body.errors).toBeUndefined();
    }
    expect(calls).toBe(6);
    const logged = server.logs.filter((log) => log.level === 'error');
    expect(logged).toHaveLength(1);
    expect(logged[0]?.message).toMatch(/onDecision failed.*hook rejected 1/s);
  });

  it('a slow hook never delays the response', async () => {
    let finished = 0;
    const server = await start({
      onDecision: () =>
        new Promise<void>((resolve) =>
          setTimeout(() => {
            finished += 1;
            resolve();
          }, 500),
        ),
    });
    const reply = await server.post(itemsQuery(1), { user: 'ann' });
    expect(reply.status).toBe(200);
    expect(reply.ms).toBeLessThan(400);
    expect(finished).toBe(0);
  });
});
