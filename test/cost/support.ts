import { buildSchema, parse, validate } from 'graphql';
import type { GraphQLSchema } from 'graphql';
import { expect } from 'vitest';
import { createCostAnalyzer } from '../../src/cost/analyzer.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { CostAnalysisError } from '../../src/cost/errors.js';
import type { ActualRequest, CostAnalyzer, CostAnalyzerOptions, CostEstimate } from '../../src/cost/types.js';

type Variables = Record<string, unknown>;

/** A schema from SDL (the cost directives are prepended) and the cost helpers over it. */
export function costSchema(sdl: string, options?: CostAnalyzerOptions) {
  const schema: GraphQLSchema = buildSchema(costDirectivesTypeDefs + sdl);
  const analyzer: CostAnalyzer = createCostAnalyzer(schema, options);
  const documentOf = (query: string) => {
    const document = parse(query);
    const errors = validate(schema, document);
    if (errors.length > 0) throw errors[0];
    return document;
  };
  const estimate = (query: string, variables?: Variables, operationName?: string): CostEstimate => {
    const { typeCost, fieldCost } = analyzer.estimate({ document: documentOf(query), variables, operationName });
    return { typeCost, fieldCost };
  };
  const actual = (
    query: string,
    data: Variables | null | undefined,
    variables?: Variables,
    errors?: ActualRequest['errors'],
  ): CostEstimate => analyzer.actual({ document: documentOf(query), variables, data, errors });
  /** `expectCost(query).toEqual({ typeCost, fieldCost })` */
  const expectCost = (query: string, variables?: Variables) => expect(estimate(query, variables));
  return { sdl, schema, analyzer, documentOf, estimate, actual, expectCost };
}

/** The error `run` throws, or a failure if it throws none. */
export function rejection(run: () => unknown): CostAnalysisError {
  try {
    run();
  } catch (error) {
    if (error instanceof CostAnalysisError) return error;
    throw error;
  }
  throw new Error('not rejected');
}
