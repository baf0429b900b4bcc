/**
 * Attack: make the refund price a costly union member as a cheap one, by naming it.
 *
 *   { search(first: 10) { ... on Product { t: __typename } ... on Vendor { t: name audit } } }
 *
 * `Vendor.audit` weighs 50. The attacker's vendors are named "Product", so every vendor in the
 * response carries `t: "Product"`, the value a Product's `t` (its `__typename`) would have. A
 * refund that trusts any key some member selects as `__typename` priced each vendor as a Product:
 * all 10 audits ran, and 500 of the 512 tokens came back. The same with `__typename: name`.
 *
 * Guarantee: the refund never prices an object below its real runtime type: a response key names
 * the type only if it selects `__typename` for every possible type; otherwise the object is priced
 * as the estimate prices it, the costliest of the members its keys fit.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { costOf, startBudgetServer, type BudgetServer } from '../plugin/budget-server.js';

const typeDefs = `${costDirectivesTypeDefs}
type Product { id: ID! name: String! }
type Vendor { name: String! audit: String @cost(weight: "50") }
union Result = Product | Vendor
type Query { search(first: Int!): [Result!]! @listSize(slicingArguments: ["first"]) }
`;

let audits = 0;
const resolvers = {
  Result: { __resolveType: (value: { kind: string }) => value.kind },
  Vendor: {
    audit: () => {
      audits += 1;
      return 'audited';
    },
  },
  Query: {
    search: (_: unknown, { first }: { first: number }) =>
      Array.from({ length: first }, () => ({ kind: 'Vendor', name: 'Product' })),
  },
};

let server: BudgetServer;
beforeAll(async () => {
  server = await startBudgetServer(
    { store: new MemoryBucketStore(), policy: { capacity: 1000, refillPerSecond: 0 } },
    { schema: { typeDefs, resolvers } },
  );
});
afterAll(() => server.stop());

it.each([
  '{ search(first: 10) { ... on Product { t: __typename } ... on Vendor { t: name audit } } }',
  '{ search(first: 10) { ... on Product { __typename } ... on Vendor { __typename: name audit } } }',
])('charges the vendors as vendors: %s', async (query) => {
  const before = audits;
  const reply = await server.post(query, { user: `mallory-${before}` });
  expect(reply.status).toBe(200);
  expect(audits - before).toBe(10);
  // Query 1 + search 1 + 10 × (Vendor 1 + audit 50).
  expect(costOf(reply)).toMatchObject({ requestedQueryCost: 512, actualQueryCost: 512 });
});

it('still prices each member by its real __typename when every member selects it', async () => {
  const reply = await server.post('{ search(first: 10) { __typename ... on Vendor { audit } } }', {
    user: 'honest',
  });
  expect(costOf(reply)).toMatchObject({ requestedQueryCost: 512, actualQueryCost: 512 });
  const products = await server.post('{ search(first: 0) { __typename ... on Vendor { audit } } }', {
    user: 'honest',
  });
  expect(costOf(products)).toMatchObject({ requestedQueryCost: 2, actualQueryCost: 2 });
});
