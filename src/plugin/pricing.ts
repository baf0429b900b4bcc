import type {
  BaseContext,
  GraphQLRequestContext,
  GraphQLRequestContextDidResolveOperation,
  GraphQLRequestContextWillSendResponse,
  GraphQLServerContext,
} from '@apollo/server';
import { printSchema, type GraphQLSchema } from 'graphql';
import {
  createCostAnalyzer,
  defaultChargedCost,
  type CostAnalyzer,
  type CostAnalyzerOptions,
} from '../cost/analyzer.js';
import { CostLintRule, lintCostSchema } from '../cost/cost-lint.js';
import type { CostEstimate, FieldCostBreakdown } from '../cost/types.js';
import { EstimateCache, estimateCacheKey, type CachedEstimate } from './estimate-cache.js';
import { costErrorRecord, type CostErrorRecord } from './errors.js';
import { isIntrospectionOnly, selectsIntrospection } from './introspection.js';
import { MeteredExecution } from './metered-execution.js';

type Logger = GraphQLServerContext['logger'];

/** Most entries of a per-field breakdown returned to a client. */
export const MAX_BREAKDOWN_ENTRIES = 1000;

/** What an operation is charged up front. */
export type Price =
  | {
      /** Tokens to take before execution. */
      readonly requested: number;
      /** An operation of nothing but introspection that is charged nothing (`introspectionOnlyIsFree`). */
      readonly free?: boolean;
      /** The per-field breakdown, when asked for (at most `MAX_BREAKDOWN_ENTRIES` entries). */
      readonly fields?: FieldCostBreakdown[];
      /** True when the breakdown had more entries than were kept. */
      readonly fieldsTruncated?: boolean;
    }
  | {
      /** The operation cannot be priced: the client's mistake (HTTP 400). */
      readonly error: CostErrorRecord;
    };

export interface PricingOptions<TContext extends BaseContext> {
  analyzer: CostAnalyzerOptions;
  /** The `cost` option: tokens charged for an estimate of a request. */
  cost: ((estimate: CostEstimate, requestContext: GraphQLRequestContext<TContext>) => number) | undefined;
  estimateCacheMaxBytes: number;
  /** Whether operations of nothing but introspection are charged nothing. */
  introspectionOnlyIsFree: boolean;
}

/** Thrown when the `cost` option returns something that is not a charge. */
export class ChargeFunctionError extends TypeError {}

/**
 * Prices operations for the plugin: the estimate before execution (through a byte-bounded cache),
 * and after execution what the operation is finally charged.
 *
 * After execution (see `settledCharge`), only work that was not done is refunded: a response with no
 * `data` at all never executed (rejected by another plugin, or variables that fail coercion) and
 * is refunded in full; otherwise the cost engine's actual cost prices subtrees nulled by an error
 * at their estimate and root mutation fields that ran at their estimate, so only list shortfalls in
 * healthy subtrees come back.
 */
export class OperationPricer<TContext extends BaseContext> {
  readonly #options: PricingOptions<TContext>;
  readonly #charged: (estimate: CostEstimate, requestContext: GraphQLRequestContext<TContext>) => number;
  readonly #cache: EstimateCache;
  #analyzer: CostAnalyzer | undefined;
  /** Whether the schema is a gateway's (a supergraph's API schema). */
  #gateway = false;
  /** The coordinates last named by the warning about lists that weigh nothing. */
  #warnedFreeLists = '';

  constructor(options: PricingOptions<TContext>) {
    this.#options = options;
    this.#charged = options.cost ?? defaultChargedCost;
    this.#cache = new EstimateCache(options.estimateCacheMaxBytes);
  }

  /**
   * Reads the schema's cost directives (`schemaDidLoadOrUpdate`), or a gateway's from its supergraph
   * SDL (its API schema has none).
   *
   * Invalid directives in the first schema throw `CostSchemaError`, so `server.start()` fails. An
   * update that arrives later (a gateway's new supergraph) cannot stop the server any more: Apollo
   * serves it whatever the plugin says. Pricing it with the previous schema's table would make
   * every new field free, so it is priced with the schema's default weights instead (every object
   * 1, every list `defaultListSize`), and the problem is logged as an error.
   */
  load(schema: GraphQLSchema, supergraphSdl: string | undefined, logger: Logger): void {
    this.#gateway = supergraphSdl !== undefined;
    const analyzer =
      supergraphSdl === undefined ? this.#options.analyzer : { ...this.#options.analyzer, supergraphSdl };
    try {
      this.#analyzer = createCostAnalyzer(schema, analyzer);
      this.#warnAboutFreeLists(schema, supergraphSdl, logger);
    } catch (error) {
      if (this.#analyzer === undefined) throw error;
      logger.error(
        `graphql-budget: the updated schema's cost directives are invalid, so it is priced with default weights ` +
          `until a valid one loads: ${error instanceof Error ? error.message : String(error)}`,
      );
      // printSchema leaves out applied directives: read as annotations, the copy gives every default.
      this.#analyzer = createCostAnalyzer(schema, { ...this.#options.analyzer, supergraphSdl: printSchema(schema) });
    }
    this.#cache.clear();
  }

  /**
   * The up-front price of the operation. A cost-engine error (work cap, invalid variables, a missing
   * slicing argument) is returned as `{ error }`; anything else thrown is a server fault.
   */
  async price(requestContext: GraphQLRequestContextDidResolveOperation<TContext>, breakdown: boolean): Promise<Price> {
    const outcome = breakdown ? this.#estimateFresh(requestContext, true) : await this.#estimateCached(requestContext);
    if ('error' in outcome) return outcome;
    const { estimate } = outcome;
    const { operation } = requestContext;
    const free =
      this.#options.introspectionOnlyIsFree &&
      operation !== undefined &&
      isIntrospectionOnly(requestContext.document, operation);
    if (free) return { requested: 0, free: true };
    const requested = this.chargeOf(estimate, requestContext);
    if (!breakdown) return { requested };
    const fields = estimate.fields ?? [];
    if (fields.length <= MAX_BREAKDOWN_ENTRIES) return { requested, fields };
    return { requested, fields: fields.slice(0, MAX_BREAKDOWN_ENTRIES), fieldsTruncated: true };
  }

  /**
   * What the executed operation is finally charged (`charged`: the work its resolvers did, which a
   * list longer than it was priced for puts above `requested`, and the excess is then charged too;
   * null when it cannot be measured, as with incremental delivery, and then nothing is refunded),
   * and its actual cost (`actual`; null when nothing was measured).
   *
   * Where no error touched the response and the execution's meter is exact (`MeteredExecution`),
   * the meter's count is the charge. Otherwise the response is walked (`CostAnalyzer.actual`:
   * real list lengths, runtime types, work an error hid at its estimate), and where an error may
   * hide work the charge is at least what the meter saw the resolvers do.
   */
  settledCharge(
    requestContext: GraphQLRequestContextWillSendResponse<TContext>,
    requested: number,
    metered: MeteredExecution | undefined,
  ): { charged: number | null; actual: number | null } {
    const body = requestContext.response.body;
    if (body.kind !== 'single') return { charged: null, actual: null };
    const { data } = body.singleResult;
    // graphql-js returns no `data` only when it ran no resolver: nothing was done.
    if (data === undefined) return { charged: 0, actual: null };
    // The raw errors keep their paths even where a `formatError` strips them from the response.
    const errors = requestContext.errors ?? body.singleResult.errors ?? null;
    const hidden = data === null || (errors !== null && errors.length > 0);
    if (!hidden && metered?.exact === true) {
      const charged = metered.charged();
      return { charged, actual: charged };
    }
    const walked = this.#walk(requestContext, data, errors);
    if (walked === undefined) return { charged: requested, actual: null };
    const charged = hidden && metered !== undefined ? Math.max(walked, metered.charged()) : walked;
    return { charged, actual: charged };
  }

  /** The actual cost from the response, charged; undefined when it cannot be measured. */
  #walk(
    requestContext: GraphQLRequestContextWillSendResponse<TContext>,
    data: Readonly<Record<string, unknown>> | null,
    errors: readonly { readonly path?: readonly (string | number)[] | undefined }[] | null,
  ): number | undefined {
    const analyzer = this.#analyzer;
    if (analyzer === undefined || requestContext.document === undefined) return undefined;
    let cost: CostEstimate;
    try {
      cost = analyzer.actual({
        document: requestContext.document,
        operation: requestContext.operation,
        operationName: requestContext.request.operationName ?? null,
        variables: requestContext.request.variables ?? null,
        data,
        errors,
      });
    } catch (error) {
      requestContext.logger.warn(
        `graphql-budget: could not measure the actual cost (${error instanceof Error ? error.message : String(error)}); nothing refunded.`,
      );
      return undefined;
    }
    return this.chargeOf(cost, requestContext);
  }

  /**
   * Names, once per schema that has them, the lists of scalars or enums a client sizes that weigh
   * nothing: only `maxListSize` bounds what they cost the server.
   */
  #warnAboutFreeLists(schema: GraphQLSchema, supergraphSdl: string | undefined, logger: Logger): void {
    const coordinates = lintCostSchema(schema, supergraphSdl === undefined ? {} : { supergraphSdl })
      .filter((finding) => finding.rule === CostLintRule.unweightedClientSizedLeafList)
      .map((finding) => finding.coordinate);
    const warning = coordinates.join(', ');
    if (coordinates.length === 0 || warning === this.#warnedFreeLists) return;
    this.#warnedFreeLists = warning;
    const bound = this.#options.analyzer.maxListSize ?? Number.POSITIVE_INFINITY;
    logger.warn(
      `graphql-budget: lists of scalars or enums whose size a client chooses, without a @cost: ${warning}. ` +
        `Any length of them costs the same, so only maxListSize (${bound}) bounds their work; ` +
        'give them a @cost weight where their items are expensive to produce.',
    );
  }

  /**
   * A meter for the execution of the request's operation, whose work is charged as the `cost` option
   * charges an estimate; undefined before the schema loads, for a gateway (its resolvers run in the
   * subgraphs, so its hook sees nothing), and with `estimators` (which price their own way).
   */
  meter(requestContext: GraphQLRequestContext<TContext>): MeteredExecution | undefined {
    const analyzer = this.#analyzer;
    const operation = requestContext.operation;
    if (analyzer === undefined || operation === undefined || this.#gateway || this.#options.analyzer.estimators) {
      return undefined;
    }
    const meter = analyzer.meter(operation.operation);
    // Introspection fields are not reported to the meter, and a mutation's root fields cost at least their estimate.
    const exact =
      meter.exact &&
      operation.operation === 'query' &&
      (requestContext.document === undefined || !selectsIntrospection(requestContext.document, operation));
    return new MeteredExecution(meter, exact, (cost) => this.chargeOf(cost, requestContext));
  }

  /** The schema the operations are priced against (after `load`). */
  get schema(): GraphQLSchema | undefined {
    return this.#analyzer?.schema;
  }

  /** The `cost` option applied to an estimate of a request, checked. */
  chargeOf(estimate: CostEstimate, requestContext: GraphQLRequestContext<TContext>): number {
    let value: unknown;
    try {
      value = this.#charged(estimate, requestContext);
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

  async #estimateCached(requestContext: GraphQLRequestContextDidResolveOperation<TContext>): Promise<CachedEstimate> {
    const { request, operation } = requestContext;
    const key =
      operation === undefined
        ? undefined
        : estimateCacheKey(requestContext.queryHash, request.operationName, operation, request.variables);
    const cached = key === undefined ? undefined : await this.#cache.get(key);
    if (cached !== undefined) return cached;
    const entry = this.#estimateFresh(requestContext, false);
    if (key !== undefined) this.#cache.set(key, entry);
    return entry;
  }

  #estimateFresh(
    requestContext: GraphQLRequestContextDidResolveOperation<TContext>,
    breakdown: boolean,
  ): CachedEstimate {
    const analyzer = this.#analyzer;
    if (analyzer === undefined) throw new Error('queryBudgetPlugin: the schema has not been loaded yet.');
    const { document, request } = requestContext;
    try {
      return {
        estimate: analyzer.estimate({
          document,
          operation: requestContext.operation,
          operationName: request.operationName ?? null,
          variables: request.variables ?? null,
          breakdown,
        }),
      };
    } catch (error) {
      const record = costErrorRecord(error);
      if (record === undefined) throw error;
      return { error: record };
    }
  }
}
