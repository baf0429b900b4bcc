/**
 * Many debtors at once: 5,000 callers each owe the excess of a list longer than priced, settled
 * while Redis is paused; then Redis returns.
 *
 * The ledger paid every debt in one burst: its own commands reached Redis after their deadlines,
 * were refused, and every retry round opened the circuit breaker for every caller: at 5,000
 * debtors 36 % were paid after 15 s, at 10,000 none.
 *
 * Guarantee: debts are paid a chunk at a time, so they are all taken soon after Redis returns,
 * without opening the breaker for anyone.
 */
import { buildSchema, parse } from 'graphql';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisBucketStore } from '../../src/bucket/redis-store.js';
import { chargeOperation, type ChargedOperation } from '../../src/core/charge-operation.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { testRedis, whenReady } from '../plugin/budget-server.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

const DEBTORS = 5000;
const schema = buildSchema(`${costDirectivesTypeDefs} type Query { items: [Item] } type Item { id: Int }`);
const document = parse('{ items { id } }'); // priced 12 (defaultListSize 10)
const long = { data: { items: Array.from({ length: 60 }, (_, id) => ({ id })) } }; // 62: owes 50 more
const policy = { capacity: 1000, refillPerSecond: 0 };

let redis: RedisServer;
let client: Redis;
let store: RedisBucketStore;
beforeAll(async () => {
  redis = await startRedisServer();
  client = testRedis(redis.port);
  await whenReady(client);
  store = new RedisBucketStore(client);
}, 60_000);
afterAll(async () => {
  redis?.resume();
  client?.disconnect();
  await redis?.stop();
});

it(`takes the debts of ${DEBTORS} callers soon after Redis returns, opening no breaker`, async () => {
  const warnings: string[] = [];
  const logger = {
    debug: () => {},
    info: () => {},
    warn: (message: string) => void warnings.push(message),
    error: () => {},
  };
  const base = { schema, document, policy, store, logger, onStoreError: 'deny' as const };
  const charged: ChargedOperation[] = [];
  for (let start = 0; start < DEBTORS; start += 100) {
    const batch = Array.from({ length: 100 }, (_, index) =>
      chargeOperation({ ...base, key: `debtor-${start + index}` }),
    );
    charged.push(...(await Promise.all(batch)));
  }
  redis.pause();
  await Promise.all(charged.map((operation) => operation.settle(long)));
  await new Promise((resolve) => setTimeout(resolve, 300));
  redis.resume();
  const resumed = warnings.length;

  const paid = async () => {
    let count = 0;
    for (let index = 0; index < DEBTORS; index += 25) {
      const missing = policy.capacity - (await store.peek(`debtor-${index}`, policy, { timeoutMs: 1000 })).remaining;
      if (missing === 62) count += 1;
    }
    return count;
  };
  const sampled = DEBTORS / 25;
  const deadline = performance.now() + 12_000;
  let count = await paid();
  while (count < sampled && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    count = await paid();
  }
  expect(count).toBe(sampled);
  // No breaker opened once Redis was back (each opening logs a warning).
  expect(warnings.slice(resumed).filter((message) => /not calling it/.test(message))).toEqual([]);
  // An innocent caller is served by Redis meanwhile.
  await expect(chargeOperation({ ...base, key: 'innocent' })).resolves.toMatchObject({ charged: 12 });
}, 60_000);
