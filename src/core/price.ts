import { printSchema, type GraphQLSchema } from 'graphql';
import {
  createPlanningAnalyzer,
  defaultChargedCost,
  type CostAnalyzerOptions,
  type PlanningCostAnalyzer,
} from '../cost/analyzer.js';
import { CostLintRule, lintCostSchema } from '../cost/cost-lint.js';
import { engineDefaults } from '../cost/engine-options.js';
import type { ResponsePlan } from '../cost/response-plan.js';
import type { CostEstimate, CostRequest, FieldCostBreakdown } from '../cost/types.js';
import { EstimateCache, estimateCacheKey, type CachedEstimate } from './estimate-cache.js';
import { costErrorRecord, type CostErrorRecord } from './errors.js';
import { isFreeIntrospection } from './introspection.js';
import type { BudgetLogger } from './logger.js';
import type { BudgetRequest, BudgetResponse } from './request.js';

/** Most entries of a per-field breakdown returned to a client. */
export const MAX_BREAKDOWN_ENTRIES = 1000;

/**
 * Most priced fields of a compiled response walk kept with an estimate; an operation with more is
 * settled by the walk itself.
 */
const MAX_PLAN_FIELDS = 5000;

/** What an operation is charged up front. */
export type Price =
  | {
      /** Tokens to take before execution. */
      readonly requested: number;
      /**
       * An operation of nothing but introspection that may be charged nothing
       * (`introspectionOnlyIsFree`); `requested` is then what it costs when it is not.
       */
      readonly free?: boolean;
      /** The operation's compiled response walk, when one was kept with its estimate. */
      readonly plan?: ResponsePlan | undefined;
      /** The per-field breakdown, when asked for (at most `MAX_BREAKDOWN_ENTRIES` entries). */
      readonly fields?: FieldCostBreakdown[];
      /** True when the breakdown had more entries than were kept. */
      readonly fieldsTruncated?: boolean;
    }
  | {
      /** The operation cannot be priced: the client's mistake (HTTP 400). */
      readonly error: CostErrorRecord;
    };

export interface PricingOptions<TArgs> {
  analyzer: CostAnalyzerOptions;
  /** The `cost` option: tokens charged for an estimate of a request. */
  cost: ((estimate: CostEstimate, request: TArgs) => number) | undefined;
  estimateCacheMaxBytes: number;
  /** Whether operations of nothing but introspection are charged nothing. */
  introspectionOnlyIsFree: boolean;
}

/** Thrown when the `cost` option returns something that is not a charge. */
export class ChargeFunctionError extends TypeError {}

/** One schema's cost table, as `load` read it. */
interface LoadedSchema {
  readonly analyzer: PlanningCostAnalyzer;
  /** The supergraph SDL of a gateway's API schema (its weights), undefined for any other schema. */
  readonly supergraphSdl: string | undefined;
  /** Names the schema in estimate-cache keys. */
  readonly id: number;
}

/**
 * Step 2 of the request path: the price. Prices operations: the estimate before execution (through
 * a byte-bounded cache), and after execution the response (see `actualCharge`).
 */
export class OperationPricer<TArgs> {
  readonly #options: PricingOptions<TArgs>;
  readonly #charged: (estimate: CostEstimate, request: TArgs) => number;
  readonly #cache: EstimateCache;
  /**
   * Every schema loaded, by schema object: an operation is priced and settled with the
   * cost table of the schema it executes against (a server may execute several at once: a schema
   * per tenant, or a schema update while operations of the previous one still run).
   */
  readonly #schemas = new WeakMap<GraphQLSchema, LoadedSchema>();
  /** The schema loaded last: the one of requests that do not name theirs. */
  #current: LoadedSchema | undefined;
  #nextId = 0;
  /** The coordinates last named by the warning about lists that weigh nothing. */
  #warnedFreeLists = '';

  constructor(options: PricingOptions<TArgs>) {
    this.#options = options;
    this.#charged = options.cost ?? defaultChargedCost;
    this.#cache = new EstimateCache(options.estimateCacheMaxBytes);
  }

  /**
   * Reads the schema's cost directives (Apollo Server's `schemaDidLoadOrUpdate`, Envelop's
   * `onSchemaChange`), or a gateway's from its supergraph SDL (its API schema has none). The schema
   * itself is only read, never changed. Loading the schema loaded last again does nothing.
   *
   * Invalid directives in the first schema throw `CostSchemaError`, so `server.start()` fails. An
   * update that arrives later (a gateway's new supergraph) cannot stop the server any more: Apollo
   * serves it whatever the plugin says. Pricing it with the previous schema's table would make
   * every new field free, so it is priced with the schema's default weights instead (every object
   * 1, every list `defaultListSize`), and the problem is logged as an error.
   *
   * Each schema is read once (a server that picks a schema per request loads each as it meets it),
   * and operations keep the table of the schema they name (`BudgetRequest.schema`).
   */
  load(schema: GraphQLSchema, supergraphSdl: string | undefined, logger: BudgetLogger): void {
    this.#current = this.#loadedOf(schema, supergraphSdl, logger);
  }

  #loadedOf(schema: GraphQLSchema, supergraphSdl: string | undefined, logger: BudgetLogger): LoadedSchema {
    const known = this.#schemas.get(schema);
    if (known !== undefined && known.supergraphSdl === supergraphSdl) return known;
    const settings =
      supergraphSdl === undefined ? this.#options.analyzer : { ...this.#options.analyzer, supergraphSdl };
    let analyzer: PlanningCostAnalyzer;
    try {
      analyzer = createPlanningAnalyzer(schema, settings);
      this.#warnAboutFreeLists(schema, supergraphSdl, logger);
    } catch (error) {
      if (this.#current === undefined) throw error;
      logger.error(
        `graphql-budget: the updated schema's cost directives are invalid, so it is priced with default weights ` +
          `until a valid one loads: ${error instanceof Error ? error.message : String(error)}`,
      );
      // printSchema leaves out applied directives: read as annotations, the copy gives every default.
      analyzer = createPlanningAnalyzer(schema, { ...this.#options.analyzer, supergraphSdl: printSchema(schema) });
    }
    const loaded: LoadedSchema = { analyzer, supergraphSdl, id: this.#nextId++ };
    this.#schemas.set(schema, loaded);
    return loaded;
  }

  /** The cost table of the schema the request executes against (read now if it was never loaded). */
  #loadedFor(request: BudgetRequest<TArgs>): LoadedSchema | undefined {
    const { schema } = request;
    if (schema === undefined) return this.#current;
    return (
      this.#schemas.get(schema) ??
      (this.#current?.supergraphSdl !== undefined ? this.#current : this.#loadedOf(schema, undefined, request.logger))
    );
  }

  /**
   * The up-front price of the operation. A cost-engine error (work cap, invalid variables, a missing
   * slicing argument) is returned as `{ error }`; anything else thrown is a server fault.
   */
  price(request: BudgetRequest<TArgs>, breakdown: boolean): Price {
    const outcome = breakdown ? this.#estimateFresh(request, true) : this.#estimateCached(request);
    if ('error' in outcome) return outcome;
    const { estimate } = outcome;
    const requested = this.chargeOf(estimate, request.args);
    if (this.#options.introspectionOnlyIsFree && isFreeIntrospection(request.document, request.operation)) {
      return { requested, free: true };
    }
    if (!breakdown) return { requested, plan: outcome.plan };
    const fields = estimate.fields ?? [];
    if (fields.length <= MAX_BREAKDOWN_ENTRIES) return { requested, fields };
    return { requested, fields: fields.slice(0, MAX_BREAKDOWN_ENTRIES), fieldsTruncated: true };
  }

  /**
   * What the response shows was done, charged as the `cost` option charges an estimate (see
   * `CostAnalyzer.actual`: every item counted, whatever its size; what an error hid at its
   * estimate; with `incomplete`, nothing below its estimate at its place); undefined when it
   * cannot be measured (logged).
   */
  actualCharge(
    request: BudgetRequest<TArgs>,
    response: BudgetResponse,
    plan: ResponsePlan | undefined,
  ): number | undefined {
    const { data, errors } = response;
    if (plan !== undefined && !response.incomplete && typeof data === 'object' && data !== null) {
      if (errors === null || errors.length === 0) return this.chargeOf(plan.cost(data), request.args);
    }
    const analyzer = this.#loadedFor(request)?.analyzer;
    if (analyzer === undefined) return undefined;
    let cost: CostEstimate;
    try {
      cost = analyzer.actual({
        ...operationOf(request),
        data: response.data,
        errors: response.errors,
        incomplete: response.incomplete,
      });
    } catch (error) {
      request.logger.warn(
        `graphql-budget: could not measure the actual cost (${error instanceof Error ? error.message : String(error)}); nothing refunded.`,
      );
      return undefined;
    }
    return this.chargeOf(cost, request.args);
  }

  /**
   * Names, once per schema that has them, the lists of scalars or enums a client sizes that weigh
   * nothing: only `maxListSize` bounds what they cost the server.
   */
  #warnAboutFreeLists(schema: GraphQLSchema, supergraphSdl: string | undefined, logger: BudgetLogger): void {
    const coordinates = lintCostSchema(schema, supergraphSdl === undefined ? {} : { supergraphSdl })
      .filter((finding) => finding.rule === CostLintRule.unweightedClientSizedLeafList)
      .map((finding) => finding.coordinate);
    const warning = coordinates.join(', ');
    if (coordinates.length === 0 || warning === this.#warnedFreeLists) return;
    this.#warnedFreeLists = warning;
    const bound = this.#options.analyzer.maxListSize ?? engineDefaults.maxListSize;
    logger.warn(
      `graphql-budget: lists of scalars or enums whose size a client chooses, without a @cost: ${warning}. ` +
        `Any length of them costs the same, so only maxListSize (${bound}) bounds their work; ` +
        'give them a @cost weight where their items are expensive to produce.',
    );
  }

  /** The schema the request's operation is priced against: its own, or the one loaded last. */
  schemaOf(request: BudgetRequest<TArgs>): GraphQLSchema | undefined {
    return this.#loadedFor(request)?.analyzer.schema;
  }

  /** The `cost` option applied to an estimate of a request, checked. */
  chargeOf(estimate: CostEstimate, args: TArgs): number {
    let value: unknown;
    try {
      value = this.#charged(estimate, args);
    } catch (error) {
      throw new ChargeFunctionError(
        `\`cost\` threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        { cause: error },
      );
    }
    if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
      throw new ChargeFunctionError(`\`cost\` returned ${String(value)}; it must return a number ≥ 0 (or Infinity).`);
    }
    return value;
  }

  #estimateCached(request: BudgetRequest<TArgs>): CachedEstimate {
    const loaded = this.#loadedFor(request);
    if (loaded === undefined) throw new Error('graphql-budget: the schema has not been loaded yet.');
    const key = estimateCacheKey(
      loaded.id,
      request.documentKey,
      request.operationName,
      loaded.analyzer.pricedVariables(request.document, request.operation),
      request.variables,
    );
    const cached = key === undefined ? undefined : this.#cache.get(key);
    if (cached !== undefined) return cached;
    const entry = this.#estimateFresh(request, false);
    if (key === undefined) return entry;
    const planned = 'estimate' in entry ? { ...entry, plan: this.#planOf(loaded.analyzer, request) } : entry;
    this.#cache.set(key, planned);
    return planned;
  }

  /** The operation's compiled response walk, kept with its estimate (undefined when there is none). */
  #planOf(analyzer: PlanningCostAnalyzer, request: BudgetRequest<TArgs>): ResponsePlan | undefined {
    try {
      return analyzer.plan(operationOf(request), MAX_PLAN_FIELDS);
    } catch (error) {
      // The estimate priced the same operation: a plan that cannot be built is only not kept.
      if (costErrorRecord(error) === undefined) throw error;
      return undefined;
    }
  }

  #estimateFresh(request: BudgetRequest<TArgs>, breakdown: boolean): CachedEstimate {
    const analyzer = this.#loadedFor(request)?.analyzer;
    if (analyzer === undefined) throw new Error('graphql-budget: the schema has not been loaded yet.');
    try {
      return {
        estimate: analyzer.estimate({ ...operationOf(request), breakdown }),
      };
    } catch (error) {
      const record = costErrorRecord(error);
      if (record === undefined) throw error;
      return { error: record };
    }
  }
}

/** The operation of a request, as the cost engine takes it. */
function operationOf<TArgs>(request: BudgetRequest<TArgs>): CostRequest {
  return {
    document: request.document,
    operation: request.operation,
    operationName: request.operationName,
    variables: request.variables ?? null,
  };
}
