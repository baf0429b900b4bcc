import { composeServices } from '@apollo/composition';
import { buildSchema, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createCostAnalyzer, estimateCost } from '../../src/cost/analyzer.js';
import { CostSchemaError } from '../../src/cost/errors.js';

const link = '@link(url: "https://specs.apollo.dev/federation/v2.9", import: ["@key", "@cost", "@listSize"])';
const composed = composeServices([
  {
    name: 'products',
    url: 'http://127.0.0.1:1',
    typeDefs: parse(`
      extend schema ${link}
      type Query { products(first: Int): [Product] @listSize(slicingArguments: ["first"]) }
      type Product @key(fields: "id") { id: ID!, weight(unit: String @cost(weight: 3)): Int @cost(weight: 5) }
    `),
  },
]);
const supergraphSdl = composed.supergraphSdl as string;

// What a gateway's API schema is: the same types and fields, without any directive.
const api = buildSchema(`
  type Query { products(first: Int): [Product] }
  type Product { id: ID!, weight(unit: String): Int }
`);
const price = (query: string, options: { supergraphSdl?: string } = { supergraphSdl }) => {
  const { typeCost, fieldCost } = createCostAnalyzer(api, options).estimate({
    document: parse(query),
  });
  return { typeCost, fieldCost };
};

describe('supergraphSdl: weights read from a supergraph, applied to the API schema by coordinate', () => {
  it('the supergraph links the cost spec and keeps the weights', () => {
    expect(supergraphSdl).toContain('@link(url: "https://specs.apollo.dev/cost/v0.1"');
  });

  it('applies field, argument and list-size weights', () => {
    // Query 1 + 2 Products; products 1 + 2 × (weight 5 + unit 3).
    expect(price('{ products(first: 2) { weight(unit: "kg") } }')).toEqual({ typeCost: 3, fieldCost: 17 });
    // Without it, the API schema alone has the default weights (and no slicing argument to require).
    expect(price('{ products(first: 2) { weight(unit: "kg") } }', {})).toEqual({ typeCost: 11, fieldCost: 1 });
  });

  it('estimateCost takes it too', () => {
    const document = parse('{ products(first: 1) { weight } }');
    expect(estimateCost({ schema: api, document, supergraphSdl })).toEqual({ typeCost: 2, fieldCost: 6 });
  });

  it('refuses a supergraph that lacks a type of the schema, or does not parse', () => {
    const other = buildSchema(
      'type Query { products(first: Int): [Product] } type Product { id: ID! } type Extra { a: Int }',
    );
    expect(() => createCostAnalyzer(other, { supergraphSdl })).toThrow(
      'Extra: the schema the cost directives are read from (a supergraph) has no such type.',
    );
    expect(() => createCostAnalyzer(api, { supergraphSdl: 'type {' })).toThrow(CostSchemaError);
    expect(() => createCostAnalyzer(api, { supergraphSdl: 42 as unknown as string })).toThrow(/supergraphSdl/);
  });
});
