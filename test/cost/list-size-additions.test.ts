import { buildSchema, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createCostAnalyzer } from '../../src/cost/analyzer.js';
import { CostSchemaError } from '../../src/cost/errors.js';
import { costSchema } from './support.js';

// Apollo Router's demand control (2.12) additions to the IBM cost spec's @listSize.

describe('nested slicing argument paths', () => {
  const { expectCost, estimate } = costSchema(`
    type Query {
      search(input: SearchInput!): [Item] @listSize(slicingArguments: ["input.pagination.first"])
      deep(input: Level0): [Item]
        @listSize(slicingArguments: ["input.level1.level2.count"], assumedSize: 25, requireOneSlicingArgument: false)
    }
    input SearchInput { pagination: Pagination = {}, query: String }
    input Pagination { first: Int = 10, after: String }
    input Level0 { level1: Level1 }
    input Level1 { level2: Level2 }
    input Level2 { count: Int }
    type Item { weight: Int @cost(weight: "2") }
  `);
  // search's call: 1 + SearchInput 1 + Pagination 1 (input objects weigh 1 by default) = 3.

  it('reads the path in a literal', () => {
    expectCost('{ search(input: { pagination: { first: 3 } }) { weight } }').toEqual({
      typeCost: 1 + 3,
      fieldCost: 3 + 3 * 2,
    });
  });
  it('reads the path in a variable', () => {
    expectCost('query Q($in: SearchInput!) { search(input: $in) { weight } }', {
      in: { pagination: { first: 4 } },
    }).toEqual({
      typeCost: 1 + 4,
      fieldCost: 3 + 4 * 2,
    });
  });
  it('applies input-field defaults, as the resolver will see them', () => {
    // pagination defaults to {}, whose first defaults to 10.
    const defaulted = { typeCost: 1 + 10, fieldCost: 3 + 10 * 2 };
    expectCost('{ search(input: { query: "lamp" }) { weight } }').toEqual(defaulted);
    expectCost('{ search(input: { pagination: { after: "x" } }) { weight } }').toEqual(defaulted);
    expectCost('query Q($in: SearchInput!) { search(input: $in) { weight } }', { in: { query: 'lamp' } }).toEqual(
      defaulted,
    );
  });
  it('an explicit null at the end of the path is no value: a required slicing argument is missing', () => {
    expect(() => estimate('{ search(input: { pagination: { first: null } }) { weight } }')).toThrow(
      expect.objectContaining({ extensions: { code: 'COST_QUERY_PARSE_FAILURE' } }),
    );
  });
  it('reads paths of any depth, and falls back to assumedSize when the path is absent', () => {
    // deep's call: 1 + Level0 1 + Level1 1 + Level2 1 = 4.
    expectCost('{ deep(input: { level1: { level2: { count: 7 } } }) { weight } }').toEqual({
      typeCost: 1 + 7,
      fieldCost: 4 + 7 * 2,
    });
    expectCost('{ deep(input: { level1: {} }) { weight } }').toEqual({ typeCost: 1 + 25, fieldCost: 3 + 25 * 2 });
  });
});

describe('nested sizedFields paths', () => {
  const { expectCost, actual } = costSchema(`
    type Query {
      deep(first: Int = 10): Deep!
        @listSize(slicingArguments: ["first"], sizedFields: ["results { page }"], requireOneSlicingArgument: false)
      mixed(first: Int = 10): Deep!
        @listSize(slicingArguments: ["first"], sizedFields: ["page", "results { page }"], requireOneSlicingArgument: false)
      outer(first: Int): Outer @listSize(slicingArguments: ["first"], sizedFields: ["deep { results { page } }"])
    }
    type Outer { deep: Deep }
    type Deep { page: [Item], results: Results, recent: [Item], total: Int }
    type Results { page: [Item], metadata: String }
    type Item { id: ID }
  `);

  it('sizes the list reached by the path, and only that one', () => {
    // Query 1 + Deep 1 + Results 1 + 7 Items; calls: deep, results, page.
    expectCost('{ deep(first: 7) { results { page { id } } } }').toEqual({ typeCost: 1 + 1 + 1 + 7, fieldCost: 3 });
    // Deep.page and Deep.recent are not on the path: defaultListSize (10).
    expectCost('{ deep(first: 7) { page { id } recent { id } } }').toEqual({
      typeCost: 1 + 1 + 10 + 10,
      fieldCost: 3,
    });
  });
  it('uses the schema default and variables of the slicing argument', () => {
    expectCost('{ deep { results { page { id } } } }').toEqual({ typeCost: 3 + 10, fieldCost: 3 });
    expectCost('query Q($n: Int) { deep(first: $n) { results { page { id } } } }', { n: 3 }).toEqual({
      typeCost: 3 + 3,
      fieldCost: 3,
    });
  });
  it('mixes plain names and paths', () => {
    expectCost('{ mixed(first: 5) { page { id } results { page { id } } } }').toEqual({
      typeCost: 1 + 1 + 5 + 1 + 5,
      fieldCost: 4,
    });
  });
  it('follows paths of any depth', () => {
    expectCost('{ outer(first: 2) { deep { results { page { id } } } } }').toEqual({
      typeCost: 1 + 1 + 1 + 1 + 2,
      fieldCost: 4,
    });
  });
  it('prices a sized list an error nulled at the size the path hands it', () => {
    const query = '{ deep(first: 7) { results { page { id } } } }';
    const data = { deep: { results: { page: null } } };
    expect(actual(query, data, undefined, [{ path: ['deep', 'results', 'page'] }])).toEqual({
      typeCost: 1 + 1 + 1 + 7,
      fieldCost: 3,
    });
    expect(actual(query, { deep: { results: { page: [{ id: '1' }] } } })).toEqual({ typeCost: 4, fieldCost: 3 });
  });

  it('checks every path at schema load', () => {
    const problemsOf = (sizedFields: string) => {
      try {
        costSchema(`
          type Query { deep(first: Int): Deep @listSize(slicingArguments: ["first"], sizedFields: [${sizedFields}]) }
          type Deep { page: [Item], results: Results, total: Int, items: [Item] }
          type Results { page: [Item], recent: [Item], metadata: String }
          type Item { id: ID }
        `);
      } catch (error) {
        if (error instanceof CostSchemaError) return error.problems;
        throw error;
      }
      return [];
    };
    expect(problemsOf('"results { page }", "results { recent }", "page"')).toEqual([]);
    expect(problemsOf('"results { nope }"')).toEqual([
      'Query.deep: @listSize sized field "results { nope }": "nope" is not a field of Results.',
    ]);
    expect(problemsOf('"results { metadata }"')).toEqual([
      'Query.deep: @listSize sized field "results { metadata }": "metadata" (Results.metadata: String) is not a list.',
    ]);
    expect(problemsOf('"total { page }"')).toEqual([
      'Query.deep: @listSize sized field "total { page }": "total" (Deep.total: Int) has no fields to descend into.',
    ]);
    expect(problemsOf('"results { page recent }"')).toEqual([
      'Query.deep: @listSize sized field "results { page recent }" ends in several lists in one selection (page, recent); write one path per list, e.g. ["a { b }", "a { c }"].',
    ]);
    expect(problemsOf('"results(first: 1) { page }", "a } { b", "...on Deep { page }"')).toEqual([
      'Query.deep: @listSize sized field "results(first: 1) { page }" is not a field name or a path such as "a { b }".',
      'Query.deep: @listSize sized field "a } { b" is not a field name or a path such as "a { b }".',
      'Query.deep: @listSize sized field "...on Deep { page }" is not a field name or a path such as "a { b }".',
    ]);
  });
});

describe('several @listSize on one field (a repeatable definition)', () => {
  const definitions = `
    directive @cost(weight: String!) on FIELD_DEFINITION | OBJECT
    directive @listSize(
      assumedSize: Int, slicingArguments: [String!], sizedFields: [String!], requireOneSlicingArgument: Boolean = true
    ) repeatable on FIELD_DEFINITION
  `;
  const schema = buildSchema(`${definitions}
    type Query {
      assumed: [Item] @listSize(assumedSize: 5) @listSize(assumedSize: 8)
      items(first: Int, last: Int): [Item]
        @listSize(slicingArguments: ["first"], requireOneSlicingArgument: false)
        @listSize(slicingArguments: ["last"], requireOneSlicingArgument: false)
      both(first: Int): [Item] @listSize(slicingArguments: ["first"]) @listSize(assumedSize: 20)
      conn(first: Int): Conn
        @listSize(slicingArguments: ["first"], sizedFields: ["edges"])
        @listSize(assumedSize: 50, sizedFields: ["nodes"])
      over(first: Int): Conn
        @listSize(slicingArguments: ["first"], sizedFields: ["nodes"])
        @listSize(assumedSize: 4, sizedFields: ["nodes"])
    }
    type Conn { edges: [Edge], nodes: [Item] }
    type Edge { node: Item }
    type Item { id: ID }
  `);
  const analyzer = createCostAnalyzer(schema);
  const price = (query: string) => {
    const { typeCost, fieldCost } = analyzer.estimate({ document: parse(query) });
    return { typeCost, fieldCost };
  };

  it('takes the largest size', () => {
    expect(price('{ assumed { id } }')).toEqual({ typeCost: 1 + 8, fieldCost: 1 });
    expect(price('{ items(first: 3, last: 6) { id } }')).toEqual({ typeCost: 1 + 6, fieldCost: 1 });
    expect(price('{ items(first: 3) { id } }')).toEqual({ typeCost: 1 + 3, fieldCost: 1 });
    expect(price('{ both(first: 3) { id } }')).toEqual({ typeCost: 1 + 20, fieldCost: 1 });
    expect(price('{ over(first: 2) { nodes { id } } }')).toEqual({ typeCost: 1 + 1 + 4, fieldCost: 2 });
    expect(price('{ over(first: 9) { nodes { id } } }')).toEqual({ typeCost: 1 + 1 + 9, fieldCost: 2 });
  });
  it('each @listSize sizes the lists it names', () => {
    // edges: first (2) Edges with one Item each; nodes: assumedSize 50 Items.
    expect(price('{ conn(first: 2) { edges { node { id } } nodes { id } } }')).toEqual({
      typeCost: 1 + 1 + 2 * 2 + 50,
      fieldCost: 1 + 1 + 2 + 1,
    });
  });
  it('checks requireOneSlicingArgument of each', () => {
    expect(() => price('{ both { id } }')).toThrow(
      expect.objectContaining({ extensions: { code: 'COST_QUERY_PARSE_FAILURE' } }),
    );
  });
  it('refuses repeats of a @listSize the schema does not define repeatable', () => {
    const sdl = `${definitions.replace('repeatable ', '')}
      type Query { a: [Int] @listSize(assumedSize: 1) @listSize(assumedSize: 2) }
    `;
    expect(() => buildSchema(sdl)).toThrow(/can only be used once/);
    expect(() => createCostAnalyzer(buildSchema(sdl, { assumeValidSDL: true }))).toThrow(
      'Query.a: @listSize is given 2 times, but the schema does not define it repeatable.',
    );
  });
});
