import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCostAnalyzer } from '../../src/cost/analyzer.js';
import { costSchema } from './support.js';

const shop = costSchema(`
  scalar Name @cost(weight: "2")
  type Query {
    users(max: Int): [User] @listSize(slicingArguments: ["max"])
    book: Book
    media: [Media] @listSize(assumedSize: 3)
    conn(first: Int): Conn @listSize(slicingArguments: ["first"], sizedFields: ["edges"])
  }
  type User {
    age: Int @cost(weight: "2")
    friends(first: Int): [User] @listSize(slicingArguments: ["first"])
    pet: Pet
  }
  type Pet @cost(weight: "-3") { name: Name }
  type Book { title: String }
  type Video @cost(weight: "4") { length: Int @cost(weight: "1") }
  type Audio { codec: String @cost(weight: "30") }
  union Media = Video | Audio
  type Conn { edges: [Edge], total: Int }
  type Edge { node: Book }
`);
const { actual, estimate } = shop;

describe('actual cost of a response', () => {
  it('uses real list lengths and pays a resolved field even when its value is null', () => {
    const query = '{ users(max: 5) { age } }';
    expect(estimate(query)).toEqual({ typeCost: 6, fieldCost: 11 });
    expect(actual(query, { users: [{ age: 30 }, { age: null }] })).toEqual({ typeCost: 3, fieldCost: 1 + 2 * 2 });
    expect(actual(query, { users: [] })).toEqual({ typeCost: 1, fieldCost: 1 });
    expect(actual(query, { users: null })).toEqual({ typeCost: 1, fieldCost: 1 });
  });

  it('counts only non-null objects, and nothing for absent keys', () => {
    expect(actual('{ book { title } }', { book: null })).toEqual({ typeCost: 1, fieldCost: 1 });
    expect(actual('{ book { title } }', { book: { title: 'x' } })).toEqual({ typeCost: 2, fieldCost: 1 });
    expect(actual('{ book { title } users(max: 2) { age } }', { book: { title: 'x' } })).toEqual({
      typeCost: 2,
      fieldCost: 1,
    });
  });

  it('charges the estimate for null data (an error nulled the root), nothing for absent data', () => {
    expect(actual('{ book { title } }', null)).toEqual(estimate('{ book { title } }'));
    expect(actual('{ book { title } }', undefined)).toEqual({ typeCost: 0, fieldCost: 0 });
  });

  it('reads aliases and merged fields by response key', () => {
    const query =
      '{ a: users(max: 2) { age } b: users(max: 2) { age } a: users(max: 2) { friends(first: 1) { age } } }';
    const data = {
      a: [{ age: 1, friends: [{ age: 2 }] }],
      b: [{ age: 3 }, { age: 4 }],
    };
    expect(actual(query, data)).toEqual({
      typeCost: 1 + (1 + 1) + 2,
      fieldCost: 1 + (2 + 1 + 2) + (1 + 2 + 2),
    });
  });

  it('prices an abstract object as its __typename says, under any alias', () => {
    const query = '{ media { kind: __typename ... on Video { length } ... on Audio { codec } } }';
    expect(actual(query, { media: [{ kind: 'Audio', codec: 'aac' }] })).toEqual({ typeCost: 2, fieldCost: 31 });
    expect(actual(query, { media: [{ kind: 'Video', length: 3 }] })).toEqual({ typeCost: 5, fieldCost: 2 });
  });

  it('without __typename, prices the possible types whose selected keys match the object', () => {
    const query = '{ media { ... on Video { length } ... on Audio { codec } } }';
    expect(actual(query, { media: [{ codec: 'aac' }, { length: 1 }] })).toEqual({
      typeCost: 1 + 1 + 4,
      fieldCost: 1 + 30 + 1,
    });
    // Nothing matches: the costliest possible type (Video's weight); no selected key is present.
    expect(actual(query, { media: [{ other: 1 }] })).toEqual({ typeCost: 1 + 4, fieldCost: 1 });
  });

  it('uses the real length of sized connection lists', () => {
    const query = '{ conn(first: 10) { total edges { node { title } } } }';
    expect(estimate(query)).toEqual({ typeCost: 1 + 1 + 10 * 2, fieldCost: 1 + 1 + 10 });
    expect(actual(query, { conn: { total: 2, edges: [{ node: { title: 'a' } }, { node: null }] } })).toEqual({
      typeCost: 1 + 1 + 2 + 1,
      fieldCost: 1 + 1 + 2,
    });
  });

  it('applies negative type weights and clamps per field as the estimate does', () => {
    const query = '{ users(max: 2) { pet { name } } }';
    const full = { users: [{ pet: { name: 'a' } }, { pet: { name: 'b' } }] };
    expect(actual(query, full)).toEqual(estimate(query));
    expect(actual(query, { users: [{ pet: { name: null } }, { pet: null }] })).toEqual({
      typeCost: 1 + 2 + 0,
      fieldCost: 1 + 2,
    });
  });

  it('equals the estimate when every list is full and nothing is null', () => {
    const query = '{ users(max: 2) { age friends(first: 2) { age } } book { title } }';
    const user = { age: 1, friends: [{ age: 2 }, { age: 3 }] };
    expect(actual(query, { users: [user, user], book: { title: 't' } })).toEqual(estimate(query));
  });

  it('prices introspection like any field by default, and as free with introspection: free', () => {
    const query = '{ __schema { queryType { name } } }';
    const data = { __schema: { queryType: { name: 'Query' } } };
    expect(actual(query, data)).toEqual({ typeCost: 3, fieldCost: 2 });
    const free = createCostAnalyzer(shop.schema, { introspection: 'free' });
    expect(free.actual({ document: shop.documentOf(query), data })).toEqual({ typeCost: 1, fieldCost: 0 });
  });

  it('never exceeds the estimate when every list respects its estimated size, whatever the errors', () => {
    const query = `query Q($n: Int!, $f: Int!) {
      users(max: $n) { age pet { name } friends(first: $f) { age pet { name } } }
      media { __typename ... on Video { length } ... on Audio { codec } }
      conn(first: $n) { total edges { node { title } } }
    }`;
    const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });
    const pet = maybe(fc.record({ name: maybe(fc.string()) }));
    const friend = maybe(fc.record({ age: maybe(fc.integer()), pet }));
    const media = maybe(
      fc.oneof(
        fc.record({ __typename: fc.constant('Video'), length: maybe(fc.integer()) }),
        fc.record({ __typename: fc.constant('Audio'), codec: maybe(fc.string()) }),
      ),
    );
    // Errors whose paths end at or pass through some of the data's nulls, and errors elsewhere.
    const segment = fc.oneof(
      fc.constantFrom('users', 'age', 'pet', 'name', 'friends', 'media', 'length', 'codec', 'conn', 'edges', 'node'),
      fc.integer({ min: 0, max: 4 }),
    );
    const stray = fc.array(fc.record({ path: fc.array(segment, { minLength: 1, maxLength: 6 }) }), { maxLength: 2 });
    const errorsFor = (data: unknown) =>
      fc
        .tuple(fc.subarray(nullPaths(data, [])), fc.boolean(), stray)
        .map(([paths, through, others]) => [
          ...paths.map((path) => ({ path: through ? [...path, 'x'] : path })),
          ...others,
        ]);
    const scenario = fc
      .record({ n: fc.integer({ min: 0, max: 4 }), f: fc.integer({ min: 0, max: 3 }) })
      .chain(({ n, f }) =>
        fc.record({
          variables: fc.constant({ n, f }),
          data: fc.option(
            fc.record({
              users: maybe(
                fc.array(
                  maybe(
                    fc.record({ age: maybe(fc.integer()), pet, friends: maybe(fc.array(friend, { maxLength: f })) }),
                  ),
                  {
                    maxLength: n,
                  },
                ),
              ),
              media: maybe(fc.array(media, { maxLength: 3 })),
              conn: maybe(
                fc.record({
                  total: maybe(fc.integer()),
                  edges: maybe(
                    fc.array(maybe(fc.record({ node: maybe(fc.record({ title: fc.string() })) })), { maxLength: n }),
                  ),
                }),
              ),
            }),
            { nil: null, freq: 10 },
          ),
        }),
      )
      .chain((drawn) => errorsFor(drawn.data).map((errors) => ({ ...drawn, errors })));
    fc.assert(
      fc.property(scenario, ({ variables, data, errors }) => {
        const upper = estimate(query, variables);
        const spent = actual(query, data, variables, errors);
        expect(spent.typeCost).toBeLessThanOrEqual(upper.typeCost);
        expect(spent.fieldCost).toBeLessThanOrEqual(upper.fieldCost);
        expect(spent.typeCost).toBeGreaterThanOrEqual(0);
        // An error never makes a response cheaper (no list item type here has a negative weight).
        const healthy = actual(query, data, variables);
        expect(spent.typeCost).toBeGreaterThanOrEqual(healthy.typeCost);
        expect(spent.fieldCost).toBeGreaterThanOrEqual(healthy.fieldCost);
      }),
      { numRuns: 300 },
    );
  });
});

/** The response path of every null in a response's data (object members and list items). */
function nullPaths(value: unknown, path: (string | number)[]): (string | number)[][] {
  if (value === null) return path.length === 0 ? [] : [path];
  if (Array.isArray(value)) return value.flatMap((item, index) => nullPaths(item, [...path, index]));
  if (typeof value !== 'object') return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, item]) => nullPaths(item, [...path, key]));
}
