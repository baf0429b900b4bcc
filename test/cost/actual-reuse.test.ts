import fc from 'fast-check';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createCostAnalyzer } from '../../src/cost/analyzer.js';
import { costSchema } from './support.js';

const { schema, analyzer } = costSchema(`
  type Query {
    users(max: Int): [User] @listSize(slicingArguments: ["max"])
    media: [Media] @listSize(assumedSize: 3)
  }
  type User {
    age: Int @cost(weight: "2")
    # Without a value for first, friends are priced at defaultListSize: null, 0 and absent differ.
    friends(first: Int): [User] @listSize(slicingArguments: ["first"], requireOneSlicingArgument: false)
  }
  type Video @cost(weight: "4") { length: Int @cost(weight: "1") }
  type Audio { codec: String @cost(weight: "30") }
  union Media = Video | Audio
`);

const document = parse(`
  query Q($m: Int = 3, $f: Int, $withAge: Boolean!) {
    users(max: $m) { age @include(if: $withAge) friends(first: $f) { age } }
    media { ... on Video { length } ... on Audio { codec } }
  }
`);

describe('actual cost of repeated requests', () => {
  it('prices every response as a fresh analyzer does, whatever earlier responses (and their errors) were', () => {
    const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null });
    const friend = fc.record({ age: maybe(fc.integer()) });
    const user = fc.record({ age: maybe(fc.integer()), friends: maybe(fc.array(friend, { maxLength: 3 })) });
    const media = fc.oneof(fc.record({ length: maybe(fc.integer()) }), fc.record({ codec: maybe(fc.string()) }));
    const scenario = fc.record({
      // A few distinct variable sets, so most requests meet one seen before.
      variables: fc.record({
        m: fc.integer({ min: 0, max: 2 }),
        f: fc.integer({ min: 0, max: 1 }),
        withAge: fc.boolean(),
      }),
      data: fc.option(
        fc.record({
          users: maybe(fc.array(maybe(user), { maxLength: 3 })),
          media: maybe(fc.array(media, { maxLength: 3 })),
        }),
        { nil: null, freq: 10 },
      ),
      // Paths that null a list, an item, a nested list or nothing, depending on the data.
      errors: fc.subarray([
        { path: ['users'] },
        { path: ['users', 0, 'age'] },
        { path: ['users', 1, 'friends'] },
        { path: ['users', 0, 'friends', 1] },
        { path: ['media', 0] },
      ]),
    });
    fc.assert(
      fc.property(scenario, ({ variables, data, errors }) => {
        const request = { document, operationName: 'Q', variables, data, errors };
        expect(analyzer.actual(request)).toEqual(createCostAnalyzer(schema).actual(request));
      }),
      { numRuns: 300 },
    );
  });

  it('does not take variables that serialize alike for the same ones', () => {
    const data = { users: [{ age: 1, friends: [{ age: 2 }] }], media: null };
    const outcome = (run: () => unknown): unknown => {
      try {
        return run();
      } catch (error) {
        return String(error);
      }
    };
    const alike: [string | null, Record<string, unknown>][] = [
      ['Q', { withAge: true }],
      ['Q', { withAge: true, m: undefined }],
      ['Q', { withAge: true, m: null }],
      ['Q', { withAge: true, f: 0 }],
      ['Q', { withAge: true, f: -0 }],
      ['Q', { withAge: true, f: null }],
      ['Q', { withAge: true, f: Number.NaN }], // JSON writes null; graphql-js rejects it
      [null, { withAge: true }],
      ['', { withAge: true }],
    ];
    for (const [operationName, variables] of alike) {
      const request = { document, operationName, variables, data };
      expect(outcome(() => analyzer.actual(request))).toEqual(
        outcome(() => createCostAnalyzer(schema).actual(request)),
      );
    }
    expect(outcome(() => analyzer.actual({ document, operationName: '', variables: { withAge: true }, data }))).toMatch(
      /exactly one operation/,
    );
  });
});
