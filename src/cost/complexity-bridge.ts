import { GraphQLError, Kind } from 'graphql';
import type { DocumentNode, GraphQLSchema } from 'graphql';
import { reported } from './cost-math.js';
import { CostAnalysisError, CostErrorCode } from './errors.js';
import type { ResolvedOperation } from './operation.js';
import type { ComplexityEstimator, CostEstimate } from './types.js';

type GetComplexity = typeof import('graphql-query-complexity')['getComplexity'];

/** graphql-query-complexity is optional: loaded when installed, required only by `estimators`. */
const getComplexity: GetComplexity | undefined = await import('graphql-query-complexity').then(
  (module) => module.getComplexity,
  () => undefined,
);

/** Throws unless graphql-query-complexity can be loaded (checked when the analyzer is created). */
export function assertComplexityAvailable(owner: string): void {
  if (getComplexity === undefined) {
    throw new TypeError(`${owner}: \`estimators\` needs the graphql-query-complexity package; install it.`);
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
