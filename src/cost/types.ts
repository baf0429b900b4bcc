import type { DocumentNode, GraphQLSchema } from 'graphql';

/** The IBM cost spec's two numbers for one operation. */
export interface CostEstimate {
  /** Sum of the weights of the composite-type instances the operation may return. */
  typeCost: number;
  /** Sum of the weights of the fields (and their arguments) the operation may resolve. */
  fieldCost: number;
  /** Per-field breakdown, only when asked for (`breakdown: true`). */
  fields?: FieldCostBreakdown[];
}

/** One entry of the per-field breakdown. */
export interface FieldCostBreakdown {
  /** Response path with list positions elided, e.g. `books.edges.node.title`. */
  path: string;
  fieldCost: number;
  typeCost: number;
  /** How many times this field is counted (product of the enclosing list sizes). */
  multiplier: number;
}

export interface EstimateCostOptions {
  schema: GraphQLSchema;
  /** A parsed and validated document. */
  document: DocumentNode;
  /** Required when the document holds more than one operation. */
  operationName?: string | null;
  /** Raw request variables (not yet coerced). */
  variables?: Readonly<Record<string, unknown>> | null;
  /** Size assumed for a list field without `@listSize` or a slicing argument (may be `Infinity`). */
  defaultListSize?: number;
  /** Work cap: selections visited after fragment expansion. @default 10_000 */
  maxNodes?: number;
  /** Also return the per-field breakdown. @default false */
  breakdown?: boolean;
}
