import type { ApolloServerPlugin } from '@apollo/server';
import { envelop, type Plugin as EnvelopPlugin, useEngine, useSchema } from '@envelop/core';
import { execute, type GraphQLError, parse, specifiedRules, subscribe, validate } from 'graphql';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSchema, createYoga, type Plugin as YogaPlugin } from 'graphql-yoga';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { queryBudgetPlugin } from '../../src/apollo/query-budget-plugin.js';
import { useQueryBudget, type UseQueryBudgetOptions } from '../../src/envelop/use-query-budget.js';

/**
 * What the shared suites (run on both servers) do not cover: GraphQL Yoga's own parts (its CORS,
 * its server-sent-event subscriptions, its logger), an Envelop server without Yoga, and that the
 * plugins' structural types are the servers' own.
 */

interface Context {
  caller: string;
}

const typeDefs = `${costDirectivesTypeDefs}
  type Item { id: ID! }
  type Query { items(first: Int!): [Item!]! @listSize(slicingArguments: ["first"]) }
  type Subscription { ticks(first: Int!): [Item!]! @listSize(slicingArguments: ["first"]) }
`;
let produced = 0;
const resolvers = {
  Query: { items: (_: unknown, { first }: { first: number }) => Array.from({ length: first }, (_, id) => ({ id })) },
  Subscription: {
    ticks: {
      async *subscribe(_: unknown, { first }: { first: number }) {
        for (let tick = 0; tick < 5; tick++) {
          produced += 1;
          yield { ticks: Array.from({ length: first }, (_, id) => ({ id })) };
        }
      },
    },
  },
};

const policy = { capacity: 30, refillPerSecond: 0 };
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

async function startYoga(
  budget: Partial<UseQueryBudgetOptions<Context>>,
  cors?: { origin: string; exposedHeaders: string[] },
  logging?: { debug(m: string): void; info(m: string): void; warn(m: string): void; error(m: string): void },
): Promise<string> {
  const yoga = createYoga<Record<string, unknown>, Context>({
    schema: createSchema({ typeDefs, resolvers }),
    ...(cors === undefined ? {} : { cors }),
    ...(logging === undefined ? {} : { logging }),
    context: ({ request }) => ({ caller: request.headers.get('x-caller') ?? 'anonymous' }),
    plugins: [useQueryBudget<Context>({ identify: ({ contextValue }) => contextValue.caller, policy, ...budget })],
  });
  const http = createServer(yoga);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  stops.push(
    () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/graphql`;
}

describe('on GraphQL Yoga', () => {
  it("merges the budget's headers into what Yoga's CORS exposes", async () => {
    const url = await startYoga(
      { store: new MemoryBucketStore() },
      { origin: 'https://app.example', exposedHeaders: ['X-Request-Id'] },
    );
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://app.example', 'x-caller': 'ann' },
      body: JSON.stringify({ query: '{ items(first: 3) { id } }' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('ratelimit')).toBe('"budget";r=25');
    const exposed = (response.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['x-request-id', 'ratelimit', 'ratelimit-policy']));
  });

  it('charges a subscription over server-sent events and each event, and ends it when the budget is spent', async () => {
    const store = new MemoryBucketStore();
    const url = await startYoga({ store });
    produced = 0;
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-caller': 'sam' },
      body: JSON.stringify({ query: 'subscription { ticks(first: 3) { id } }' }),
    });
    const text = await response.text();
    const events = [...text.matchAll(/^data: (.+)$/gm)].map((match) => JSON.parse(match[1] as string));
    // 30 tokens: 5 to subscribe (Subscription 1, ticks 1, 3 Items), then 5 per event: 5 events paid.
    expect(events.slice(0, 5).map((event) => event.extensions?.cost?.requestedQueryCost)).toEqual([5, 5, 5, 5, 5]);
    expect(events[4].extensions.cost.throttleStatus.currentlyAvailable).toBe(0);
    expect(events).toHaveLength(5);
    expect((await store.peek('sam', policy)).remaining).toBe(0);
    // A second subscription is refused outright: nothing produced.
    const before = produced;
    const refused = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-caller': 'sam' },
      body: JSON.stringify({ query: 'subscription { ticks(first: 3) { id } }' }),
    });
    expect(await refused.text()).toContain('RATE_LIMITED');
    expect(produced).toBe(before);
  });

  it("logs through Yoga's logger", async () => {
    const warnings: string[] = [];
    const logging = { debug: () => {}, info: () => {}, warn: (m: string) => void warnings.push(m), error: () => {} };
    const url = await startYoga({}, undefined, logging);
    await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ items(first: 1) { id } }' }),
    });
    expect(warnings.filter((warning) => warning.includes('not shared'))).toHaveLength(1);
  });
});

describe('on an Envelop server without Yoga', () => {
  it('answers in the result: extensions.cost, and the refusal as the result, with no HTTP parts', async () => {
    const store = new MemoryBucketStore();
    const getEnveloped = envelop({
      plugins: [
        useEngine({ parse, validate, specifiedRules, execute, subscribe }),
        useSchema(createSchema({ typeDefs, resolvers })),
        useQueryBudget<Context>({ store, policy, identify: ({ contextValue }) => contextValue.caller }),
      ],
    });
    const run = async (query: string) => {
      const { parse: parseFn, execute: executeFn, schema, contextFactory } = getEnveloped({ caller: 'eve' });
      const document = parseFn(query);
      return executeFn({ schema, document, contextValue: await contextFactory() });
    };
    const first = (await run('{ items(first: 20) { id } }')) as { extensions?: { cost?: unknown } };
    expect(first.extensions?.cost).toMatchObject({ requestedQueryCost: 22, actualQueryCost: 22 });
    const refused = (await run('{ items(first: 20) { id } }')) as { errors?: GraphQLError[] };
    expect(refused.errors?.[0]?.extensions).toEqual({ code: 'RATE_LIMITED' });
    expect(refused.errors?.[0]?.extensions).not.toHaveProperty('http');
  });
});

describe('the plugins are the servers’ own types', () => {
  it('type-checks as an Apollo Server plugin, a Yoga plugin and an Envelop plugin', () => {
    // Compile-time checks (npm run typecheck): the structural types are assignable to the servers'.
    const apollo: ApolloServerPlugin<Context> = queryBudgetPlugin<Context>({
      identify: ({ contextValue }) => contextValue.caller,
    });
    const yoga: YogaPlugin<Context> = useQueryBudget<Context>({
      identify: ({ contextValue }) => contextValue.caller,
    });
    const plain: EnvelopPlugin<Context> = useQueryBudget<Context>({
      identify: ({ contextValue }) => contextValue.caller,
    });
    expect([apollo, yoga, plain].every((plugin) => typeof plugin === 'object')).toBe(true);
  });
});
