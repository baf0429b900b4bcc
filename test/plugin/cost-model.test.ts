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
      new RangeError("queryBudgetPlugin: `costModel` must be 'ibm', 'apollo' or 'github'; got \"router\"."),
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

describe("a server with costModel: 'github'", () => {
  const servers = serversStoppedAfterEach();

  it("charges GitHub's points and refuses GitHub's node limit with its code", async () => {
    const policy = { capacity: 100, refillPerSecond: 0 };
    const github = await startBudgetServer({ store: new MemoryBucketStore(), policy, costModel: 'github' });
    servers.push(github);
    // items(first: 5) is one connection: 1 request, which is 1 point (the least an operation costs).
    expect(costOf(await github.post('{ items(first: 5, returned: 2) { id } }', { user: 'ann' }))).toMatchObject({
      requestedQueryCost: 1,
      actualQueryCost: 1,
      throttleStatus: { currentlyAvailable: 99 },
    });
    // 150 connections: 150 requests, 2 points.
    const many = Array.from({ length: 150 }, (_, index) => `i${index}: items(first: 1) { id }`).join(' ');
    expect(costOf(await github.post(`{ ${many} }`, { user: 'ann' }))).toMatchObject({ requestedQueryCost: 2 });
    // 51 × 10,000 nodes: over GitHub's 500,000.
    const nodes = Array.from({ length: 51 }, (_, index) => `i${index}: items(first: 10000) { id }`).join(' ');
    const refused = await github.post(`{ ${nodes} }`, { user: 'ann' });
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.[0]).toMatchObject({
      message: 'This query requests up to 510,000 possible nodes which exceeds the maximum limit of 500,000.',
      extensions: { code: 'MAX_NODE_LIMIT_EXCEEDED' },
    });
  });
});
