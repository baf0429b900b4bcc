import { GraphQLInt, GraphQLList, GraphQLObjectType, GraphQLSchema, GraphQLString, buildSchema, parse } from 'graphql';
import { directiveEstimator, fieldExtensionsEstimator, getComplexity, simpleEstimator } from 'graphql-query-complexity';
import { describe, expect, it } from 'vitest';
import { createCostAnalyzer } from '../../src/cost/analyzer.js';
import type { ComplexityEstimator } from '../../src/cost/types.js';

const sdl = buildSchema(`
  directive @complexity(value: Int!, multipliers: [String!]) on FIELD_DEFINITION
  type Query {
    posts(first: Int): [Post] @complexity(value: 2, multipliers: ["first"])
    viewer: User
  }
  type Post { title: String, author: User @complexity(value: 3) }
  type User { name: String }
`);

const query = 'query Posts($n: Int) { posts(first: $n) { title author { name } } viewer { name } }';

describe('graphql-query-complexity bridge', () => {
  it('returns simpleEstimator complexity as fieldCost, equal to getComplexity', () => {
    const estimators = [simpleEstimator({ defaultComplexity: 1 })];
    const analyzer = createCostAnalyzer(sdl, { estimators });
    const document = parse(query);
    const expected = getComplexity({ schema: sdl, query: document, estimators, variables: { n: 5 } });
    expect(expected).toBe(6);
    expect(analyzer.estimate({ document, variables: { n: 5 } })).toEqual({ typeCost: 0, fieldCost: 6 });
  });

  it('returns directiveEstimator complexity, with multipliers read from variables', () => {
    const estimators = [directiveEstimator({ name: 'complexity' }), simpleEstimator({ defaultComplexity: 0 })];
    const analyzer = createCostAnalyzer(sdl, { estimators });
    // posts: (2 + children) × 5, children: title 0 + author 3 + name 0; viewer 0 + name 0.
    expect(analyzer.estimate({ document: parse(query), variables: { n: 5 } })).toEqual({
      typeCost: 0,
      fieldCost: (2 + 3) * 5,
    });
  });

  it('returns fieldExtensionsEstimator complexity from a code-first schema', () => {
    const Item = new GraphQLObjectType({
      name: 'Item',
      fields: { name: { type: GraphQLString, extensions: { complexity: 2 } } },
    });
    const schema = new GraphQLSchema({
      query: new GraphQLObjectType({
        name: 'Query',
        fields: {
          items: {
            type: new GraphQLList(Item),
            args: { limit: { type: GraphQLInt } },
            extensions: {
              complexity: ({ args, childComplexity }: { args: { limit: number }; childComplexity: number }) =>
                1 + args.limit * childComplexity,
            },
          },
        },
      }),
    });
    const analyzer = createCostAnalyzer(schema, {
      estimators: [fieldExtensionsEstimator(), simpleEstimator({ defaultComplexity: 1 })],
    });
    expect(analyzer.estimate({ document: parse('{ items(limit: 4) { name } }') })).toEqual({
      typeCost: 0,
      fieldCost: 1 + 4 * 2,
    });
  });

  it('uses a custom estimator, called with the field, args and child complexity', () => {
    const seen: string[] = [];
    const custom: ComplexityEstimator = ({ field, args, childComplexity }) => {
      seen.push(`${field.name}:${JSON.stringify(args)}:${childComplexity}`);
      return field.name === 'posts' ? 10 + childComplexity : 1;
    };
    const analyzer = createCostAnalyzer(sdl, { estimators: [custom] });
    expect(analyzer.estimate({ document: parse(query), variables: { n: 2 } })).toEqual({
      typeCost: 0,
      fieldCost: 10 + 2 + 1,
    });
    expect(seen).toContain('posts:{"first":2}:2');
  });

  it('guards the anonymous-operation trap: an operation name that matches nothing is a clear error', () => {
    const document = parse('{ viewer { name } }');
    const estimators = [simpleEstimator({ defaultComplexity: 1 })];
    expect(() => getComplexity({ schema: sdl, query: document, estimators, operationName: 'Named' })).toThrow(
      TypeError,
    );
    const analyzer = createCostAnalyzer(sdl, { estimators });
    expect(() => analyzer.estimate({ document, operationName: 'Named' })).toThrow(
      expect.objectContaining({ extensions: { code: 'OPERATION_RESOLUTION_FAILURE' } }),
    );
    expect(analyzer.estimate({ document, operationName: null })).toEqual({ typeCost: 0, fieldCost: 2 });
  });

  it('prices only the named operation of a document with several', () => {
    const document = parse('query A { viewer { name } } query B { posts { title } viewer { name } }');
    const analyzer = createCostAnalyzer(sdl, { estimators: [simpleEstimator({ defaultComplexity: 1 })] });
    expect(analyzer.estimate({ document, operationName: 'A' })).toEqual({ typeCost: 0, fieldCost: 2 });
    expect(analyzer.estimate({ document, operationName: 'B' })).toEqual({ typeCost: 0, fieldCost: 4 });
  });

  it("turns graphql-query-complexity's node-limit error into COST_ANALYSIS_LIMIT", () => {
    const analyzer = createCostAnalyzer(sdl, { estimators: [simpleEstimator()], maxNodes: 3 });
    expect(analyzer.estimate({ document: parse('{ viewer { name } }') })).toEqual({ typeCost: 0, fieldCost: 2 });
    expect(() => analyzer.estimate({ document: parse(query), variables: { n: 1 } })).toThrow(
      expect.objectContaining({ extensions: { code: 'COST_ANALYSIS_LIMIT' } }),
    );
  });

  it('reports an estimator that returns no number as COST_ESTIMATOR_FAILED', () => {
    const analyzer = createCostAnalyzer(sdl, { estimators: [() => undefined] });
    expect(() => analyzer.estimate({ document: parse('{ viewer { name } }') })).toThrow(
      expect.objectContaining({
        message: expect.stringContaining('No complexity could be calculated for field'),
        extensions: { code: 'COST_ESTIMATOR_FAILED' },
      }),
    );
  });

  it('reports invalid variables before calling the estimators', () => {
    const analyzer = createCostAnalyzer(sdl, { estimators: [simpleEstimator()] });
    expect(() => analyzer.estimate({ document: parse(query), variables: { n: 'x' } })).toThrow(
      expect.objectContaining({ extensions: { code: 'BAD_USER_INPUT' } }),
    );
  });

  it('returns the estimate from actual() and an empty breakdown', () => {
    const analyzer = createCostAnalyzer(sdl, { estimators: [simpleEstimator({ defaultComplexity: 1 })] });
    const document = parse('{ viewer { name } }');
    expect(analyzer.actual({ document, data: { viewer: null } })).toEqual({ typeCost: 0, fieldCost: 2 });
    expect(analyzer.estimate({ document, breakdown: true })).toEqual({ typeCost: 0, fieldCost: 2, fields: [] });
  });
});
