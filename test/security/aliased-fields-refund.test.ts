/**
 * Attack (costModel: 'apollo'): alias the expensive field so that the actual cost finds nothing.
 *
 *   { a: report { id } }
 *
 * Apollo Router's actual cost looks each field up in the response by its name, not its response
 * key: `report` is not in `{ "a": { "id": "r1" } }`, so the router's actual cost of this response
 * is 0. A limiter that refunded `estimate − actual` on those rules would refund the whole 50 of
 * `report` every time, and the attacker could run it without limit.
 *
 * Guarantee: under costModel 'apollo', a field's actual cost is read under its response key (its
 * alias), so an aliased field costs what it returned.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { isolatedStore, startBudgetServer, testRedis, whenReady, type BudgetServer } from '../plugin/budget-server.js';
import { libraryResolvers, libraryTypeDefs, type LibraryCounters } from './library-schema.js';

const ATTACK = '{ a: report { id } }';

let redis: Redis;
let server: BudgetServer;
const counters: LibraryCounters = { expensiveRuns: 0 };

beforeAll(async () => {
  redis = testRedis(inject('redisPort'));
  await whenReady(redis);
  server = await startBudgetServer(
    {
      store: isolatedStore(redis),
      policy: { capacity: 100, refillPerSecond: 0 },
      tuning: { storeTimeoutMs: 1000 },
      costModel: 'apollo',
    },
    { schema: { typeDefs: libraryTypeDefs, resolvers: libraryResolvers(counters) } },
  );
});

afterAll(async () => {
  await server.stop();
  redis.disconnect();
});

it('charges the aliased field what it returned, so the budget runs out', async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) {
    const reply = await server.post(ATTACK, { user: 'mallory' });
    statuses.push(reply.status);
    if (reply.status === 200) {
      // report's own @cost 50 (the root weighs 0, id 0), and the Report it returned: 50.
      expect(reply.body.extensions?.cost).toMatchObject({ requestedQueryCost: 50, actualQueryCost: 50 });
    }
  }
  expect(statuses).toEqual([200, 200, 429, 429, 429]);
  expect(counters.expensiveRuns).toBe(2);
});
