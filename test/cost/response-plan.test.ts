import fc from 'fast-check';
import { buildSchema, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createPlanningAnalyzer as createCostAnalyzer } from '../../src/cost/analyzer.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';

/**
 * The compiled response walk kept with an estimate (`ResponsePlan`) prices a complete, error-free
 * response exactly as the walk itself (`actual`), and is not built where it would not.
 */
const schema = buildSchema(`${costDirectivesTypeDefs}
  type Query {
    users(max: Int): [User] @listSize(slicingArguments: ["max"])
    grid: [[Cell!]] @listSize(assumedSize: 2)
    tags: [String] @cost(weight: "3") @listSize(assumedSize: 4)
    ratios: [Ratio] @listSize(assumedSize: 4)
    media: [Media] @listSize(assumedSize: 3)
    discount: Discount
  }
  type User {
    age: Int @cost(weight: "2")
    score: Score
    friends(first: Int, weight: Int @cost(weight: "5")): [User]
      @listSize(slicingArguments: ["first"], requireOneSlicingArgument: false)
  }
  scalar Score @cost(weight: "7")
  scalar Ratio @cost(weight: "0.1")
  type Cell @cost(weight: "0.1") { value: Int }
  type Discount @cost(weight: "-3") { percent: Int @cost(weight: "-2") }
  type Video { length: Int }
  type Audio { codec: String }
  union Media = Video | Audio
  type Mutation { addUser: User }
`);

const document = parse(`
  query Q($m: Int = 3, $f: Int, $w: Int, $withAge: Boolean!) {
    users(max: $m) {
      age @include(if: $withAge)
      score
      best: friends(first: 1) { age }
      friends(first: $f, weight: $w) { age score friends(first: 1) { score } }
    }
    grid { value }
    tags
    ratios
    discount { percent }
    __typename
  }
`);

const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null });
const inner = fc.record({ score: maybe(fc.integer()) });
const friend = fc.record({
  age: maybe(fc.integer()),
  score: maybe(fc.integer()),
  friends: maybe(fc.array(inner, { maxLength: 3 })),
});
const user = (withAge: boolean) =>
  fc.record({
    ...(withAge ? { age: maybe(fc.integer()) } : {}),
    score: maybe(fc.integer()),
    best: maybe(fc.array(maybe(fc.record({ age: maybe(fc.integer()) })), { maxLength: 2 })),
    friends: maybe(fc.array(maybe(friend), { maxLength: 4 })),
  });

describe('the compiled response walk', () => {
  it('prices every complete, error-free response as the walk does', () => {
    const analyzer = createCostAnalyzer(schema);
    const scenario = fc
      .record({
        m: fc.integer({ min: 0, max: 4 }),
        f: maybe(fc.integer({ min: 0, max: 3 })),
        w: maybe(fc.integer({ min: -2, max: 3 })),
        withAge: fc.boolean(),
      })
      .chain((variables) =>
        fc.record({
          variables: fc.constant(variables),
          data: fc.record({
            users: maybe(fc.array(maybe(user(variables.withAge)), { maxLength: 5 })),
            grid: maybe(
              fc.array(maybe(fc.array(fc.record({ value: maybe(fc.integer()) }), { maxLength: 12 })), { maxLength: 3 }),
            ),
            tags: maybe(fc.array(maybe(fc.string()), { maxLength: 6 })),
            ratios: maybe(fc.array(maybe(fc.double()), { maxLength: 14 })),
            discount: maybe(fc.record({ percent: maybe(fc.integer()) })),
            __typename: fc.constant('Query'),
          }),
        }),
      );
    fc.assert(
      fc.property(scenario, ({ variables, data }) => {
        const request = { document, operationName: 'Q', variables };
        const plan = analyzer.plan(request, 1000);
        expect(plan).toBeDefined();
        expect(plan?.cost(data)).toEqual(analyzer.actual({ ...request, data, errors: null }));
      }),
      { numRuns: 500 },
    );
  });

  it('is not built for a mutation, a selection under a union, or more fields than allowed', () => {
    const analyzer = createCostAnalyzer(schema);
    const plan = (query: string, maxFields = 1000) => analyzer.plan({ document: parse(query) }, maxFields);
    expect(plan('mutation { addUser { age } }')).toBeUndefined();
    expect(plan('{ media { ... on Video { length } } }')).toBeUndefined();
    expect(plan('{ users(max: 2) { age score } }', 2)).toBeUndefined();
    expect(plan('{ users(max: 2) { age score } }', 3)).toBeDefined();
    // Every field visited counts, those that add nothing too.
    expect(plan('{ __typename users(max: 2) { __typename age } }', 3)).toBeUndefined();
    expect(plan('{ __typename users(max: 2) { __typename age } }', 4)).toBeDefined();
  });

  it('holds no node of the document: its size is counted from its fields', () => {
    const analyzer = createCostAnalyzer(schema);
    const small = analyzer.plan({ document: parse('{ tags }') }, 1000);
    const large = analyzer.plan({ document: parse('{ users(max: 2) { age score friends(first: 1) { age } } }') }, 1000);
    expect(small?.bytes).toBeGreaterThan(0);
    expect(large?.bytes).toBeGreaterThan(small?.bytes ?? Number.POSITIVE_INFINITY);
  });
});
