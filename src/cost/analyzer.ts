import { GraphQLError, isSchema } from 'graphql';
import type { DocumentNode, GraphQLSchema } from 'graphql';
import { ActualCoster } from './actual.js';
import { ApolloActualCoster } from './apollo-actual.js';
import { ApolloEstimator } from './apollo-estimate.js';
import { ApolloSelections } from './apollo-selections.js';
import { assertComplexityAvailable, complexityEstimate } from './complexity-bridge.js';
import { CostTable } from './cost-table.js';
import { CostAnalysisError, CostErrorCode } from './errors.js';
import { StaticEstimator } from './estimate.js';
import { FieldCollector } from './field-collector.js';
import { operationIndex, resolveOperation, type ResolvedOperation } from './operation.js';
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
  readonly estimators: readonly ComplexityEstimator[] | undefined;
}

const defaults = {
  costModel: 'ibm',
  defaultListSize: 10,
  maxNodes: 10_000,
  introspectionIsFree: false,
} as const;

const tables = new WeakMap<GraphQLSchema, Map<CostModel, CostTable>>();

/** Actual-cost walkers kept per document (one per operation name and variables seen). */
const MAX_COSTERS_PER_DOCUMENT = 16;
/** Variables serialized to more characters than this get a fresh walker on every call. */
const MAX_COSTER_KEY_LENGTH = 2048;

/** What prices the responses of one request (the IBM model's walker or Apollo Router's). */
interface ResponseCoster {
  cost(data: ActualRequest['data'], errors: ActualRequest['errors']): CostEstimate;
}

/** Document → (operation name and variables → its walker); a document that is dropped takes its walkers along. */
type CosterCache = WeakMap<DocumentNode, Map<string, ResponseCoster>>;

/**
 * The schema's cost table for a cost model (with a supergraph's weights when given one), read once
 * per schema object and model.
 */
function costTableOf(schema: GraphQLSchema, settings: Settings): CostTable {
  const { supergraphSdl, costModel } = settings;
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
  const table = costTableOf(schema, settings);
  const costers: CosterCache = new WeakMap();
  return {
    schema,
    estimate: (request) => estimateWith(table, settings, request),
    actual: (request) => actualWith(table, settings, costers, request),
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
  return estimateWith(costTableOf(options.schema, settings), settings, options);
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

function actualWith(table: CostTable, settings: Settings, costers: CosterCache, request: ActualRequest): CostEstimate {
  if (settings.estimators !== undefined) return estimateWith(table, settings, { ...request, breakdown: false });
  return guarded(() => costerOf(table, settings, costers, request).cost(request.data, request.errors));
}

/**
 * The actual-cost walker of one (document, operation, variables). A walker holds only what the
 * request determines (the resolved operation, collected fields, priced field calls), so one made for
 * an earlier response of the same request prices the next one identically, without resolving,
 * collecting and pricing again. The operation is named by `operationName`, or by its position in the
 * document when it is given.
 */
function costerOf(table: CostTable, settings: Settings, costers: CosterCache, request: ActualRequest): ResponseCoster {
  const key = costerKey(operationSelector(request), request.variables);
  let forDocument = costers.get(request.document);
  const cached = key === undefined ? undefined : forDocument?.get(key);
  if (cached !== undefined) return cached;
  const operation = resolveOperation(table.schema, request);
  let coster: ResponseCoster;
  if (settings.costModel === 'apollo') {
    const selections = new ApolloSelections(table.schema, operation.fragments, settings.maxNodes);
    coster = new ApolloActualCoster(operation, selections, new ApolloEstimator(table, operation, selections, settings));
  } else {
    coster = new ActualCoster(
      table,
      operation,
      new FieldCollector(table.schema, operation, settings.maxNodes),
      settings,
    );
  }
  if (key === undefined) return coster;
  if (forDocument === undefined) {
    forDocument = new Map();
    costers.set(request.document, forDocument);
  }
  if (forDocument.size >= MAX_COSTERS_PER_DOCUMENT) forDocument.clear();
  forDocument.set(key, coster);
  return coster;
}

/**
 * What picks the operation in a walker's key: the given operation's position in the document (a
 * number), else `operationName` (a string or null); undefined for an operation that is not the
 * document's (no key: `resolveOperation` rejects it).
 */
function operationSelector(request: ActualRequest): string | number | null | undefined {
  if (request.operation === undefined) return request.operationName ?? null;
  const index = operationIndex(request.document, request.operation);
  return index === -1 ? undefined : index;
}

/**
 * The operation selector and the variables as JSON, or undefined unless the variables hold only JSON
 * values that serialize one way (strings, finite numbers other than -0, booleans, null, arrays, plain
 * objects of enumerable members none undefined): two requests with the same key then coerce to the
 * same variables.
 */
function costerKey(
  operation: string | number | null | undefined,
  variables: Readonly<Record<string, unknown>> | null | undefined,
): string | undefined {
  if (operation === undefined) return undefined;
  if (variables !== null && variables !== undefined && !isPlainJson(variables, 0)) return undefined;
  const key = JSON.stringify([operation, variables ?? null]);
  return key.length > MAX_COSTER_KEY_LENGTH ? undefined : key;
}

function isPlainJson(value: unknown, depth: number): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (typeof value !== 'object' || depth > 32) return false;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      if (!isPlainJson(value[index], depth + 1)) return false; // a hole reads as undefined
    }
    return true;
  }
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return false;
  if (Object.keys(value).length !== Object.getOwnPropertyNames(value).length) return false;
  for (const key in value) {
    if (!isPlainJson((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
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
  return { costModel, supergraphSdl, defaultListSize, maxNodes, introspectionIsFree, estimators };
}
