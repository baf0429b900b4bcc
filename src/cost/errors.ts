import { GraphQLError } from 'graphql';
import type { ASTNode } from 'graphql';

/** Stable `extensions.code` values of the errors the cost engine throws for a request. */
export const CostErrorCode = {
  /** The operation needs more analysis work than `maxNodes` allows, or nests too deeply. */
  limit: 'COST_ANALYSIS_LIMIT',
  /** The request variables do not match the operation's variable definitions. */
  invalidVariables: 'BAD_USER_INPUT',
  /** No operation matches `operationName` (or the document holds several and none was named). */
  unknownOperation: 'OPERATION_RESOLUTION_FAILURE',
  /** A graphql-query-complexity estimator failed or returned no usable number. */
  estimatorFailed: 'COST_ESTIMATOR_FAILED',
  /**
   * A field whose `@listSize` requires one slicing argument (`requireOneSlicingArgument`, true by
   * default) got a value for none or for several. The code Apollo Router's demand control reports
   * for the same rule.
   */
  slicingArguments: 'COST_QUERY_PARSE_FAILURE',
  /**
   * A slicing argument asks for a list size outside [0, `maxListSize`]: a negative size, which
   * resolvers read in their own ways, or more items than one list may hold.
   */
  listSizeOutOfRange: 'COST_LIST_SIZE_OUT_OF_RANGE',
  /**
   * Under `costModel: 'github'`: the operation's connections may return more than 500,000 nodes in
   * all, GitHub's node limit. GitHub's own code for the same refusal.
   */
  nodeLimit: 'MAX_NODE_LIMIT_EXCEEDED',
} as const;

export type CostErrorCode = (typeof CostErrorCode)[keyof typeof CostErrorCode];

/**
 * A request the cost engine cannot price: a user-facing `GraphQLError` with a stable
 * `extensions.code` (see {@link CostErrorCode}). The plugin passes it through as a client error.
 */
export class CostAnalysisError extends GraphQLError {
  readonly code: CostErrorCode;

  constructor(code: CostErrorCode, message: string, nodes?: ReadonlyArray<ASTNode> | ASTNode) {
    super(message, { nodes, extensions: { code } });
    this.name = 'CostAnalysisError';
    this.code = code;
  }
}

/**
 * A schema whose cost directives cannot be used: thrown once, when the analyzer reads the schema,
 * with one line per problem, each naming its schema coordinate (`Type.field`, `Type.field(arg:)`).
 */
export class CostSchemaError extends Error {
  /** One sentence per problem, each starting with the schema coordinate. */
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`The schema's cost directives are invalid:\n${problems.map((problem) => `- ${problem}`).join('\n')}`);
    this.name = 'CostSchemaError';
    this.problems = problems;
  }
}
