/**
 * Attack: on a GraphQL Yoga server with `@defer` and `@stream` (`useDeferStream`), ask for the
 * work incrementally.
 *
 *   { things(first: 2, n: 300) @stream(initialCount: 1) { id heavy } }     (priced 14, returns 300)
 *   { many(n: 200) { id ... @defer { heavy } } }                            (no @listSize)
 *   { many(n: 300) @stream(initialCount: 1) { id heavy boom(at: 299) } }   (an error hides the list)
 *
 * An incrementally delivered result was charged its estimate and never settled: a list 150 times
 * longer than priced cost nothing more (14 tokens for work worth 1,802), and so did the streamed
 * or deferred work of lists without `@listSize`, whose estimate is `defaultListSize`.
 *
 * Guarantee: tokens taken are at least the price of the work the response shows, incremental
 * delivery included (its parts are merged as they are sent and priced when it ends), and what it
 * leaves out (a stream an error cuts short) counts at its priced size: it is charged its estimate
 * up front and never refunded below it.
 */
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { createSchema, createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { useQueryBudget } from '../../src/envelop/use-query-budget.js';
import { listen } from '../support/listen.js';

const typeDefs = `${costDirectivesTypeDefs}
  type Thing { id: ID! heavy: Int @cost(weight: "5") boom(at: Int!): String! }
  type Query {
    things(first: Int!, n: Int): [Thing!] @listSize(slicingArguments: ["first"])
    many(n: Int!): [Thing!]
  }
`;
/** What the resolvers did: list calls, Things returned, `heavy` calls. */
const work = { lists: 0, things: 0, heavy: 0 };
const list = (n: number) => {
  work.lists += 1;
  work.things += n;
  return Array.from({ length: n }, (_, index) => ({ id: String(index), index }));
};
const resolvers = {
  Query: {
    // Ignores `first` when `n` is given: a list longer than priced.
    things: (_: unknown, { first, n }: { first: number; n?: number }) => list(n ?? first),
    many: (_: unknown, { n }: { n: number }) => list(n),
  },
  Thing: {
    heavy: () => {
      work.heavy += 1;
      return 1;
    },
    boom: ({ index }: { index: number }, { at }: { at: number }) => {
      if (index === at) throw new Error('boom');
      return 'ok';
    },
  },
};

const store = new MemoryBucketStore();
const policy = { capacity: 1_000_000, refillPerSecond: 0 };
let url: string;
let stop: () => Promise<void>;
beforeAll(async () => {
  const yoga = createYoga<Record<string, unknown>>({
    schema: createSchema({ typeDefs, resolvers }),
    logging: false,
    plugins: [
      useDeferStream(),
      useQueryBudget<{ request: Request }>({
        store,
        policy,
        identify: ({ context }) => context.request.headers.get('x-caller'),
      }),
    ],
  });
  ({ url, stop } = await listen(yoga));
});
afterAll(() => stop());

const taken = async (caller: string) => policy.capacity - (await store.peek(caller, policy)).remaining;
/** The tokens taken from `caller` once the late charges are done (at most a second). */
async function settledTaken(caller: string, atLeast: number): Promise<number> {
  for (let attempt = 0; attempt < 50 && (await taken(caller)) < atLeast; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return taken(caller);
}

/** The last multipart answer's body. */
let lastBody = '';

/** Sends the operation for a multipart answer and reads it to its end; returns the first part's requested cost. */
async function stream(query: string, caller: string): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'multipart/mixed', 'x-caller': caller },
    body: JSON.stringify({ query }),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^multipart\/mixed/);
  const body = await response.text();
  lastBody = body;
  return Number(/"requestedQueryCost":(\d+)/.exec(body)?.[1]);
}

const cases: [string, string, string, number][] = [
  [
    'a streamed list longer than priced',
    'streamer',
    '{ things(first: 2, n: 300) @stream(initialCount: 1) { id heavy } }',
    14,
  ],
  ['deferred work on a list without @listSize', 'deferrer', '{ many(n: 200) { id ... @defer { heavy } } }', 62],
];

it.each(cases)('charges %s the work its response shows', async (_, caller, query, requested) => {
  Object.assign(work, { lists: 0, things: 0, heavy: 0 });
  expect(await stream(query, caller)).toBe(requested);
  // Every Thing the resolvers returned is in the response. Query 1, each list 1, each Thing 1, each heavy 5.
  const shown = 1 + work.lists + work.things + 5 * work.heavy;
  expect(shown).toBeGreaterThan(requested * 10);
  expect(await settledTaken(caller, shown)).toBe(shown);
});

it('charges a stream an error cuts short at least its estimate, and passes its error on', async () => {
  Object.assign(work, { lists: 0, things: 0, heavy: 0 });
  // The 300th item fails a non-null field: the stream ends with `items: null` and the error (a part
  // that once broke the merge, and the client got INTERNAL_SERVER_ERROR instead). GraphQL Yoga's
  // executor sends none of the items before it: the response shows one Thing.
  const query = '{ many(n: 300) @stream(initialCount: 1) { id heavy boom(at: 299) } }';
  expect(await stream(query, 'hider')).toBe(62);
  expect(lastBody).toContain('"message":"boom"');
  expect(lastBody).not.toContain('INTERNAL_SERVER_ERROR');
  expect(lastBody).toContain('"items":null');
  // Its estimate (the operation 1, many 1, 10 Things at 1 and their heavy at 5): more than one Thing shown.
  expect(await settledTaken('hider', 62)).toBe(62);
});

it('charges an incremental result its estimate when its resolvers did less', async () => {
  Object.assign(work, { lists: 0, things: 0, heavy: 0 });
  // Priced for 10 Things, returns 3: nothing is refunded for incremental delivery.
  expect(await stream('{ things(first: 10, n: 3) @stream(initialCount: 1) { id heavy } }', 'short')).toBe(62);
  expect(await settledTaken('short', 62)).toBe(62);
});
