import { GraphQLError, isSchema } from 'graphql';
import type { DocumentNode, GraphQLSchema, OperationDefinitionNode, VariableDefinitionNode } from 'graphql';
import type { EngineSettings, PricingInput } from './cost-model.js';
import { CostTable, IBM_READING, tableKind, type TableReading } from './cost-table.js';
import { engineSettings } from './engine-options.js';
import { CostAnalysisError, CostErrorCode, CostSchemaError } from './errors.js';
import { resolveOperation } from './operation.js';
import { pricedVariables } from './priced-variables.js';
import type { ResponsePlan } from './response-plan.js';
import type { ListSizeInference } from './relay-connections.js';
import { strictListSizeProblems } from './strict-list-sizes.js';
import { supergraphCostTable } from './supergraph.js';
import type { CostAnalyzer, CostAnalyzerOptions, CostEstimate, CostRequest, EstimateCostOptions } from './types.js';

export type { CostAnalyzer, CostAnalyzerOptions, CostModelName } from './types.js';

const tables = new WeakMap<GraphQLSchema, Map<string, CostTable>>();

/**
 * The schema's cost table for a way of reading the directives and of inferring list sizes (with a
 * supergraph's weights when given one), read once per schema object, reading and inference.
 */
export function costTableOf(
  schema: GraphQLSchema,
  supergraphSdl: string | undefined,
  reading: TableReading = IBM_READING,
  inferListSizes: ListSizeInference | undefined = undefined,
): CostTable {
  if (supergraphSdl !== undefined) return supergraphCostTable(schema, supergraphSdl, reading, inferListSizes);
  let byKind = tables.get(schema);
  if (byKind === undefined) {
    byKind = new Map();
    tables.set(schema, byKind);
  }
  const kind = tableKind(reading, inferListSizes);
  let table = byKind.get(kind);
  if (table === undefined) {
    table = new CostTable(schema, schema, reading, inferListSizes);
    byKind.set(kind, table);
  }
  return table;
}

/**
 * Reads the schema's `@cost` / `@listSize` directives once and returns the cost engine for it.
 *
 * @throws {TypeError | RangeError} naming the option when an option is invalid or unknown.
 * @throws {CostSchemaError} when the schema's cost directives are invalid (every problem listed,
 * each naming its `Type.field`), or, with `strictListSizes`, when a list's size has no bound.
 */
export function createCostAnalyzer(schema: GraphQLSchema, options: CostAnalyzerOptions = {}): CostAnalyzer {
  return createPlanningAnalyzer(schema, options);
}

/** `createCostAnalyzer`, with the compiled response walk the request path keeps (`PlanningCostAnalyzer`). */
export function createPlanningAnalyzer(schema: GraphQLSchema, options: CostAnalyzerOptions = {}): PlanningCostAnalyzer {
  if (!isSchema(schema)) throw new TypeError('createCostAnalyzer: `schema` must be a GraphQLSchema.');
  const settings = engineSettings(options, 'createCostAnalyzer');
  const table = tableFor(schema, settings);
  return {
    schema,
    pricedVariables: (document, operation) => pricedDefinitions(table, settings, document, operation),
    estimate: (request) =>
      priced(() => settings.model.estimate(inputOf(table, settings, request), request.breakdown === true)),
    actual: (request) =>
      priced(() =>
        settings.model.actual(inputOf(table, settings, request), {
          data: request.data,
          errors: request.errors,
          incomplete: request.incomplete === true,
        }),
      ),
    plan: (request, maxFields) => {
      const { model } = settings;
      if (model.plan === undefined) return undefined;
      return priced(() => model.plan?.(inputOf(table, settings, request), maxFields));
    },
  };
}

/**
 * The analyzer the request path uses: beside the public methods, the compiled response walk of an
 * operation (`CostModel.plan`), kept with its estimate.
 */
export interface PlanningCostAnalyzer extends CostAnalyzer {
  plan(request: CostRequest, maxFields: number): ResponsePlan | undefined;
}

/** Request fields of `estimateCost`, beside the engine's options. */
const ESTIMATE_REQUEST = ['schema', 'document', 'operationName', 'operation', 'variables', 'breakdown'];

/**
 * The static estimate of one operation (under the `costModel` chosen):
 * `createCostAnalyzer(schema, options).estimate(options)` with the schema's cost table cached per
 * schema object.
 */
export function estimateCost(options: EstimateCostOptions): CostEstimate {
  if (!isSchema(options?.schema)) throw new TypeError('estimateCost: `schema` must be a GraphQLSchema.');
  const settings = engineSettings(options, 'estimateCost', ESTIMATE_REQUEST);
  const table = tableFor(options.schema, settings);
  return priced(() => settings.model.estimate(inputOf(table, settings, options), options.breakdown === true));
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

/** The schema's table for the settings' model, checked against `strictListSizes`. */
function tableFor(schema: GraphQLSchema, settings: EngineSettings): CostTable {
  const table = costTableOf(schema, settings.supergraphSdl, settings.model.reading, settings.inferListSizes);
  if (settings.strictListSizes) {
    const problems = strictListSizeProblems(table);
    if (problems.length > 0) throw new CostSchemaError(problems);
  }
  return table;
}

function inputOf(table: CostTable, settings: EngineSettings, request: CostRequest): PricingInput {
  const priced = (operation: OperationDefinitionNode) =>
    pricedDefinitions(table, settings, request.document, operation);
  return { table, settings, operation: resolveOperation(table.schema, request, priced) };
}

function pricedDefinitions(
  table: CostTable,
  settings: EngineSettings,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): readonly VariableDefinitionNode[] {
  return settings.model.readsEveryArgument
    ? (operation.variableDefinitions ?? [])
    : pricedVariables(table, document, operation);
}

/** Turns the two ways graphql-js can still fail on hostile input into clear request errors. */
function priced<T>(compute: () => T): T {
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
