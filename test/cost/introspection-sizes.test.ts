import { buildSchema, getIntrospectionQuery, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createCostAnalyzer, estimateCost } from '../../src/cost/analyzer.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';

/** The README install example's schema. */
const readme = buildSchema(`${costDirectivesTypeDefs}
  type Query { books(first: Int = 10): [Book!]! @listSize(slicingArguments: ["first"]) }
  type Book {
    title: String!
    similar(first: Int = 3): [Book!]! @cost(weight: "5") @listSize(slicingArguments: ["first"])
  }`);

const total = (estimate: { typeCost: number; fieldCost: number }) => estimate.typeCost + estimate.fieldCost;

describe("introspection priced by the schema's real sizes", () => {
  it('prices the standard introspection query at what the README schema answers: 520 (31,391 at defaultListSize)', () => {
    const document = parse(getIntrospectionQuery());
    expect(total(estimateCost({ schema: readme, document }))).toBe(520);
  });

  it('counts each type, field and argument the schema has, no more', () => {
    const schema = buildSchema(`
      type Query { a: A, b(x: Int, y: Int): B }
      type A { one: Int }
      type B { one: Int, two: Int, three: Int }
      enum Color { RED GREEN }
    `);
    const analyzer = createCostAnalyzer(schema);
    const price = (query: string) => analyzer.estimate({ document: parse(query) });
    // __type(name: "B"): the root 1, __type 1 + one __Type 1; fields 1 + 3 __Field objects.
    expect(price('{ __type(name: "B") { fields { name } } }')).toEqual({ typeCost: 1 + 1 + 3, fieldCost: 1 + 1 });
    // An unknown name: null, its call alone.
    expect(price('{ __type(name: "Nope") { fields { name } } }')).toEqual({ typeCost: 1, fieldCost: 1 });
    // Query.b has two arguments: args 1 + 2 __InputValue objects per field that has them.
    expect(price('{ __type(name: "Query") { fields { args { name } } } }')).toEqual({
      typeCost: 1 + 1 + 2 + 2,
      fieldCost: 1 + 1 + 2,
    });
    // enumValues: 2 on Color, null on the other kinds (one call each).
    expect(price('{ __type(name: "Color") { enumValues { name } } }')).toEqual({ typeCost: 1 + 1 + 2, fieldCost: 2 });
  });

  it('prices a type reached along many paths once per selection, within maxNodes', () => {
    const wide = buildSchema(
      `type Query { ${Array.from({ length: 60 }, (_, i) => `f${i}: T${i % 5}`).join(' ')} }\n` +
        Array.from(
          { length: 5 },
          (_, i) => `type T${i} { ${Array.from({ length: 30 }, (_, j) => `g${j}: T${(i + 1) % 5}`).join(' ')} }`,
        ).join('\n'),
    );
    const query = '{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }';
    const estimate = estimateCost({
      schema: wide,
      document: parse(query),
      maxNodes: 5000,
    });
    expect(total(estimate)).toBeGreaterThan(10_000);
  });

  it('sizes introspection lists by the schema whatever defaultListSize says, and refuses the old option', () => {
    const query = '{ __schema { types { name } } }';
    const types = Object.keys(readme.getTypeMap()).length;
    expect(estimateCost({ schema: readme, document: parse(query), defaultListSize: 1000 })).toEqual({
      typeCost: 1 + 1 + types,
      fieldCost: 2,
    });
    expect(() =>
      estimateCost({ schema: readme, document: parse(query), introspectionListSizes: 'schema' } as never),
    ).toThrow(/`introspectionListSizes` was replaced/);
  });
});
