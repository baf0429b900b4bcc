/**
 * Every public function that takes options refuses one it does not know with a `TypeError` naming
 * it (the server side with the nearest known name; the client entry, which imports nothing of the
 * server's, names the unknown one): in JavaScript a misspelled option would otherwise be ignored
 * without a word, and its default used in its place.
 */
import { buildSchema, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { budgetExchange, budgetFetch, budgetLinkHandler } from '../../src/client/index.js';
import {
  budgetedSubscribe,
  chargeOperation,
  clientAddressKey,
  createCostAnalyzer,
  estimateCost,
  graphqlWsBudget,
  lintCostSchema,
  MemoryBucketStore,
  queryBudgetPlugin,
  RedisBucketStore,
  useQueryBudget,
} from '../../src/index.js';

const schema = buildSchema('type Query { a: Int }');
const document = parse('{ a }');
const identify = () => 'caller';
const store = new MemoryBucketStore();
const policy = { capacity: 10, refillPerSecond: 1 };
/** A stand-in ioredis client, never connected: enough for the store to read its options. */
const ioredis = async () => {
  const { Redis } = await import('ioredis');
  return new Redis({ lazyConnect: true });
};

const cases: [string, () => unknown, RegExp][] = [
  ['queryBudgetPlugin', () => queryBudgetPlugin({ identify, polcy: policy } as never), /`polcy`.*`policy`/],
  [
    'useQueryBudget',
    () => useQueryBudget({ identify, onStoreErorr: 'deny' } as never),
    /`onStoreErorr`.*`onStoreError`/,
  ],
  ['graphqlWsBudget', () => graphqlWsBudget({ identify, maxCosts: 5 } as never), /`maxCosts`.*`maxCost`/],
  ['budgetedSubscribe', () => budgetedSubscribe({ identify, tunning: {} } as never), /`tunning`.*`tuning`/],
  ['estimateCost', () => estimateCost({ schema, document, maxNode: 5 } as never), /`maxNode`.*`maxNodes`/],
  ['createCostAnalyzer', () => createCostAnalyzer(schema, { defaultListSise: 5 } as never), /`defaultListSise`/],
  ['lintCostSchema', () => lintCostSchema(schema, { maxListSise: 5 } as never), /`maxListSise`.*`maxListSize`/],
  ['MemoryBucketStore', () => new MemoryBucketStore({ maxKey: 5 } as never), /`maxKey`.*`maxKeys`/],
  ['clientAddressKey', () => clientAddressKey({ trustedProxy: [] } as never), /`trustedProxy`.*`trustedProxies`/],
  ['budgetFetch', () => budgetFetch({ maxRetry: 2 } as never), /"maxRetry" is unknown/],
  ['budgetExchange', () => budgetExchange({ maxWait: 5 } as never), /"maxWait" is unknown/],
  ['budgetLinkHandler', () => budgetLinkHandler({ retryMutation: true } as never), /"retryMutation" is unknown/],
];

describe('a misspelled option', () => {
  it.each(cases)('to %s throws a TypeError naming it', (_, call, message) => {
    expect(call).toThrow(TypeError);
    expect(call).toThrow(message);
  });

  it('to RedisBucketStore and chargeOperation throws a TypeError naming it', async () => {
    const client = await ioredis();
    try {
      expect(() => new RedisBucketStore(client, { prefx: 'x:' } as never)).toThrow(/`prefx`.*`prefix`/);
    } finally {
      client.disconnect();
    }
    await expect(chargeOperation({ schema, document, key: 'k', policy, store, timeout: 5 } as never)).rejects.toThrow(
      /`timeout`.*`timeoutMs`/,
    );
  });
});
