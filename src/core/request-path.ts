import { GraphQLError, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { MemoryBucketStore } from '../bucket/memory-store.js';
import type { BucketPolicy, BucketStore } from '../bucket/types.js';
import { type BudgetAnnotation, ResponseAnnotator } from './annotate.js';
import type { Budget, Settlement } from './budget.js';
import { chargeBuckets, type DryRunGate } from './charge.js';
import { Decider } from './decide.js';
import { DecisionNotifier } from './decision-event.js';
import { DenyCache } from './deny-cache.js';
import { BudgetServerFault, internalError } from './errors.js';
import { GuardedStore } from './guarded-store.js';
import { faultMessage, RequestInputResolver } from './inputs.js';
import type { BudgetLogger } from './logger.js';
import { BudgetMetrics } from './metrics.js';
import { resolveOptions, type BudgetOptions, type ResolvedBudgetOptions } from './options.js';
import { CostResult } from './outcomes.js';
import type { DebtLedger } from './debt-ledger.js';
import { sharedStoreState } from './shared-store-state.js';
import { ChargeFunctionError, OperationPricer } from './price.js';
import { dryRunFields, executeRateLimitOnly, nestedDryRun } from './rate-limit-field.js';
import { DecisionReporter } from './report.js';
import type { BudgetRequest, BudgetResponse } from './request.js';
import { Settler } from './settle.js';

/** A read-only store call at startup (`peek` writes nothing). */
const WARM_UP_KEY = 'graphql-budget:warm-up';
const WARM_UP_POLICY: BucketPolicy = { capacity: 1, refillPerSecond: 1 };
const WARM_UP_TIMEOUT_MS = 2000;
/** How long a stopping server tries to pay what callers owe the store (ms). */
const STOP_DEADLINE_MS = 5000;

/**
 * The request path, whatever the server: one budget's state (store guard, caches, metrics) and its
 * steps, one module each, in the order an operation meets them:
 *
 * 1. inputs (inputs.ts): `skip`, `identify`, `policy`, `mode` and the other per-request functions,
 *    checked; their faults are the server's (a 500), never a store failure;
 * 2. price (price.ts): the cost engine's estimate through a byte-bounded cache;
 * 3. charge (charge.ts): every bucket all-or-nothing, or a dry run's read, through the deny cache
 *    and the guarded store (deadline, a circuit breaker per partition, `onStoreError`);
 * 4. decide (decide.ts): run, or refuse with 429 / 400 / 503;
 * 5. settle (settle.ts): after execution, the charge becomes the price of the work the response
 *    shows, refunding what was not done, taking what went beyond;
 * 6. annotate (annotate.ts): `extensions.cost` and the RateLimit headers;
 * 7. report (report.ts): metrics and `onDecision`, after the response.
 *
 * An adapter (src/apollo, src/envelop, src/graphql-ws) describes its server's request as a
 * `BudgetRequest` and hands it to a `BudgetedOperation`, which calls these in turn; the adapter
 * never decides anything itself.
 */
export class RequestPath<TArgs> {
  readonly config: ResolvedBudgetOptions<TArgs>;
  readonly #owner: string;
  readonly #store: BucketStore;
  readonly #metrics: BudgetMetrics | undefined;
  readonly #guard: GuardedStore;
  /** What callers owe the store after the fact, until it takes it. */
  readonly #debts: DebtLedger;
  readonly #pricer: OperationPricer<TArgs>;
  readonly #inputs: RequestInputResolver<TArgs>;
  readonly #denyCache: DenyCache | undefined;
  readonly #dryRunGate: DryRunGate | undefined;
  /** The local limit of each caller's free introspection (`freeIntrospectionLimit`). */
  readonly #freeIntrospectionGate: DryRunGate | undefined;
  readonly #decider: Decider;
  readonly #settler: Settler<TArgs>;
  readonly #annotator: ResponseAnnotator;
  readonly #reporter: DecisionReporter;
  #started = false;

  /** `owner` names the budget in option errors and logs (`queryBudgetPlugin`, `useQueryBudget`, …). */
  constructor(options: BudgetOptions<TArgs>, owner: string) {
    const config = resolveOptions(options, owner);
    this.config = config;
    this.#owner = owner;
    this.#store = config.store ?? new MemoryBucketStore();
    const metrics = config.metrics === false ? undefined : new BudgetMetrics(config.metrics);
    this.#metrics = metrics;
    const shared = sharedStoreState(this.#store);
    this.#guard = new GuardedStore({
      store: this.#store,
      timeoutMs: config.storeTimeoutMs,
      breaker: config.circuitBreaker,
      fallback: config.onStoreError === 'local' ? shared.standIns : undefined,
      known: shared.known,
      observer: metrics && {
        storeCall: (outcome, seconds) => metrics.recordStoreCall(outcome, seconds),
        breakerTransition: (partition, state) => metrics.recordBreakerTransition(partition, state),
      },
    });
    this.#pricer = new OperationPricer<TArgs>({
      analyzer: config.analyzer,
      cost: config.cost,
      estimateCacheMaxBytes: config.estimateCacheMaxBytes,
      introspectionOnlyIsFree: config.introspectionOnlyIsFree,
    });
    this.#inputs = new RequestInputResolver(config, owner);
    this.#denyCache = config.denyCacheMaxEntries > 0 ? new DenyCache(config.denyCacheMaxEntries) : undefined;
    this.#dryRunGate =
      config.dryRunLimit === false ? undefined : { store: new MemoryBucketStore(), policy: config.dryRunLimit };
    this.#freeIntrospectionGate =
      config.freeIntrospectionLimit === false
        ? undefined
        : { store: new MemoryBucketStore(), policy: config.freeIntrospectionLimit };
    this.#decider = new Decider(config.onStoreError, this.#dryRunGate?.policy);
    this.#debts = shared.debts;
    this.#debts.attach(this.#guard);
    this.#settler = new Settler(this.#pricer, this.#guard, this.#debts);
    this.#annotator = new ResponseAnnotator(config.policyName);
    this.#reporter = new DecisionReporter(metrics);
  }

  /**
   * The server starts: warns once when budgets live in this process only, starts the metrics, and
   * warms the store up (its script and clock offset loaded now rather than in the first request's
   * deadline; not awaited, so a store that is down at startup does not hold the server back).
   */
  start(logger: BudgetLogger): void {
    if (this.#started) return;
    this.#started = true;
    if (this.config.store === undefined) {
      logger.warn(
        'graphql-budget: no `store` option, so budgets live in this process only (MemoryBucketStore) and are not ' +
          'shared between server processes. Pass a RedisBucketStore when you run more than one.',
      );
    }
    if (this.config.onDecision !== undefined) {
      this.#reporter.notifier = new DecisionNotifier(this.config.onDecision, logger);
    }
    this.#metrics?.start();
    this.#store.peek(WARM_UP_KEY, WARM_UP_POLICY, { timeoutMs: WARM_UP_TIMEOUT_MS }).catch((error: unknown) => {
      logger.debug(`graphql-budget: store warm-up failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  /**
   * The server stops: what callers still owe the store is paid, as far as the store takes it within
   * `deadlineMs` (see `DebtLedger`).
   */
  async stop(logger: BudgetLogger, deadlineMs = STOP_DEADLINE_MS): Promise<void> {
    if (this.#debts.owing) await this.#debts.settleAll(deadlineMs, logger);
  }

  /** Reads the schema's cost directives (see `OperationPricer.load`). */
  load(schema: GraphQLSchema, supergraphSdl: string | undefined, logger: BudgetLogger): void {
    this.#pricer.load(schema, supergraphSdl, logger);
  }

  /**
   * Steps 1 to 4: what happens to the operation. Throws what user code threw (a `GraphQLError` for
   * the client, or a `BudgetServerFault`); see `faultOf`.
   */
  async decide(request: BudgetRequest<TArgs>): Promise<Budget> {
    const started = performance.now();
    const { skipped, key, limits, listed, mode, expose } = await this.#inputs.resolve(request);
    const budget: Budget = {
      skipped,
      key,
      limits,
      listed,
      mode,
      expose: expose && !skipped,
      requested: 0,
      priced: false,
      free: false,
      plan: undefined,
      fields: undefined,
      fieldsTruncated: false,
      charge: undefined,
      view: undefined,
      deniedLocally: false,
      rejection: undefined,
      result: skipped ? CostResult.SKIPPED : CostResult.OK,
      dryRun: undefined,
      decideMs: 0,
    };
    try {
      await this.#priceAndCharge(request, budget);
    } finally {
      budget.decideMs = performance.now() - started;
    }
    return budget;
  }

  async #priceAndCharge(request: BudgetRequest<TArgs>, budget: Budget): Promise<void> {
    const breakdown = this.#inputs.wantsBreakdown(request, budget.expose);
    let price: ReturnType<OperationPricer<TArgs>['price']>;
    try {
      price = this.#pricer.price(request, breakdown);
    } catch (error) {
      if (error instanceof ChargeFunctionError) throw new BudgetServerFault(error.message, { cause: error });
      throw error;
    }
    if ('error' in price) {
      // Not priceable: a 400 in enforce mode; measure mode lets it run uncharged; a skipped one just runs.
      if (!budget.skipped) this.#decider.notPriced(budget, request, price.error);
      return;
    }
    budget.priced = true;
    budget.requested = price.requested;
    if (price.free === true && (await this.#mayIntrospectFree(budget.key))) {
      budget.free = true;
      budget.requested = 0;
    }
    budget.plan = price.plan;
    budget.fields = price.fields;
    budget.fieldsTruncated = price.fieldsTruncated === true;
    const { limits } = budget;
    if (limits.length === 0) return; // skipped: priced for the metrics, never charged

    const maximum = this.#inputs.maxCostOf(request, limits);
    if (!(budget.requested <= maximum)) {
      this.#decider.tooExpensive(budget, request, maximum);
      return;
    }
    const schema = this.#pricer.schemaOf(request);
    if (schema !== undefined) {
      budget.dryRun = dryRunFields(schema, request.document, request.operation, request.variables);
      if (budget.dryRun === undefined) {
        const nested = nestedDryRun(schema, request.document, request.operation, request.variables);
        if (nested !== undefined) {
          this.#decider.nestedDryRun(budget, request, nested);
          return;
        }
      }
    }
    if (budget.dryRun === undefined) await this.#debts.payFirst(limits, request.logger);
    const charged = await chargeBuckets({
      guard: this.#guard,
      denyCache: this.#denyCache,
      limits,
      cost: budget.requested,
      dryRun: budget.dryRun !== undefined,
      key: budget.key,
      gate: this.#dryRunGate,
      logger: request.logger,
    });
    this.#decider.charged(budget, request, charged);
  }

  /** Whether this caller's free introspection is within its local limit (takes one of it). */
  async #mayIntrospectFree(key: string | null): Promise<boolean> {
    const gate = this.#freeIntrospectionGate;
    if (gate === undefined || key === null) return true;
    return (await gate.store.consume(key, 1, gate.policy)).allowed;
  }

  /**
   * Steps 3 and 4 again, for the next charge of a decided operation (a subscription's next event):
   * the same caller, buckets and price, a fresh charge.
   */
  async recharge(budget: Budget, request: BudgetRequest<TArgs>): Promise<Budget> {
    const started = performance.now();
    const next: Budget = {
      ...budget,
      charge: undefined,
      view: undefined,
      deniedLocally: false,
      rejection: undefined,
      result: budget.skipped ? CostResult.SKIPPED : CostResult.OK,
      decideMs: 0,
    };
    if (!next.priced || next.limits.length === 0) return next;
    if (budget.result === CostResult.ESTIMATED_TOO_EXPENSIVE || budget.result === CostResult.QUERY_PARSE_FAILURE) {
      // Measure mode let it run without a charge; so do its events.
      return { ...next, rejection: budget.rejection, result: budget.result };
    }
    const charged = await chargeBuckets({
      guard: this.#guard,
      denyCache: this.#denyCache,
      limits: next.limits,
      cost: next.requested,
      dryRun: false,
      key: next.key,
      gate: undefined,
      logger: request.logger,
    });
    this.#decider.charged(next, request, charged);
    next.decideMs = performance.now() - started;
    return next;
  }

  /**
   * What the server returns for a decision: the rejection in enforce mode; in measure mode nothing
   * (the would-be rejection is logged, and reported as `extensions.cost.wouldReject`).
   */
  refusal(budget: Budget, request: BudgetRequest<TArgs>): GraphQLError | undefined {
    const { rejection } = budget;
    if (rejection === undefined) return undefined;
    if (budget.mode === 'enforce') return rejection;
    request.logger.info(
      `graphql-budget (measure mode): enforce mode would reject operation ` +
        `${request.operationName ?? '(anonymous)'}: ${rejection.message}`,
    );
    return undefined;
  }

  /**
   * What the server returns when `decide` threw: a `GraphQLError` from `identify` or `policy` as it
   * is (the server's own answer to the client); any other fault is logged in full and answered with
   * a generic HTTP 500 `INTERNAL_SERVER_ERROR`, unless the mode is `'measure'` (then the operation
   * runs, undecided).
   */
  faultOf(error: unknown, request: BudgetRequest<TArgs>): GraphQLError | undefined {
    if (error instanceof GraphQLError) return error;
    request.logger.error(`graphql-budget: ${faultMessage(error)}`);
    const mode = typeof this.config.mode === 'function' ? 'enforce' : this.config.mode;
    return mode === 'enforce' ? internalError(request.http(500, {})) : undefined;
  }

  /**
   * A dry run's whole result: its `rateLimit` fields alone, executed; undefined when the operation is
   * not a dry run that runs (refused, or not a dry run), so it executes as usual.
   */
  async dryRun(budget: Budget | undefined, request: BudgetRequest<TArgs>): Promise<ExecutionResult | undefined> {
    const schema = this.#pricer.schemaOf(request);
    if (budget?.dryRun === undefined || budget.rejection !== undefined || schema === undefined) return undefined;
    return executeRateLimitOnly({
      schema,
      document: request.document,
      operation: request.operation,
      fields: budget.dryRun,
      variables: request.variables,
      contextValue: request.contextValue,
    });
  }

  /** Step 5, after execution. */
  settle(budget: Budget, request: BudgetRequest<TArgs>, response: BudgetResponse): Promise<Settlement> {
    return this.#settler.settle(budget, request, response);
  }

  /** Step 6: what the response tells the caller, or undefined when it tells nothing. */
  annotation(budget: Budget, settlement: Settlement): BudgetAnnotation | undefined {
    return budget.expose ? this.#annotator.annotation(budget, settlement.charged) : undefined;
  }

  /** Step 7, after the response. */
  report(request: BudgetRequest<TArgs>, budget: Budget, settlement: Settlement): void {
    this.#reporter.report(request.operationName, budget, settlement);
  }

  /** The owner's name, for the adapters' messages. */
  get owner(): string {
    return this.#owner;
  }
}
