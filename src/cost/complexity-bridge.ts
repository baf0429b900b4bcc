import { createRequire } from 'node:module';
import { GraphQLError, Kind } from 'graphql';
import type { DocumentNode, GraphQLSchema } from 'graphql';
import type { CostModel } from './cost-model.js';
import { reported } from './cost-math.js';
import { IBM_READING } from './cost-table.js';
import { CostAnalysisError, CostErrorCode } from './errors.js';
import { FieldCollector } from './field-collector.js';
import { checkListSizeBounds } from './list-size-bounds.js';
import type { ResolvedOperation } from './operation.js';
import type { ComplexityEstimator, CostEstimate } from './types.js';

type GetComplexity = typeof import('graphql-query-complexity')['getComplexity'];

/**
 * graphql-query-complexity's `getComplexity`, once loaded. The package is an optional peer needed
 * only by `estimators`, so it is loaded on first use, synchronously (`require`, which works from
 * both builds), never at import time: a top-level `await import()` would make the ES module build
 * impossible to `require()` and cost every user the lookup.
 */
let getComplexity: GetComplexity | undefined;

/** Loads graphql-query-complexity, or throws a TypeError naming it (called when the analyzer is created). */
export function assertComplexityAvailable(owner: string): void {
  if (getComplexity !== undefined) return;
  try {
    const load = createRequire(import.meta.url);
    getComplexity = (load('graphql-query-complexity') as typeof import('graphql-query-complexity')).getComplexity;
  } catch (error) {
    const missing =
      (error as NodeJS.ErrnoException | undefined)?.code === 'MODULE_NOT_FOUND' &&
      String((error as Error).message).includes("'graphql-query-complexity'");
    throw new TypeError(
      missing
        ? `${owner}: \`estimators\` needs the graphql-query-complexity package, which is not installed; install it (npm install graphql-query-complexity).`
        : `${owner}: \`estimators\` needs the graphql-query-complexity package, which failed to load: ${(error as Error)?.message ?? String(error)}`,
      { cause: error },
    );
  }
}

/**
 * The complexity graphql-query-complexity's `getComplexity` computes with the given estimators,
 * reported as `fieldCost` (`typeCost` 0), for one already-resolved operation. Its traps are
 * avoided: it is handed a document holding only that operation and its fragments (it crashes on an
 * anonymous operation when given an operation name, and sums every operation when given none), and
 * its node-limit error (thrown from inside its visitor) becomes a `COST_ANALYSIS_LIMIT` error.
 */
export function complexityEstimate(
  schema: GraphQLSchema,
  operation: ResolvedOperation,
  rawVariables: Readonly<Record<string, unknown>>,
  estimators: readonly ComplexityEstimator[],
  maxNodes: number,
): CostEstimate {
  const query: DocumentNode = {
    kind: Kind.DOCUMENT,
    definitions: [operation.operation, ...operation.fragments.values()],
  };
  let complexity: number;
  try {
    complexity = (getComplexity as GetComplexity)({
      schema,
      query,
      estimators: [...estimators],
      variables: { ...rawVariables },
      maxQueryNodes: maxNodes === Number.POSITIVE_INFINITY ? maxNodes : maxNodes + 1,
    });
  } catch (error) {
    if (error instanceof CostAnalysisError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof GraphQLError && /maximum allowed number of nodes/i.test(message)) {
      throw new CostAnalysisError(
        CostErrorCode.limit,
        `The operation is too large to price: it expands to more than ${maxNodes} selections, the limit.`,
      );
    }
    throw new CostAnalysisError(CostErrorCode.estimatorFailed, `The complexity estimators failed: ${message}`);
  }
  if (typeof complexity !== 'number' || Number.isNaN(complexity)) {
    throw new CostAnalysisError(
      CostErrorCode.estimatorFailed,
      `The complexity estimators returned ${String(complexity)}, not a number.`,
    );
  }
  return { typeCost: 0, fieldCost: reported(Math.max(0, complexity)) };
}

/**
 * graphql-query-complexity's estimators in place of the directives (`estimators`): the complexity
 * is the estimate and the actual cost alike (its estimators price no response), with an empty
 * breakdown. A client still may not pick a list size beyond `maxListSize` through a `@listSize`
 * slicing argument.
 */
export function complexityCostModel(estimators: readonly ComplexityEstimator[]): CostModel {
  const estimate: CostModel['estimate'] = ({ table, operation, settings }, breakdown) => {
    // graphql-query-complexity counts the work against maxNodes itself; the bounds walk is linear in
    // the document (each selection set walked once per type).
    const collector = new FieldCollector(table.schema, operation, Number.POSITIVE_INFINITY);
    checkListSizeBounds(table, operation, collector, settings.maxListSize);
    const complexity = complexityEstimate(
      table.schema,
      operation,
      operation.rawVariables,
      estimators,
      settings.maxNodes,
    );
    return breakdown ? { ...complexity, fields: [] } : complexity;
  };
  return {
    name: 'ibm',
    reading: IBM_READING,
    readsEveryArgument: true,
    estimate,
    actual: (input) => estimate(input, false),
  };
}
