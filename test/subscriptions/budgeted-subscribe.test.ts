import { GraphQLError, buildSchema, parse, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import type { BucketStore } from '../../src/bucket/types.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { budgetedSubscribe, type BudgetedSubscribeOptions } from '../../src/graphql-ws/graphql-ws-budget.js';

/** `budgetedSubscribe` called as graphql-ws calls its `subscribe` option, with graphql-js ExecutionArgs. */

const schema = buildSchema(`${costDirectivesTypeDefs}
  type Query { hello: String }
  type Item { id: ID! }
  type Batch { items: [Item!]! }
  type Subscription {
    "Each event: a batch of \`first\` items priced, \`returned\` delivered."
    batches(first: Int!, returned: Int!, events: Int!): Batch! @listSize(slicingArguments: ["first"], sizedFields: ["items"])
    failing: Batch!
  }
`);

let produced = 0;
const rootValue = {
  async *batches({ returned, events }: { returned: number; events: number }) {
    for (let n = 0; n < events; n++) {
      produced += 1;
      yield { batches: { items: Array.from({ length: returned }, (_, id) => ({ id: String(id) })) } };
    }
  },
  failing: () => {
    throw new GraphQLError('no source today');
  },
};

function args(query: string, variableValues: Record<string, unknown> = {}): ExecutionArgs {
  return { schema, document: parse(query), rootValue, variableValues, contextValue: { key: 'ann' } };
}

async function events(result: unknown): Promise<ExecutionResult[]> {
  const collected: ExecutionResult[] = [];
  if (!(typeof result === 'object' && result !== null && Symbol.asyncIterator in result)) {
    return [result as ExecutionResult];
  }
  for await (const event of result as AsyncIterable<ExecutionResult>) collected.push(event);
  return collected;
}

const identify = ({ contextValue }: ExecutionArgs) => (contextValue as { key: string }).key;
const policy = { capacity: 100, refillPerSecond: 0 };

describe('budgetedSubscribe', () => {
  it('refunds what an event returned below its price, and takes what it returned beyond', async () => {
    const store = new MemoryBucketStore();
    const subscribe = budgetedSubscribe({ identify, policy, store });
    // Each event: Subscription 1 + Batch 1 + 5 Items, and the fields batches 1 + items 1 = 9; the subscription too.
    const short = await events(
      await subscribe(args('subscription { batches(first: 5, returned: 2, events: 2) { items { id } } }')),
    );
    expect(short).toHaveLength(2);
    // 9 to subscribe, then each event 9 − 3 refunded = 6: 100 − 9 − 12.
    expect((await store.peek('ann', policy)).remaining).toBe(79);
    await events(await subscribe(args('subscription { batches(first: 1, returned: 6, events: 1) { items { id } } }')));
    // 5 to subscribe, then the event: 5 priced, 10 returned: 79 − 5 − 10.
    expect((await store.peek('ann', policy)).remaining).toBe(64);
  });

  it('answers a refusal, an operation it cannot price and one too expensive as the result, running nothing', async () => {
    const store = new MemoryBucketStore();
    const subscribe = budgetedSubscribe({ identify, policy: { capacity: 10, refillPerSecond: 0 }, store });
    const before = produced;
    const [tooBig] = await events(
      await subscribe(args('subscription { batches(first: 50, returned: 1, events: 1) { items { id } } }')),
    );
    expect(tooBig?.errors?.[0]?.extensions).toMatchObject({ code: 'COST_ESTIMATED_TOO_EXPENSIVE', estimatedCost: 54 });
    const [negative] = await events(
      await subscribe(args('subscription { batches(first: -1, returned: 1, events: 1) { items { id } } }')),
    );
    expect(negative?.errors?.[0]?.extensions?.code).toBe('COST_LIST_SIZE_OUT_OF_RANGE');
    const [badInput] = await events(
      await subscribe(
        args('subscription ($n: Int!) { batches(first: $n, returned: 1, events: 1) { items { id } } }', { n: 'x' }),
      ),
    );
    expect(badInput?.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(produced).toBe(before);
    expect((await store.peek('ann', policy)).remaining).toBe(100);
  });

  it('keeps the charge when the source does not start: its subscribe resolver ran', async () => {
    const store = new MemoryBucketStore();
    const subscribe = budgetedSubscribe({ identify, policy, store });
    const [result] = await events(await subscribe(args('subscription { failing { items { id } } }')));
    expect(result?.errors?.[0]?.message).toBe('no source today');
    // Subscription 1 + Batch 1 + 10 Items (defaultListSize), the fields failing 1 + items 1.
    expect((await store.peek('ann', policy)).remaining).toBe(100 - 14);
  });

  it('reads any async iterable source, such as a ReadableStream', async () => {
    const store = new MemoryBucketStore();
    const subscribe = budgetedSubscribe({ identify, policy, store });
    const streamed = {
      batches: () =>
        new ReadableStream({
          start(controller) {
            controller.enqueue({ batches: { items: [{ id: '1' }] } });
            controller.close();
          },
        }),
    };
    const result = await subscribe({
      ...args('subscription { batches(first: 1, returned: 1, events: 1) { items { id } } }'),
      rootValue: streamed,
    });
    const [event] = await events(result);
    expect(event?.data).toEqual({ batches: { items: [{ id: '1' }] } });
    // Subscription 1 + Batch 1 + 1 Item, the fields batches 1 + items 1.
    expect(event?.extensions?.cost).toMatchObject({ requestedQueryCost: 5, actualQueryCost: 5 });
  });

  it('passes a GraphQLError from identify to the client, and hides other faults', async () => {
    const errors: string[] = [];
    const logger = { warn: () => {}, error: (message: string) => void errors.push(message) };
    const refusing = budgetedSubscribe({
      identify: () => {
        throw new GraphQLError('Sign in first.', { extensions: { code: 'UNAUTHENTICATED' } });
      },
      logger,
    });
    const [unauthenticated] = await events(await refusing(args('subscription { failing { items { id } } }')));
    expect(unauthenticated?.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const broken = budgetedSubscribe({ identify: () => '', logger });
    const [fault] = await events(await broken(args('subscription { failing { items { id } } }')));
    expect(fault?.errors?.[0]?.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
    expect(errors.join()).toMatch(/identify/);
  });

  it("follows onStoreError: 'deny' refuses while the store is down", async () => {
    const down: BucketStore = {
      consume: () => Promise.reject(new Error('connection refused')),
      refund: () => Promise.reject(new Error('connection refused')),
      peek: () => Promise.reject(new Error('connection refused')),
    };
    const subscribe = budgetedSubscribe({ identify, policy, store: down, onStoreError: 'deny' });
    const [refused] = await events(
      await subscribe(args('subscription { batches(first: 1, returned: 1, events: 1) { items { id } } }')),
    );
    expect(refused?.errors?.[0]?.extensions?.code).toBe('BUDGET_UNAVAILABLE');
  });

  it.each([
    [{}, TypeError, /`identify`/],
    [{ identify, policy: { capacity: 0, refillPerSecond: 1 } }, RangeError, /`policy`\.capacity/],
    [{ identify, maxCost: -1 }, RangeError, /`maxCost`/],
    [{ identify, store: {} }, TypeError, /`store`/],
    // Checked as strictly as the plugin's options (the same code checks them).
    [{ identify, onStoreError: 'ignore' }, RangeError, /`onStoreError`/],
    [{ identify, tuning: { storeTimeoutMs: 0 } }, RangeError, /`tuning\.storeTimeoutMs`/],
    [{ identify, tuning: { storeTimeoutMs: 2 ** 31 } }, RangeError, /`tuning\.storeTimeoutMs`/],
    [
      { identify, tuning: { circuitBreaker: { failureThreshold: 0 } } },
      RangeError,
      /`tuning\.circuitBreaker\.failureThreshold`/,
    ],
    [{ identify, tuning: { circuitBreaker: { coolDownMs: 5 } } }, TypeError, /cooldownMs/],
    [{ identify, cost: 3 }, TypeError, /`cost`/],
    [{ identify, costModel: 'router' }, RangeError, /`costModel`/],
    [{ identify, maxListSize: -1 }, RangeError, /`maxListSize`/],
    [{ identify, analyzer: { maxListSize: 5 } }, TypeError, /unknown option `analyzer`/],
    [{ identify, logger: {} }, TypeError, /`logger`/],
    [{ identify, corsExposeHeaders: [] }, TypeError, /HTTP responses only/],
    [{ identify, indentify: identify }, TypeError, /indentify/],
  ])('throws at construction for %o', (options, type, message) => {
    expect(() => budgetedSubscribe(options as unknown as BudgetedSubscribeOptions)).toThrow(type);
    expect(() => budgetedSubscribe(options as unknown as BudgetedSubscribeOptions)).toThrow(message);
  });
});
