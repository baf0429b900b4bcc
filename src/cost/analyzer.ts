import { GraphQLError, isSchema, type OperationTypeNode } from 'graphql';
import type { DocumentNode, GraphQLSchema } from 'graphql';
import { ActualCoster } from './actual.js';
import { assertComplexityAvailable, complexityEstimate } from './complexity-bridge.js';
import { CostTable } from './cost-table.js';
import { CostAnalysisError, CostErrorCode } from './errors.js';
import { StaticEstimator } from './estimate.js';
import { ExecutionMeter, MeterRules } from './execution-meter.js';
import { FieldCollector } from './field-collector.js';
import { resolveOperation } from './operation.js';
import { supergraphCostTable } from './supergraph.js';
import type {
  ActualRequest,
  ComplexityEstimator,
  CostAnalyzer,
  CostAnalyzerOptions,
  CostEstimate,
  EstimateCostOptions,
  EstimateRequest,
} from './types.js';

export type { CostAnalyzer, CostAnalyzerOptions } from './types.js';

interface Settings {
  readonly supergraphSdl: string | undefined;
  readonly defaultListSize: number;
  readonly maxNodes: number;
  readonly introspectionIsFree: boolean;
  readonly maxListSize: number;
  readonly estimators: readonly ComplexityEstimator[] | undefined;
}

const defaults = {
  defaultListSize: 10,
  maxNodes: 10_000,
  introspectionIsFree: false,
  maxListSize: Number.POSITIVE_INFINITY,
} as const;

const tables = new WeakMap<GraphQLSchema, CostTable>();

/** The schema's cost table (with a supergraph's weights when given one), read once per schema object. */
export function costTableOf(schema: GraphQLSchema, supergraphSdl: string | undefined): CostTable {
  if (supergraphSdl !== undefined) return supergraphCostTable(schema, supergraphSdl);
  let table = tables.get(schema);
  if (table === undefined) {
    table = new CostTable(schema);
    tables.set(schema, table);
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
  const table = costTableOf(schema, settings.supergraphSdl);
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
 * The static IBM estimate of one operation: `createCostAnalyzer(schema, options).estimate(options)`
 * with the schema's cost table cached per schema object.
 */
export function estimateCost(options: EstimateCostOptions): CostEstimate {
  if (!isSchema(options?.schema)) throw new TypeError('estimateCost: `schema` must be a GraphQLSchema.');
  const settings = readSettings(options, 'estimateCost');
  return estimateWith(costTableOf(options.schema, settings.supergraphSdl), settings, options);
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
      const estimate = complexityEstimate(
        table.schema,
        operation,
        request.variables ?? {},
        settings.estimators,
        settings.maxNodes,
      );
      return request.breakdown === true ? { ...estimate, fields: [] } : estimate;
    }
    const collector = new FieldCollector(table.schema, operation, settings.maxNodes);
    return new StaticEstimator(table, operation, collector, settings).estimate(request.breakdown === true);
  });
}

/**
 * The actual cost of one response, with a walker of its own: nothing of a request is kept for the
 * next (a client could otherwise make the server keep one per variables it sends), and servers
 * that meter execution walk only the responses whose errors may hide work.
 */
function actualWith(table: CostTable, settings: Settings, request: ActualRequest): CostEstimate {
  if (settings.estimators !== undefined) return estimateWith(table, settings, { ...request, breakdown: false });
  return guarded(() => {
    const operation = resolveOperation(table.schema, request);
    const collector = new FieldCollector(table.schema, operation, settings.maxNodes);
    return new ActualCoster(table, operation, collector, settings).cost(request.data, request.errors);
  });
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
  const estimators = options.estimators;
  if (estimators !== undefined) {
    if (!Array.isArray(estimators) || estimators.some((estimator) => typeof estimator !== 'function')) {
      throw new TypeError(`${owner}: \`estimators\` must be an array of graphql-query-complexity estimator functions.`);
    }
    if (estimators.length === 0) {
      throw new RangeError(`${owner}: \`estimators\` must hold at least one estimator.`);
    }
    assertComplexityAvailable(owner);
  }
  const supergraphSdl = options.supergraphSdl;
  if (supergraphSdl !== undefined && typeof supergraphSdl !== 'string') {
    throw new TypeError(
      `${owner}: \`supergraphSdl\` must be a string (a supergraph's SDL); got ${typeof supergraphSdl}.`,
    );
  }
  return { supergraphSdl, defaultListSize, maxNodes, introspectionIsFree, maxListSize, estimators };
}
