import { getOperationAST, type GraphQLSchema } from 'graphql';
import { createCostAnalyzer, defaultChargedCost } from '../cost/analyzer.js';
import type { EstimateRequest, FieldCostBreakdown } from '../cost/types.js';
import { isFreeIntrospection } from '../core/introspection.js';
import { resolveOptions, type BudgetOptions } from '../core/options.js';

/** The plugin options that change what an operation is charged up front, as the command line sets them. */
export type PricingOptions = Pick<
  BudgetOptions<unknown>,
  'costModel' | 'inferListSizes' | 'defaultListSize' | 'maxListSize'
>;

/** What `queryBudgetPlugin` charges for one operation before it runs, and the estimate it comes from. */
export interface PluginPrice {
  readonly typeCost: number;
  readonly fieldCost: number;
  /**
   * The tokens the plugin takes up front (`requestedQueryCost`): `typeCost + fieldCost`, or 0 for
   * an operation of nothing but introspection where `introspectionOnlyIsFree` (by default, outside
   * `NODE_ENV=production`).
   */
  readonly cost: number;
  /** The per-field breakdown, when asked for. */
  readonly fields?: FieldCostBreakdown[];
}

/**
 * What `queryBudgetPlugin` with these options (and its default `cost`) charges for the operation
 * before it runs, on this schema (or on a gateway's API schema with its supergraph SDL): the
 * plugin's own option handling gives the cost engine's options (its `maxListSize` of 10,000, where
 * the engine alone has none) and whether introspection alone is free, `defaultChargedCost` the
 * charge.
 *
 * @throws {CostAnalysisError} where the plugin answers HTTP 400 instead of pricing the operation.
 * @throws {CostSchemaError} when the schema's cost directives are invalid (the plugin's server
 * would not start).
 */
export function pluginPrice(
  schema: GraphQLSchema,
  supergraphSdl: string | undefined,
  options: PricingOptions,
  request: EstimateRequest,
): PluginPrice {
  const resolved = resolveOptions({ identify: () => null, ...options }, 'graphql-budget price');
  const estimate = createCostAnalyzer(schema, { ...resolved.analyzer, supergraphSdl }).estimate(request);
  const operation =
    request.operation ?? getOperationAST(request.document, request.operationName ?? undefined) ?? undefined;
  const free =
    resolved.introspectionOnlyIsFree && operation !== undefined && isFreeIntrospection(request.document, operation);
  const price = {
    typeCost: estimate.typeCost,
    fieldCost: estimate.fieldCost,
    cost: free ? 0 : defaultChargedCost(estimate),
  };
  return estimate.fields === undefined ? price : { ...price, fields: estimate.fields };
}
