/**
 * Attack: on a GraphQL Yoga server with a schema per request (Envelop's `useSchemaByContext`, one
 * schema object per tenant, built from the same SDL), send an operation while another tenant's
 * cheap one runs on the other schema.
 *
 *   tenant a: { things(first: 50) { id heavy } }     (priced 302: heavy weighs 5)
 *   tenant b: { one { id } }                          (1 ms later, on schema b)
 *
 * The budget kept one cost table, reloaded for each schema it saw: tenant a's response walk ran
 * with schema b's table, which did not know schema a's fields and gave them the default weights.
 * Tenant a's operations were answered `302/52` and charged 1,290 tokens for 20 of them, work worth
 * 6,040.
 *
 * A tenant's schema copied from another (`mapSchema`, or `new GraphQLSchema(schema.toConfig())`),
 * generation after generation, and resolvers assigned to a copy after it served.
 *
 * Guarantee: an operation is priced and settled with the schema it executes against, whatever
 * other schemas the server executes meanwhile; a copy is priced as what it is, each response once.
 */
import { useSchemaByContext } from '@envelop/core';
import { mapSchema } from '@graphql-tools/utils';
import type { GraphQLObjectType, GraphQLSchema } from 'graphql';
import { createSchema, createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { useQueryBudget } from '../../src/envelop/use-query-budget.js';
import { listen } from '../support/listen.js';

const typeDefs = `${costDirectivesTypeDefs}
  type Thing { id: ID! heavy: Int @cost(weight: "5") }
  type Query { things(first: Int!): [Thing!] @listSize(slicingArguments: ["first"]) one: Thing }
`;
let heavy = 0;
const resolvers = {
  Query: {
    things: (_: unknown, { first }: { first: number }) => Array.from({ length: first }, (_, id) => ({ id })),
    one: () => ({ id: 'one' }),
  },
  Thing: {
    heavy: () => {
      heavy += 1;
      return 1;
    },
  },
};
const tenants: Record<string, GraphQLSchema> = {
  a: createSchema({ typeDefs, resolvers }),
  b: createSchema({ typeDefs, resolvers }),
};

const store = new MemoryBucketStore();
const policy = { capacity: 1_000_000, refillPerSecond: 0 };
let url: string;
let stop: () => Promise<void>;
beforeAll(async () => {
  const yoga = createYoga({
    schema: tenants.a,
    logging: false,
    plugins: [
      useSchemaByContext(
        (context) => tenants[(context as { request: Request }).request.headers.get('x-tenant') ?? 'a'] ?? tenants.a,
      ),
      useQueryBudget<{ request: Request }>({
        store,
        policy,
        // An API-key lookup: the decision waits a little, as a real one does.
        identify: async ({ context }) => {
          await new Promise((resolve) => setTimeout(resolve, 3));
          return context.request.headers.get('x-caller');
        },
      }),
    ],
  });
  ({ url, stop } = await listen(yoga));
});
afterAll(() => stop());

async function post(query: string, caller: string, tenant: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-caller': caller, 'x-tenant': tenant },
    body: JSON.stringify({ query }),
  });
  return (await response.json()) as { extensions: { cost: { requestedQueryCost: number; actualQueryCost: number } } };
}
const taken = async (caller: string) => policy.capacity - (await store.peek(caller, policy)).remaining;

const EXPENSIVE = '{ things(first: 50) { id heavy } }';

it("charges each tenant's operation by its own schema's weights while another schema executes", async () => {
  // Query 1, things 1, 50 Things at 1 and their heavy at 5.
  const alone = await post(EXPENSIVE, 'alone', 'a');
  expect(alone.extensions.cost).toMatchObject({ requestedQueryCost: 302, actualQueryCost: 302 });
  heavy = 0;
  const answers: { requestedQueryCost: number; actualQueryCost: number }[] = [];
  for (let round = 0; round < 20; round++) {
    const expensive = post(EXPENSIVE, 'tenant-a', 'a');
    await new Promise((resolve) => setTimeout(resolve, 1));
    const cheap = post('{ one { id } }', 'tenant-b', 'b');
    answers.push((await expensive).extensions.cost);
    await cheap;
  }
  expect(heavy).toBe(20 * 50);
  expect(new Set(answers.map((cost) => `${cost.requestedQueryCost}/${cost.actualQueryCost}`))).toEqual(
    new Set(['302/302']),
  );
  expect(await taken('tenant-a')).toBe(20 * 302);
  // Query 1, one 1, Thing 1.
  expect(await taken('tenant-b')).toBe(20 * 3);
});

it('counts each call once on a schema copied from an instrumented one, however many generations deep', async () => {
  // Schema a has served operations: its resolvers are instrumented. Each copy carries them.
  await post(EXPENSIVE, 'warm', 'a');
  let base: GraphQLSchema = tenants.a as GraphQLSchema;
  for (let generation = 1; generation <= 3; generation++) {
    // New type and field objects, with the resolvers of the schema copied (instrumented ones).
    base = mapSchema(base);
    tenants[`copy${generation}`] = base;
    heavy = 0;
    const caller = `copy-${generation}`;
    const answer = await post(EXPENSIVE, caller, `copy${generation}`);
    expect(heavy).toBe(50);
    expect(answer.extensions.cost).toMatchObject({ requestedQueryCost: 302, actualQueryCost: 302 });
    expect(await taken(caller)).toBe(302);
  }
});

it('charges the work of a resolver assigned to a copied schema after the copy served operations', async () => {
  const copy = mapSchema(tenants.a as GraphQLSchema);
  // Before it serves: a list 8 times longer than priced, so the charge is above the estimate.
  (copy.getType('Query') as GraphQLObjectType).getFields().things!.resolve = () =>
    Array.from({ length: 400 }, (_, id) => ({ id }));
  tenants.later = copy;
  // The operation 1, things 1, 400 Things at 1 and their heavy at 5.
  const price = 2 + 400 * 6;
  expect((await post(EXPENSIVE, 'later-before', 'later')).extensions.cost.actualQueryCost).toBe(price);
  // A hot reload of the copy, in place.
  (copy.getType('Thing') as GraphQLObjectType).getFields().heavy!.resolve = () => {
    heavy += 1;
    return 2;
  };
  heavy = 0;
  const answer = await post(EXPENSIVE, 'later-after', 'later');
  expect(heavy).toBe(400);
  expect(answer.extensions.cost).toMatchObject({ requestedQueryCost: 302, actualQueryCost: price });
  expect(await taken('later-after')).toBe(price);
});
