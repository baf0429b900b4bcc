/**
 * Attack: make the store miss its deadline just when the excess is taken.
 *
 *   { books(first: 1) { id } }      (the resolver returns 500 books, and Redis pauses meanwhile)
 *
 * A list longer than its price is charged for the excess after execution. With Redis paused at
 * that moment (`CLIENT PAUSE`, standing in for any slow spell a caller can provoke or wait for),
 * the take missed its 50 ms deadline and was dropped: actualQueryCost 502, 3 tokens taken.
 *
 * Guarantee: tokens an operation owes after the fact are taken again when the store does not
 * answer, a few times over a few seconds, so a slow store at that moment does not forgive them.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisBucketStore } from '../../src/bucket/redis-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { costOf, startBudgetServer, testRedis, whenReady, type BudgetServer } from '../plugin/budget-server.js';

const typeDefs = `${costDirectivesTypeDefs}
type Book { id: ID! }
type Query { books(first: Int!): [Book!]! @listSize(slicingArguments: ["first"]) }
`;

let redis: RedisServer;
let client: Redis;
let admin: Redis;
let server: BudgetServer;
const policy = { capacity: 10_000, refillPerSecond: 0 };
let store: RedisBucketStore;

beforeAll(async () => {
  redis = await startRedisServer();
  client = testRedis(redis.port);
  admin = new Redis({ port: redis.port, host: '127.0.0.1' });
  await whenReady(client);
  store = new RedisBucketStore(client);
  const resolvers = {
    Query: {
      books: async () => {
        // Redis stops answering for 400 ms, from now: the charge after execution meets it.
        await admin.call('CLIENT', 'PAUSE', '400', 'ALL');
        return Array.from({ length: 500 }, (_, id) => ({ id }));
      },
    },
  };
  server = await startBudgetServer(
    // The breaker opens on the first failure and probes again after 100 ms.
    { store, policy, tuning: { storeTimeoutMs: 50, circuitBreaker: { failureThreshold: 1, cooldownMs: 100 } } },
    { schema: { typeDefs, resolvers } },
  );
});
afterAll(async () => {
  await server.stop();
  client.disconnect();
  admin.disconnect();
  await redis.stop();
});

it('takes the excess once the store answers again', async () => {
  const reply = await server.post('{ books(first: 1) { id } }', { user: 'mallory' });
  expect(reply.status).toBe(200);
  // Query 1 + books 1 + 500 books.
  expect(costOf(reply)).toMatchObject({ requestedQueryCost: 3, actualQueryCost: 502 });
  await new Promise((resolve) => setTimeout(resolve, 2000));
  expect(policy.capacity - (await store.peek('mallory', policy)).remaining).toBe(502);
});
