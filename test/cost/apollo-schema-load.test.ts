import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createCostAnalyzer } from '../../src/cost/analyzer.js';
import { CostSchemaError } from '../../src/cost/errors.js';
import type { CostModelName } from '../../src/cost/types.js';

// What a schema must hold to load under each cost model. Apollo Router never asks a cost @link's
// directives to be defined (composition always writes the definitions, hand-written supergraphs
// often do not), so the 'apollo' model loads such a schema; every other check stays in both models.

const COST = 'https://specs.apollo.dev/cost/v0.1';
const link = 'directive @link(url: String, as: String, import: [String]) repeatable on SCHEMA';

function problemsOf(sdl: string, costModel: CostModelName): readonly string[] {
  try {
    createCostAnalyzer(buildSchema(sdl), { costModel });
  } catch (error) {
    if (error instanceof CostSchemaError) return error.problems;
    throw error;
  }
  return [];
}

describe('a cost @link naming @cost__listSize without its definition', () => {
  const unimported = `${link}
    directive @cost(weight: String!) on FIELD_DEFINITION | OBJECT
    schema @link(url: "${COST}") { query: Query }
    type Query { a: Int @cost(weight: "3") }
  `;
  const imported = `${link}
    directive @cost(weight: String!) on FIELD_DEFINITION | OBJECT
    schema @link(url: "${COST}", import: ["@cost", "@cost__listSize"]) { query: Query }
    type Query { a: Int @cost(weight: "3") }
  `;

  it("loads under 'apollo', and its @cost is read", () => {
    for (const sdl of [unimported, imported]) {
      const schema = buildSchema(sdl);
      const analyzer = createCostAnalyzer(schema, { costModel: 'apollo' });
      // a: own @cost 3.
      expect(analyzer.estimate({ document: parse('{ a }') })).toEqual({ typeCost: 0, fieldCost: 3 });
    }
  });

  it("is refused under 'ibm', naming the link", () => {
    expect(problemsOf(unimported, 'ibm')).toEqual([
      `@link(url: "${COST}"): names the cost spec's @listSize @cost__listSize, but the schema defines no @cost__listSize.`,
    ]);
  });
});

describe('the checks that stay in both models', () => {
  it('a linked directive defined with other arguments', () => {
    const sdl = `${link}
      directive @cost(amount: Int!) on FIELD_DEFINITION
      schema @link(url: "${COST}") { query: Query }
      type Query { a: Int }
    `;
    for (const model of ['ibm', 'apollo'] as const) {
      expect(problemsOf(sdl, model)).toContain(
        `@link(url: "${COST}"): names the cost spec's @cost @cost, but the schema defines @cost(amount: Int!), which does not take the spec's arguments (weight: String!, Int! or Float!).`,
      );
    }
  });

  it('a sizedFields path that ends in several lists', () => {
    const sdl = `
      directive @listSize(assumedSize: Int, slicingArguments: [String!], sizedFields: [String!], requireOneSlicingArgument: Boolean = true) on FIELD_DEFINITION
      type Query { deep(first: Int): Deep @listSize(slicingArguments: ["first"], sizedFields: ["results { page items }"]) }
      type Deep { results: Results }
      type Results { page: [Int], items: [Int] }
    `;
    for (const model of ['ibm', 'apollo'] as const) {
      expect(problemsOf(sdl, model)).toEqual([
        'Query.deep: @listSize sized field "results { page items }" ends in several lists in one selection (page, items); write one path per list, e.g. ["a { b }", "a { c }"].',
      ]);
    }
  });

  it('a slicing argument that is neither Int nor a list', () => {
    const sdl = `
      directive @listSize(assumedSize: Int, slicingArguments: [String!], sizedFields: [String!], requireOneSlicingArgument: Boolean = true) on FIELD_DEFINITION
      type Query { a(first: String): [Int] @listSize(slicingArguments: ["first"]) }
    `;
    for (const model of ['ibm', 'apollo'] as const) {
      expect(problemsOf(sdl, model)).toEqual([
        'Query.a: @listSize slicing argument "first" has type String; it must be Int.',
      ]);
    }
  });
});

describe("a @join__field(requires:) the 'apollo' model cannot read", () => {
  const sdl = `
    directive @join__field(requires: String) on FIELD_DEFINITION
    type Query { ship: Ship }
    type Ship { owner: Owner, fee: Int @join__field(requires: "owner {") }
    type Owner { rating: Int }
  `;

  it("fails the load under 'apollo', as it fails the router's; the IBM model does not read it", () => {
    expect(problemsOf(sdl, 'apollo')).toEqual(['Ship.fee: @join__field(requires: "owner {") is not a selection.']);
    expect(problemsOf(sdl, 'ibm')).toEqual([]);
  });
});

describe("Apollo Router's main test schema (list-typed slicing arguments, nested sizedFields paths)", () => {
  const sdl = readFileSync(join(import.meta.dirname, '../fixtures/apollo-router/custom_cost_schema.graphql'), 'utf8');

  it('loads in both models', () => {
    expect(problemsOf(sdl, 'ibm')).toEqual([]);
    expect(problemsOf(sdl, 'apollo')).toEqual([]);
  });
});
