import { GraphQLError, isSchema, type OperationTypeNode } from 'graphql';
import type { GraphQLSchema } from 'graphql';
import { ActualCoster } from './actual.js';
import { ApolloActualCoster } from './apollo-actual.js';
import { ApolloEstimator } from './apollo-estimate.js';
import { ApolloSelections } from './apollo-selections.js';
import { assertComplexityAvailable, complexityEstimate } from './complexity-bridge.js';
import { CostTable } from './cost-table.js';
import { CostAnalysisError, CostErrorCode } from './errors.js';
import { StaticEstimator } from './estimate.js';
import { ExecutionMeter, MeterRules } from './execution-meter.js';
import { checkListSizeBounds } from './list-size-bounds.js';
import { FieldCollector } from './field-collector.js';
import { resolveOperation, type ResolvedOperation } from './operation.js';
import { supergraphCostTable } from './supergraph.js';
import type {
  ActualRequest,
  ComplexityEstimator,
  CostAnalyzer,
  CostAnalyzerOptions,
  CostEstimate,
  CostModel,
  EstimateCostOptions,
  EstimateRequest,
} from './types.js';

export type { CostAnalyzer, CostAnalyzerOptions, CostModel } from './types.js';

interface Settings {
  readonly costModel: CostModel;
  readonly supergraphSdl: string | undefined;
  readonly defaultListSize: number;
  readonly maxNodes: number;
  readonly introspectionIsFree: boolean;
  readonly maxListSize: number;
  readonly introspectionListSizes: 'schema' | 'defaultListSize';
  readonly estimators: readonly ComplexityEstimator[] | undefined;
}

const defaults = {
  costModel: 'ibm',
  defaultListSize: 10,
  maxNodes: 10_000,
  introspectionIsFree: false,
  maxListSize: Number.POSITIVE_INFINITY,
  introspectionListSizes: 'defaultListSize',
} as const;

const tables = new WeakMap<GraphQLSchema, Map<CostModel, CostTable>>();

/** What prices the responses of one request (the IBM model's walker or Apollo Router's). */
interface ResponseCoster {
  cost(data: ActualRequest['data'], errors: ActualRequest['errors']): CostEstimate;
}

/**
 * The schema's cost table for a cost model (with a supergraph's weights when given one), read once
 * per schema object and model.
 */
export function costTableOf(
  schema: GraphQLSchema,
  supergraphSdl: string | undefined,
  costModel: CostModel = defaults.costModel,
): CostTable {
  if (supergraphSdl !== undefined) return supergraphCostTable(schema, supergraphSdl, costModel);
  let byModel = tables.get(schema);
  if (byModel === undefined) {
    byModel = new Map();
    tables.set(schema, byModel);
  }
  let table = byModel.get(costModel);
  if (table === undefined) {
    table = new CostTable(schema, schema, costModel);
    byModel.set(costModel, table);
  }
  return table;
}

/**
 * Reads the schema's `@cost` / `@listSize` directives once and returns the cost engine for it.
 *
 * @throws {TypeError | RangeError} naming the option when an option is invalid.
 * @throws {CostSchemaError} when the schema's cost directives are invalid (every problem listed,
 * each naming its `Type.field`).
 */
export function createCostAnalyzer(schema: GraphQLSchema, options: CostAnalyzerOptions = {}): CostAnalyzer {
  if (!isSchema(schema)) throw new TypeError('createCostAnalyzer: `schema` must be a GraphQLSchema.');
  const settings = readSettings(options, 'createCostAnalyzer');
  const table = costTableOf(schema, settings.supergraphSdl, settings.costModel);
  let rules: MeterRules | undefined;
  return {
    schema,
    estimate: (request) => estimateWith(table, settings, request),
    actual: (request) => actualWith(table, settings, request),
    meter(operation) {
      const rootType = schema.getRootType(operation as OperationTypeNode);
      if (!rootType) throw new TypeError(`The schema does not support ${String(operation)} operations.`);
      rules ??= new MeterRules(table);
      return new ExecutionMeter(rules, rootType);
    },
  };
}

/**
 * The static estimate of one operation (under the `costModel` chosen):
 * `createCostAnalyzer(schema, options).estimate(options)` with the schema's cost table cached per
 * schema object and cost model.
 */
export function estimateCost(options: EstimateCostOptions): CostEstimate {
  if (!isSchema(options?.schema)) throw new TypeError('estimateCost: `schema` must be a GraphQLSchema.');
  const settings = readSettings(options, 'estimateCost');
  return estimateWith(costTableOf(options.schema, settings.supergraphSdl, settings.costModel), settings, options);
}

/**
 * What the plugin charges by default: `typeCost + fieldCost`. typeCost counts the objects (and
 * weighted scalars) the response may hold, fieldCost the resolver work annotated on fields and
 * arguments; either alone misses one of the two (a list of cheap objects, or one expensive scalar
 * field).
 */
export function defaultChargedCost(estimate: CostEstimate): number {
  return estimate.typeCost + estimate.fieldCost;
}

function estimateWith(table: CostTable, settings: Settings, request: EstimateRequest): CostEstimate {
  return guarded(() => {
    const operation = resolveOperation(table.schema, request);
    if (settings.estimators !== undefined) {
      // The estimators price lists their own way; a client still may not pick a size without bound.
      checkListSizeBounds(
        table,
        operation,
        new FieldCollector(table.schema, operation, settings.maxNodes),
        settings.maxListSize,
      );
      const estimate = complexityEstimate(
        table.schema,
        operation,
        request.variables ?? {},
        settings.estimators,
        settings.maxNodes,
      );
      return request.breakdown === true ? { ...estimate, fields: [] } : estimate;
    }
    if (settings.costModel === 'apollo') {
      return apolloEstimator(table, settings, operation).estimate(request.breakdown === true);
    }
    const collector = new FieldCollector(table.schema, operation, settings.maxNodes);
    return new StaticEstimator(table, operation, collector, settings).estimate(request.breakdown === true);
  });
}

function apolloEstimator(table: CostTable, settings: Settings, operation: ResolvedOperation): ApolloEstimator {
  const selections = new ApolloSelections(table.schema, operation.fragments, settings.maxNodes);
  return new ApolloEstimator(table, operation, selections, settings);
}

/**
 * The actual cost of one response, with a walker of its own: nothing of a request is kept for the
 * next (a client could otherwise make the server keep one per variables it sends), and servers
 * that meter execution walk only the responses whose errors may hide work.
 */
function actualWith(table: CostTable, settings: Settings, request: ActualRequest): CostEstimate {
  if (settings.estimators !== undefined) return estimateWith(table, settings, { ...request, breakdown: false });
  return guarded(() => costerOf(table, settings, request).cost(request.data, request.errors));
}

function costerOf(table: CostTable, settings: Settings, request: ActualRequest): ResponseCoster {
  const operation = resolveOperation(table.schema, request);
  if (settings.costModel === 'apollo') {
    const selections = new ApolloSelections(table.schema, operation.fragments, settings.maxNodes);
    return new ApolloActualCoster(operation, selections, new ApolloEstimator(table, operation, selections, settings));
  }
  return new ActualCoster(table, operation, new FieldCollector(table.schema, operation, settings.maxNodes), settings);
}

/** Turns the two ways graphql-js can still fail on hostile input into clear request errors. */
function guarded(compute: () => CostEstimate): CostEstimate {
  try {
    return compute();
  } catch (error) {
    if (error instanceof CostAnalysisError) throw error;
    if (error instanceof RangeError && /call stack/i.test(error.message)) {
      throw new CostAnalysisError(CostErrorCode.limit, 'The operation is nested too deeply to price.');
    }
    if (error instanceof GraphQLError) {
      throw new CostAnalysisError(CostErrorCode.invalidVariables, error.message, error.nodes);
    }
    throw error;
  }
}

function readSettings(options: CostAnalyzerOptions, owner: string): Settings {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`${owner}: options must be an object.`);
  }
  const costModel = options.costModel ?? defaults.costModel;
  if (costModel !== 'ibm' && costModel !== 'apollo') {
    throw new RangeError(`${owner}: \`costModel\` must be 'ibm' or 'apollo'; got ${String(costModel)}.`);
  }
  const defaultListSize = options.defaultListSize ?? defaults.defaultListSize;
  if (typeof defaultListSize !== 'number' || Number.isNaN(defaultListSize) || defaultListSize < 0) {
    throw new RangeError(
      `${owner}: \`defaultListSize\` must be a number ≥ 0 (Infinity allowed); got ${String(defaultListSize)}.`,
    );
  }
  const maxNodes = options.maxNodes ?? defaults.maxNodes;
  if (
    typeof maxNodes !== 'number' ||
    !(maxNodes >= 1) ||
    (!Number.isInteger(maxNodes) && maxNodes !== Number.POSITIVE_INFINITY)
  ) {
    throw new RangeError(`${owner}: \`maxNodes\` must be an integer ≥ 1 (or Infinity); got ${String(maxNodes)}.`);
  }
  const introspectionIsFree = options.introspectionIsFree ?? defaults.introspectionIsFree;
  if (typeof introspectionIsFree !== 'boolean') {
    throw new TypeError(`${owner}: \`introspectionIsFree\` must be a boolean; got ${String(introspectionIsFree)}.`);
  }
  const maxListSize = options.maxListSize ?? defaults.maxListSize;
  if (typeof maxListSize !== 'number' || Number.isNaN(maxListSize) || maxListSize < 0) {
    throw new RangeError(
      `${owner}: \`maxListSize\` must be a number ≥ 0 (Infinity switches the bound off); got ${String(maxListSize)}.`,
    );
  }
  const introspectionListSizes = options.introspectionListSizes ?? defaults.introspectionListSizes;
  if (introspectionListSizes !== 'schema' && introspectionListSizes !== 'defaultListSize') {
    throw new RangeError(
      `${owner}: \`introspectionListSizes\` must be 'schema' or 'defaultListSize'; got ${String(introspectionListSizes)}.`,
    );
  }
  const estimators = options.estimators;
  if (estimators !== undefined) {
    if (!Array.isArray(estimators) || estimators.some((estimator) => typeof estimator !== 'function')) {
      throw new TypeError(`${owner}: \`estimators\` must be an array of graphql-query-complexity estimator functions.`);
    }
    if (estimators.length === 0) {
      throw new RangeError(`${owner}: \`estimators\` must hold at least one estimator.`);
    }
    if (costModel !== 'ibm') {
      throw new RangeError(
        `${owner}: \`estimators\` replace the cost directives, so they cannot be combined with \`costModel: '${costModel}'\`.`,
      );
    }
    assertComplexityAvailable(owner);
  }
  const supergraphSdl = options.supergraphSdl;
  if (supergraphSdl !== undefined && typeof supergraphSdl !== 'string') {
    throw new TypeError(
      `${owner}: \`supergraphSdl\` must be a string (a supergraph's SDL); got ${typeof supergraphSdl}.`,
    );
  }
  return {
    costModel,
    supergraphSdl,
    defaultListSize,
    maxNodes,
    introspectionIsFree,
    maxListSize,
    introspectionListSizes,
    estimators,
  };
}
