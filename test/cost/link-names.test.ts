import { buildSubgraphSchema } from '@apollo/subgraph';
import { buildSchema, parse } from 'graphql';
import type { GraphQLSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createCostAnalyzer } from '../../src/cost/analyzer.js';
import { CostSchemaError } from '../../src/cost/errors.js';

const FEDERATION = 'https://specs.apollo.dev/federation/v2.9';
const COST = 'https://specs.apollo.dev/cost/v0.1';

/** A products subgraph whose `@cost` and `@listSize` are spelled `cost` and `listSize`. */
function subgraph(links: string, cost: string, listSize: string): GraphQLSchema {
  return buildSubgraphSchema({
    typeDefs: parse(`
      extend schema ${links}
      type Query { products: [Product] @${listSize}(assumedSize: 3) }
      type Product @key(fields: "id") { id: ID!, weight: Int @${cost}(weight: 5) }
    `),
  });
}

// Query 1 + 3 products × (Product 1) = typeCost 4; products 1 + 3 × weight 5 = fieldCost 16.
const PRICED = { typeCost: 4, fieldCost: 16 };
const priceOf = (schema: GraphQLSchema) => {
  const { typeCost, fieldCost } = createCostAnalyzer(schema).estimate({ document: parse('{ products { weight } }') });
  return { typeCost, fieldCost };
};

describe('cost directive names resolved through @link (Federation subgraphs)', () => {
  it('federation v2.9, imported as is', () => {
    const schema = subgraph(`@link(url: "${FEDERATION}", import: ["@key", "@cost", "@listSize"])`, 'cost', 'listSize');
    expect(priceOf(schema)).toEqual(PRICED);
  });

  it('federation v2.9, imported under other names', () => {
    const schema = subgraph(
      `@link(url: "${FEDERATION}", import: ["@key", { name: "@cost", as: "@myCost" }, { name: "@listSize", as: "@size" }])`,
      'myCost',
      'size',
    );
    expect(priceOf(schema)).toEqual(PRICED);
  });

  it('federation v2.9, not imported: @federation__cost and @federation__listSize', () => {
    const schema = subgraph(
      `@link(url: "${FEDERATION}", import: ["@key"])`,
      'federation__cost',
      'federation__listSize',
    );
    expect(priceOf(schema)).toEqual(PRICED);
  });

  it('a later federation version (v2.12) names them the same way', () => {
    const schema = subgraph(
      `@link(url: "https://specs.apollo.dev/federation/v2.12", import: ["@key", "@listSize"])`,
      'federation__cost',
      'listSize',
    );
    expect(priceOf(schema)).toEqual(PRICED);
  });

  it('the cost spec linked directly, imported and renamed', () => {
    const links = `@link(url: "${FEDERATION}", import: ["@key"]) @link(url: "${COST}", import: [{ name: "@cost", as: "@weigh" }, "@listSize"])`;
    expect(priceOf(subgraph(links, 'weigh', 'listSize'))).toEqual(PRICED);
  });

  it('the cost spec linked directly, not imported: @cost keeps the spec name, @cost__listSize', () => {
    const links = `@link(url: "${FEDERATION}", import: ["@key"]) @link(url: "${COST}")`;
    expect(priceOf(subgraph(links, 'cost', 'cost__listSize'))).toEqual(PRICED);
  });

  it('the cost spec linked under a namespace (as:): @demand and @demand__listSize', () => {
    const links = `@link(url: "${FEDERATION}", import: ["@key"]) @link(url: "${COST}", as: "demand")`;
    expect(priceOf(subgraph(links, 'demand', 'demand__listSize'))).toEqual(PRICED);
  });
});

describe('schemas without a cost link keep the IBM names', () => {
  const plain = `
    directive @cost(weight: String!) on FIELD_DEFINITION | OBJECT
    directive @listSize(assumedSize: Int) on FIELD_DEFINITION
    type Query { products: [Product] @listSize(assumedSize: 3) }
    type Product { weight: Int @cost(weight: "5") }
  `;

  it('plain IBM SDL', () => {
    expect(priceOf(buildSchema(plain))).toEqual(PRICED);
  });

  it('a federation link before v2.9 (whose spec has no cost directives)', () => {
    const linked = `
      directive @link(url: String, as: String, import: [String]) repeatable on SCHEMA
      schema @link(url: "https://specs.apollo.dev/federation/v2.5", import: ["@key"]) { query: Query }
      ${plain}
    `;
    expect(priceOf(buildSchema(linked))).toEqual(PRICED);
  });

  it('a federation v2.9 link ignores a @cost of the schema own that the link does not name', () => {
    const schema = buildSchema(`
      directive @link(url: String, as: String, import: [String]) repeatable on SCHEMA
      directive @cost(weight: String!) on FIELD_DEFINITION
      directive @federation__listSize(assumedSize: Int) on FIELD_DEFINITION
      schema @link(url: "${FEDERATION}", import: ["@key"]) { query: Query }
      type Query { products: [Product] @federation__listSize(assumedSize: 3) }
      type Product { weight: Int @cost(weight: "5") }
    `);
    // @cost here is the schema's own directive, not Federation's @federation__cost: weight 0.
    expect(priceOf(schema)).toEqual({ typeCost: 4, fieldCost: 1 });
  });
});

describe('a cost link whose directives cannot be resolved fails at load, naming the link', () => {
  const problemsOf = (sdl: string): readonly string[] => {
    try {
      createCostAnalyzer(buildSchema(sdl));
    } catch (error) {
      if (error instanceof CostSchemaError) return error.problems;
      throw error;
    }
    return [];
  };
  const link = 'directive @link(url: String, as: String, import: [String]) repeatable on SCHEMA';

  it('names a directive the schema does not define', () => {
    expect(
      problemsOf(`
        ${link}
        directive @cost(weight: Int!) on FIELD_DEFINITION
        schema @link(url: "${COST}", import: ["@cost", { name: "@listSize", as: "@size" }]) { query: Query }
        type Query { a: Int }
      `),
    ).toEqual([
      `@link(url: "${COST}", import: ["@cost", {name: "@listSize", as: "@size"}]): names the cost spec's @listSize @size, but the schema defines no @size.`,
    ]);
  });

  it('an unimported cost link needs both @cost and @cost__listSize', () => {
    expect(
      problemsOf(`${link}
        directive @cost(weight: Int!) on FIELD_DEFINITION
        schema @link(url: "${COST}") { query: Query }
        type Query { a: Int }
      `),
    ).toEqual([
      `@link(url: "${COST}"): names the cost spec's @listSize @cost__listSize, but the schema defines no @cost__listSize.`,
    ]);
  });

  it('names a directive defined with other arguments', () => {
    expect(
      problemsOf(`${link}
        directive @myCost(amount: Int!) on FIELD_DEFINITION
        directive @listSize(assumedSize: String) on FIELD_DEFINITION
        schema @link(url: "${FEDERATION}", import: [{ name: "@cost", as: "@myCost" }, "@listSize"]) { query: Query }
        type Query { a: Int }
      `),
    ).toEqual([
      `@link(url: "${FEDERATION}", import: [{name: "@cost", as: "@myCost"}, "@listSize"]): names the cost spec's @cost @myCost, but the schema defines @myCost(amount: Int!), which does not take the spec's arguments (weight: String!, Int! or Float!).`,
      `@link(url: "${FEDERATION}", import: [{name: "@cost", as: "@myCost"}, "@listSize"]): names the cost spec's @listSize @listSize, but the schema defines @listSize(assumedSize: String), which does not take the spec's arguments (assumedSize: Int, slicingArguments: [String], sizedFields: [String], requireOneSlicingArgument: Boolean).`,
    ]);
  });

  it('a federation link that does not import them needs no definition', () => {
    expect(
      problemsOf(`${link}
        schema @link(url: "${FEDERATION}", import: ["@key"]) { query: Query }
        type Query { a: Int }
      `),
    ).toEqual([]);
  });

  it('reads the link directive under the name the link spec link gives it', () => {
    const schema = buildSchema(`
      directive @core(url: String, as: String, import: [String]) repeatable on SCHEMA
      directive @weigh(weight: Int!) on FIELD_DEFINITION
      directive @cost__listSize(assumedSize: Int) on FIELD_DEFINITION
      schema @core(url: "https://specs.apollo.dev/link/v1.0", as: "core") @core(url: "${COST}", import: [{ name: "@cost", as: "@weigh" }]) { query: Query }
      type Query { products: [Product] @cost__listSize(assumedSize: 3) }
      type Product { weight: Int @weigh(weight: 5) }
    `);
    expect(priceOf(schema)).toEqual(PRICED);
  });
});
