import { describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { queryBudgetPlugin } from '../../src/apollo/query-budget-plugin.js';
import { costOf, serversStoppedAfterEach, startBudgetServer } from './budget-server.js';

// The plugin's `costModel` option reaches the cost engine: the same items schema
// (test/support/items-schema.ts) is charged Apollo Router's numbers under 'apollo'.

describe('the costModel option', () => {
  it('is validated when the plugin is built, naming the option', () => {
    const identify = () => 'x';
    expect(() => queryBudgetPlugin({ identify, costModel: 'router' as never })).toThrow(
      new RangeError("queryBudgetPlugin: `costModel` must be 'ibm' or 'apollo'; got \"router\"."),
    );
    expect(() => queryBudgetPlugin({ identify, costModel: 'apollo', estimators: [() => 1] })).toThrow(
      /`estimators` replace the cost directives, so they cannot be combined with `costModel: 'apollo'`/,
    );
    expect(() => queryBudgetPlugin({ identify, costModel: 'ibm' })).not.toThrow();
  });
});

describe("a server with costModel: 'apollo'", () => {
  const servers = serversStoppedAfterEach();

  it("charges the router's numbers and refunds what was not returned", async () => {
    const policy = { capacity: 100, refillPerSecond: 0 };
    const apollo = await startBudgetServer({ store: new MemoryBucketStore(), policy, costModel: 'apollo' });
    const ibm = await startBudgetServer({ store: new MemoryBucketStore(), policy });
    servers.push(apollo, ibm);

    // items(first: 5): 5 × Item 1 = 5 (the root weighs 0, the items field has no weight of its
    // own). IBM: Query 1 + 5 Items + the items call 1 = 7. Two items returned: 2 under 'apollo'.
    const query = '{ items(first: 5, returned: 2) { id } }';
    expect(costOf(await apollo.post(query, { user: 'ann' }))).toMatchObject({
      requestedQueryCost: 5,
      actualQueryCost: 2,
      throttleStatus: { currentlyAvailable: 98 },
    });
    expect(costOf(await ibm.post(query, { user: 'ann' }))).toMatchObject({
      requestedQueryCost: 7,
      actualQueryCost: 4,
    });
    // expensive: its own @cost 7 in both.
    expect(costOf(await apollo.post('{ expensive }', { user: 'ann' }))).toMatchObject({ requestedQueryCost: 7 });
  });
});
