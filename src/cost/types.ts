import type {
  DocumentNode,
  FieldNode,
  GraphQLCompositeType,
  GraphQLField,
  GraphQLSchema,
  OperationDefinitionNode,
  VariableDefinitionNode,
} from 'graphql';

/** The IBM cost spec's two numbers for one operation. */
export interface CostEstimate {
  /** Sum of the weights of the composite-type instances the operation may return. */
  typeCost: number;
  /** Sum of the weights of the fields (and their arguments) the operation may resolve. */
  fieldCost: number;
  /** Per-field breakdown, only when asked for (`breakdown: true`). */
  fields?: FieldCostBreakdown[];
}

/**
 * One entry of the per-field breakdown. Under `'apollo'`, the sum over the entries of
 * `multiplier × (typeCost + fieldCost)` is the estimate (but for a mutation's 10, which belongs to
 * no field).
 */
export interface FieldCostBreakdown {
  /** Response path with list positions elided, e.g. `books.edges.node.title`. */
  path: string;
  /**
   * The field's own call cost: its weight plus its argument weights, clamped at 0. Under
   * `'apollo'`: its own `@cost` times its list size, plus its argument weights and its
   * `@join__field(requires:)` selection's fieldCost.
   */
  fieldCost: number;
  /**
   * Weight of the field's return type times the field's own list size (per enclosing instance).
   * Under `'apollo'` the same, unless the field has its own `@cost` (then 0), plus its
   * `@join__field(requires:)` selection's typeCost.
   */
  typeCost: number;
  /** How many times this field is counted (product of the enclosing list sizes). */
  multiplier: number;
  /**
   * Present when the field's `@listSize` was inferred (`inferListSizes`), naming how: the field
   * is priced as if it carried the directive the inference gives it.
   */
  inferredListSize?: 'relay';
  /**
   * Under `'github'`: the nodes one call of this connection returns (its `first` or `last`, else
   * its `assumedSize` or `defaultListSize`), so `multiplier × nodes` are the nodes it adds
   * towards GitHub's node limit. Absent under the other models.
   */
  nodes?: number;
}

/** The arguments graphql-query-complexity passes to an estimator (same shape as its own type). */
export interface ComplexityEstimatorArgs {
  type: GraphQLCompositeType;
  field: GraphQLField<unknown, unknown>;
  node: FieldNode;
  args: Record<string, unknown>;
  childComplexity: number;
  context?: Record<string, unknown>;
}

/** A graphql-query-complexity estimator (`simpleEstimator()`, `fieldExtensionsEstimator()`, ...). */
// biome-ignore lint/suspicious/noConfusingVoidType: the same type as graphql-query-complexity's, so its estimators fit.
export type ComplexityEstimator = (options: ComplexityEstimatorArgs) => number | void;

/**
 * How `@cost` / `@listSize` become a number: the IBM cost spec's static analysis, Apollo Router's
 * demand-control formula, or GitHub's rate-limit points (see {@link CostAnalyzerOptions.costModel}).
 */
export type CostModelName = 'ibm' | 'apollo' | 'github';

/** Options of {@link createCostAnalyzer}. */
export interface CostAnalyzerOptions {
  /**
   * Which formula prices an operation from the same directives.
   *
   * - `'ibm'`: the IBM "GraphQL Cost Directives" spec's static analysis (the root object and every
   *   composite field count, fields are merged as execution merges them, an interface or union is
   *   priced at its costliest member). Use it for a plain schema, or beside IBM API Connect, Hot
   *   Chocolate or Hive.
   * - `'apollo'`: Apollo Router's demand control, so that a number means the same here as in a
   *   router in front of this server: `typeCost + fieldCost` is the router's estimated cost (with
   *   `defaultListSize` as its `list_size`) and `actual()` its actual cost of the response, except
   *   where a refund guarantee of {@link ActualRequest} charges more. The root object weighs 0; a
   *   field costs `size × (weight + its selection) + its arguments`, where the weight is the
   *   field's own `@cost`, else its named type's `@cost`, else 1 for an object, interface or union
   *   and 0 for a leaf; selections are summed as written (no merging, every fragment counted); a
   *   mutation costs 10 more; a supergraph field with `@join__field(requires:)` also pays for the
   *   required selection. The split: `typeCost` holds the returned types' weights (a type's
   *   `@cost` or the default) times their counts, `fieldCost` the fields' own `@cost` weights
   *   times their counts, the argument weights and the mutation's 10.
   * - `'github'`: GitHub's GraphQL API rate-limit points, for an API that charges as GitHub does:
   *   each connection (a field whose `@listSize`, written or inferred, gives it a page size) needs
   *   one request per object it is fetched for (the product of the page sizes above it); the
   *   requests are summed, divided by 100 and rounded, and the operation costs at least 1 point
   *   (`fieldCost`; `typeCost` is 0). An operation whose connections may return more than 500,000
   *   nodes in all (the product of the page sizes down to each one, summed) is refused with
   *   `MAX_NODE_LIMIT_EXCEEDED`, as GitHub refuses it. `@cost` weights are not read.
   *   `actual()` applies the same formula to the connections the response holds. Pair it with
   *   `inferListSizes: 'relay'` for a schema that follows the connection convention without
   *   `@listSize`.
   *
   * See docs/cost-model.md ("Two cost models") for the rules side by side and a worked example.
   * @default 'ibm'
   */
  costModel?: CostModelName;
  /**
   * The supergraph SDL of an Apollo Gateway (what Apollo Server passes `schemaDidLoadOrUpdate` as
   * `coreSupergraphSdl`), whose `@cost` / `@listSize` then apply to `schema` by schema coordinate.
   * A gateway's API schema carries no directives: without this, every weight and list size of a
   * federated graph would be the default. The names are resolved through the supergraph's `@link`s
   * (composition links Apollo's cost spec). `queryBudgetPlugin` passes it when there is one.
   * @default undefined (the directives are read from `schema` itself)
   */
  supergraphSdl?: string;
  /**
   * Size assumed for a list field with no `@listSize` (or whose `@listSize` yields no size): every
   * list level of such a field counts this many items. `Infinity` makes such lists unaffordable,
   * as the IBM reference model does.
   * @default 10
   */
  defaultListSize?: number;
  /**
   * Work cap: selections visited after fragment expansion (memoized fragments count once). A larger
   * operation is rejected with `COST_ANALYSIS_LIMIT` instead of burning CPU. Also passed to
   * graphql-query-complexity as `maxQueryNodes` when `estimators` are used.
   * @default 10_000
   */
  maxNodes?: number;
  /**
   * What introspection costs. `'priced'`: `__schema`, `__type` and everything below them are priced
   * like any other selection (the IBM spec makes only `__typename` free, and it always is), each
   * introspection list at the schema's real size (its number of types, the most fields of one
   * type, …), an upper bound of what introspection returns. `'free'`: they cost nothing, which is
   * unsafe wherever introspection is enabled (nested introspection is real work for the server).
   * @default 'priced'
   */
  introspection?: 'priced' | 'free';
  /**
   * The largest list size a client may choose: a slicing argument whose value (or, for a list
   * argument, its length) is below 0 or above this is refused with `COST_LIST_SIZE_OUT_OF_RANGE`
   * before anything runs, instead of being priced. It bounds the work one token buys where the
   * spec's weights do not: a list of scalars or enums weighs 0 by default at any length, and a
   * negative `first` is priced as 0 items while resolvers read it in their own ways
   * (`items.slice(0, -1)` returns all but the last). Sizes that come from `assumedSize` or
   * `defaultListSize` are the schema's, not the client's, and are not bounded by it. With
   * `estimators` (which price lists their own way) the bound applies to the `@listSize` slicing
   * arguments all the same. `Infinity` switches the bound off (the IBM spec as written: negative
   * values count as 0, no upper bound).
   * @default 10_000
   */
  maxListSize?: number;
  /**
   * Whether a schema is refused when one of its lists is priced at `defaultListSize` for want of a
   * bound: a list field with no slicing argument, no `assumedSize` and no enclosing `sizedFields`
   * naming it, whose size changes its price (the lint rule `list-without-list-size`). The
   * analyzer then throws `CostSchemaError` naming each such field. Where every list is bounded by
   * something the schema says, a list that an error hides is charged at the size its resolver was
   * asked for, which is then the size it returns.
   * @default false
   */
  strictListSizes?: boolean;
  /**
   * Prices the lists of a schema that follows a convention instead of carrying `@listSize`.
   * `'relay'`: a field that returns a Relay connection (an object with `pageInfo` and `edges` of
   * `{ node }` and/or `nodes`) and takes an Int `first` and/or `last` is priced as if it carried
   * `@listSize(slicingArguments: ["first", "last"], sizedFields: ["edges", "nodes"],
   * requireOneSlicingArgument: false)` (naming only the arguments and lists it has), so a
   * connection costs what its `first` or `last` asks for. A `@listSize` written on the field (or on
   * the interface field it implements) always wins. Such fields are marked in the breakdown
   * (`inferredListSize`) and listed by the lint (`inferred-list-size`).
   * @default false
   */
  inferListSizes?: 'relay' | false;
  /**
   * graphql-query-complexity estimators to use instead of the `@cost` / `@listSize` directives (for
   * users migrating from it; requires the `graphql-query-complexity` package). The complexity is
   * reported as `fieldCost` with `typeCost` 0; `actual()` then returns the estimate unchanged and
   * the breakdown is empty.
   * @default undefined (the directives)
   */
  estimators?: readonly ComplexityEstimator[];
}

/** The operation to price. */
export interface CostRequest {
  /** A parsed and validated document. */
  document: DocumentNode;
  /** Required when the document holds more than one operation (unless `operation` is given). */
  operationName?: string | null;
  /**
   * The operation to price when the caller has already resolved it (Apollo Server's
   * `requestContext.operation`): one of `document`'s definitions. `operationName` is then not read.
   */
  operation?: OperationDefinitionNode;
  /** Raw request variables (not yet coerced). */
  variables?: Readonly<Record<string, unknown>> | null;
}

/** Request of {@link CostAnalyzer.estimate}. */
export interface EstimateRequest extends CostRequest {
  /** Also return the per-field breakdown. @default false */
  breakdown?: boolean;
}

/**
 * Request of {@link CostAnalyzer.actual}: the executed operation and its response. The actual cost
 * charges the work that was done, so a response's errors count, under both cost models (the
 * `'apollo'` model charges here more than Apollo Router's actual cost, which reads no errors):
 *
 * - `data` undefined (nothing was executed): 0.
 * - `data` null (an error nulled the root): the whole estimate.
 * - A field whose value is null where some error's `path` passes through or ends (a subtree an
 *   error nulled) costs what `estimate()` prices that field at that place; a null list item on
 *   such a path costs one item of the estimate. A null no error path reaches is a legitimate null:
 *   its field pays its call cost only.
 * - Mutations: every root field present in `data` ran, and costs its estimate whatever it returned
 *   (plus, under `'apollo'`, the mutation's base 10).
 */
export interface ActualRequest extends CostRequest {
  /** The response's `data`: null when an error nulled the root, undefined when nothing was executed. */
  data: Readonly<Record<string, unknown>> | null | undefined;
  /**
   * Whether parts of the response may be missing (a result delivered incrementally, its parts
   * merged so far): every field is then priced at least at its estimate at its place, and a field
   * the response lacks at its estimate, while a list longer than priced still counts in full.
   * @default false
   */
  incomplete?: boolean;
  /**
   * The response's `errors` (graphql-js `GraphQLError`s or Apollo's formatted errors): only each
   * error's `path` is read, response keys (aliases) and list indices.
   */
  errors?: ReadonlyArray<{ readonly path?: ReadonlyArray<string | number> | undefined }> | null;
}

/** The cost engine for one schema, made by {@link createCostAnalyzer}. */
export interface CostAnalyzer {
  readonly schema: GraphQLSchema;
  /**
   * The operation's variable definitions whose values can change its price (slicing arguments,
   * arguments that weigh, `@skip` / `@include`); `estimate` and `actual` read and coerce no other,
   * so a variable that prices nothing, however large, costs pricing nothing.
   */
  pricedVariables(document: DocumentNode, operation: OperationDefinitionNode): readonly VariableDefinitionNode[];
  /**
   * The static estimate of one operation, by the analyzer's `costModel`.
   * @throws {CostAnalysisError} on the work cap, unknown operation or invalid variables; and
   * `COST_QUERY_PARSE_FAILURE` when a field whose `@listSize` requires one slicing argument
   * (`requireOneSlicingArgument`, true by default) gets a value for none or for several.
   * @throws {TypeError} when the given `operation` is not one of `document`'s operations.
   */
  estimate(request: EstimateRequest): CostEstimate;
  /**
   * What the response actually cost: the same rules applied to the returned `data` (under
   * `'apollo'`, Apollo Router's actual-cost walk), with real list lengths and only non-null objects
   * counted, except for the work an error hid: `data: null`
   * costs the whole estimate, a value an error nulled (a null on one of `errors`' paths) costs its
   * estimate at that place, and a mutation's root fields cost their estimate (see
   * {@link ActualRequest}). Never more than `estimate` when every list respects its estimated size.
   * @throws {CostAnalysisError} as `estimate`.
   */
  actual(request: ActualRequest): CostEstimate;
}

/** Options of {@link estimateCost}: one operation, and the analyzer options. */
export interface EstimateCostOptions extends CostAnalyzerOptions, EstimateRequest {
  schema: GraphQLSchema;
}
