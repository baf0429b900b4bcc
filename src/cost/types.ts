import type {
  DocumentNode,
  FieldNode,
  GraphQLCompositeType,
  GraphQLField,
  GraphQLObjectType,
  GraphQLSchema,
  OperationDefinitionNode,
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
 * How `@cost` / `@listSize` become a number: the IBM cost spec's static analysis, or Apollo
 * Router's demand-control formula (see {@link CostAnalyzerOptions.costModel}).
 */
export type CostModel = 'ibm' | 'apollo';

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
   *
   * See docs/cost-model.md ("Two cost models") for the rules side by side and a worked example.
   * @default 'ibm'
   */
  costModel?: CostModel;
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
   * Whether `__schema` and `__type` and everything below them cost nothing. By default they are
   * priced like any other field, with the default weights (the IBM spec makes only `__typename`
   * free, and it always is). Unsafe wherever introspection is enabled: nested introspection
   * (`__schema { types { fields { type { fields { … } } } } }`) is real work for the server, and
   * would then cost nothing.
   * @default false
   */
  introspectionIsFree?: boolean;
  /**
   * How introspection lists (`__schema { types }`, `__Type.fields`, `__Field.args`, …) are sized:
   * `'defaultListSize'`, as any list without `@listSize` (the IBM spec as written), or `'schema'`,
   * the schema's own largest counts (its number of types, the most fields of one type, the most
   * arguments of one field, …), an upper bound of what introspection returns.
   * `queryBudgetPlugin` uses `'schema'`.
   * @default 'defaultListSize'
   */
  introspectionListSizes?: 'schema' | 'defaultListSize';
  /**
   * The largest list size a client may choose: a slicing argument whose value (or, for a list
   * argument, its length) is below 0 or above this is refused with `COST_LIST_SIZE_OUT_OF_RANGE`
   * before anything runs, instead of being priced. It bounds the work one token buys where the
   * spec's weights do not: a list of scalars or enums weighs 0 by default at any length, and a
   * negative `first` is priced as 0 items while resolvers read it in their own ways
   * (`items.slice(0, -1)` returns all but the last). Sizes that come from `assumedSize` or
   * `defaultListSize` are the schema's, not the client's, and are not bounded by it. With
   * `estimators` (which price lists their own way) the bound applies to the `@listSize` slicing
   * arguments all the same. `queryBudgetPlugin` (and everything else that charges) uses 10,000
   * unless told otherwise.
   * @default Infinity (the IBM spec as written: negative values count as 0, no upper bound)
   */
  maxListSize?: number;
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
   * The response's `errors` (graphql-js `GraphQLError`s or Apollo's formatted errors): only each
   * error's `path` is read, response keys (aliases) and list indices.
   */
  errors?: ReadonlyArray<{ readonly path?: ReadonlyArray<string | number> | undefined }> | null;
}

/** The cost engine for one schema, made by {@link createCostAnalyzer}. */
export interface CostAnalyzer {
  readonly schema: GraphQLSchema;
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
  /**
   * A meter of the work one execution of an operation of this kind (`query`, `mutation`,
   * `subscription`) does, fed as each resolver is called (graphql-budget instruments the schema's
   * metered fields, see `metersField`): each call at its field's and arguments' weights, each value a
   * resolver returns at its type's weight. It sees the work a response cannot show (under values an
   * error nulled, or finishing after the response), and starts at the root type's weight.
   */
  meter(operation: 'query' | 'mutation' | 'subscription'): OperationMeter;
  /**
   * Whether a meter counts anything for calls of `field` (its weight, its arguments', or the
   * weight of the values it returns): the fields a server's instrumentation must report to it.
   */
  metersField(field: GraphQLField<unknown, unknown>): boolean;
}

/** Options of {@link estimateCost}: one operation, and the analyzer options. */
export interface EstimateCostOptions extends CostAnalyzerOptions, EstimateRequest {
  schema: GraphQLSchema;
}

/** One resolver call as execution reports it (the parts of graphql-js `GraphQLResolveInfo` read here). */
export interface ResolvedField {
  readonly parentType: GraphQLObjectType;
  readonly fieldName: string;
  readonly fieldNodes: readonly FieldNode[];
  readonly variableValues: Readonly<Record<string, unknown>>;
}

/**
 * How one field's values are counted (the same object for every call of the field): `listDepth`
 * list levels around the named type, each value of which weighs `itemWeight`.
 */
export interface ResolvedValues {
  readonly listDepth: number;
  readonly itemWeight: number;
}

/** Where counted values go: `count(values, instances)` adds `instances` values of a field. */
export interface ValueCounter {
  count(values: ResolvedValues, instances: number): void;
}

/** The work of one execution as it happens (`CostAnalyzer.meter`). */
export interface OperationMeter extends ValueCounter {
  /**
   * Whether, for a response no error touched, the meter's cost is the response walk's to the token,
   * so the walk can be skipped (the operation must select no introspection field, not metered).
   */
  readonly exact: boolean;
  /** Calls reported so far. */
  readonly calls: number;
  /**
   * A resolver of `info.fieldName` on `info.parentType` was called with `args` (coerced): its call
   * is charged at once. Returns how its values are counted (hand them to `count`), or undefined
   * when none weighs anything.
   */
  resolving(info: ResolvedField, args: Readonly<Record<string, unknown>>): ResolvedValues | undefined;
  /** Counts `instances` non-null values of a field `resolving` answered for. */
  count(values: ResolvedValues, instances: number): void;
  /** The work metered so far. */
  readonly cost: CostEstimate;
}
