/**
 * Attack: ask for the per-field cost breakdown.
 *
 *   POST { items(first: 4) { id } }   with   graphql-budget-debug: fields
 *
 * The breakdown lists every field's weight, so it maps the schema's price list for anyone who asks;
 * it is also computed afresh for every such request (the estimate cache cannot serve it) and, for a
 * large operation, runs to thousands of entries in the response.
 *
 * Guarantee: the breakdown is opt-in (`fieldBreakdown`, off by default, for callers the server
 * trusts) and never longer than 1,000 entries.
 */
import { expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costOf, itemsQuery, startBudgetServer, serversStoppedAfterEach } from '../plugin/budget-server.js';

const DEBUG = { 'graphql-budget-debug': 'fields' };
const servers = serversStoppedAfterEach();

it('gives no breakdown to a client that merely asks', async () => {
  const server = await startBudgetServer({ store: new MemoryBucketStore() });
  servers.push(server);
  const reply = await server.post(itemsQuery(4), { user: 'mallory', headers: DEBUG });
  expect(reply.status).toBe(200);
  expect(costOf(reply).fields).toBeUndefined();
  expect(JSON.stringify(reply.body)).not.toMatch(/"path"/);
});

it("keeps a trusted caller's breakdown to 1,000 entries", async () => {
  const server = await startBudgetServer({
    store: new MemoryBucketStore(),
    policy: { capacity: 1_000_000, refillPerSecond: 0 },
    maxNodes: 100_000,
    fieldBreakdown: ({ contextValue }) => contextValue.user === 'staff',
  });
  servers.push(server);
  const aliases = Array.from({ length: 1500 }, (_, i) => `a${i}: items(first: 1) { id }`).join(' ');
  const reply = await server.post(`{ ${aliases} }`, { user: 'staff', headers: DEBUG });
  expect(reply.status).toBe(200);
  expect(costOf(reply).fields).toHaveLength(1000);
  expect((costOf(reply) as { fieldsTruncated?: boolean }).fieldsTruncated).toBe(true);
});
