import { HeaderMap } from '@apollo/server';
import type {
  ApolloServerPlugin,
  BaseContext,
  GraphQLRequestContextDidResolveOperation,
  GraphQLRequestContextWillSendResponse,
} from '@apollo/server';
import { GraphQLError } from 'graphql';
import { MemoryBucketStore } from '../bucket/memory-store.js';
import type { BucketPolicy, BucketResult } from '../bucket/types.js';
import type { Budget, Settlement } from './budget.js';
import { chargeBuckets, settledView, type DryRunGate } from './bucket-charge.js';
import { CostResult, DecisionNotifier } from './decision-event.js';
import { DecisionReporter } from './decision-report.js';
import {
  BudgetServerFault,
  budgetUnavailableError,
  costAnalysisError,
  dryRunLimitedError,
  internalError,
  nestedDryRunError,
  rateLimitedError,
  retryAfterSeconds,
  tooExpensiveError,
  type ErrorHttp,
} from './errors.js';
import { DenyCache } from './deny-cache.js';
import { GuardedStore } from './guarded-store.js';
import type { ResolvedLimit } from './limits.js';
import { BudgetMetrics } from './metrics.js';
import { resolveOptions, type QueryBudgetOptions } from './options.js';
import { ChargeFunctionError, OperationPricer } from './pricing.js';
import { RETRY_AFTER_HEADER } from './rate-limit-headers.js';
import { dryRunFields, executeRateLimitOnly, nestedDryRun, setRateLimitView } from './rate-limit-field.js';
import { faultMessage, RequestInputResolver } from './request-inputs.js';
import { OwedCharges } from './owed-charges.js';
import { ResponseAnnotator } from './response-annotation.js';
import { exposeBudgetHeaders } from './cors-headers.js';
import type { MeteredExecution } from './metered-execution.js';

/** A read-only store call at startup (`peek` writes nothing). */
const WARM_UP_KEY = 'graphql-budget:warm-up';
const WARM_UP_POLICY: BucketPolicy = { capacity: 1, refillPerSecond: 1 };
const WARM_UP_TIMEOUT_MS = 2000;

/**
 * Charges every operation its cost against the caller's token bucket.
 *
 * request → inputs (`skip`, `identify`, `policy`, `mode`: user code, checked; its faults are a
 * 500, never a store failure; request-inputs.ts) → price (cost engine, byte-bounded cache;
 * pricing.ts) → consume, or peek for a `rateLimit(dryRun: true)` (store behind a deadline and one
 * circuit breaker per store partition, `onStoreError` meanwhile; guarded-store.ts) → decision (run,
 * or reject with 429 / 400 / 503) → after execution: the settled charge (only work not done is
 * refunded), one refund call, `extensions.cost` and RateLimit headers (response-annotation.ts) →
 * after the response: metrics and `onDecision` (decision-report.ts).
 */
export function queryBudgetPlugin<TContext extends BaseContext = BaseContext>(
  options: QueryBudgetOptions<TContext>,
): ApolloServerPlugin<TContext> {
  const config = resolveOptions(options);
  const store = config.store ?? new MemoryBucketStore();
  const metrics = config.metrics === false ? undefined : new BudgetMetrics(config.metrics);
  const guard = new GuardedStore({
    store,
    timeoutMs: config.storeTimeoutMs,
    breaker: config.circuitBreaker,
    fallback: config.onStoreError === 'local' ? new MemoryBucketStore() : undefined,
    observer: metrics && {
      storeCall: (outcome, seconds) => metrics.recordStoreCall(outcome, seconds),
      breakerTransition: (partition, state) => metrics.recordBreakerTransition(partition, state),
    },
  });
  const owed = new OwedCharges(guard);
  const pricer = new OperationPricer<TContext>({
    analyzer: config.analyzer,
    cost: config.cost,
    estimateCacheMaxBytes: config.estimateCacheMaxBytes,
    introspectionOnlyIsFree: config.introspectionOnlyIsFree,
  });
  const inputs = new RequestInputResolver(config);
  const annotator = new ResponseAnnotator(config.policyName);
  const denyCache = config.denyCacheMaxEntries > 0 ? new DenyCache(config.denyCacheMaxEntries) : undefined;
  const reporter = new DecisionReporter(metrics);
  const dryRunGate: DryRunGate | undefined =
    config.dryRunLimit === false ? undefined : { store: new MemoryBucketStore(), policy: config.dryRunLimit };

  async function decide(requestContext: GraphQLRequestContextDidResolveOperation<TContext>): Promise<Budget> {
    const started = performance.now();
    const { skipped, key, limits, listed, mode, expose } = await inputs.resolve(requestContext);
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
      await charge(requestContext, budget);
    } finally {
      budget.decideMs = performance.now() - started;
    }
    return budget;
  }

  /** Prices the operation and charges its buckets (or, for a dry run, reads them). */
  async function charge(
    requestContext: GraphQLRequestContextDidResolveOperation<TContext>,
    budget: Budget,
  ): Promise<void> {
    const breakdown = inputs.wantsBreakdown(requestContext, budget.expose);
    const price = await priced(() => pricer.price(requestContext, breakdown));
    if ('error' in price) {
      if (budget.skipped) return;
      // The operation cannot be priced: a 400 in enforce mode; measure mode lets it run uncharged.
      budget.result = CostResult.QUERY_PARSE_FAILURE;
      budget.rejection = costAnalysisError(price.error, errorHttp(requestContext, 400));
      return;
    }
    budget.priced = true;
    budget.requested = price.requested;
    budget.free = price.free === true;
    budget.fields = price.fields;
    budget.fieldsTruncated = price.fieldsTruncated === true;
    const { limits } = budget;
    if (limits.length === 0) return; // skipped: priced for the metrics, never charged

    const maximum = inputs.maxCostOf(requestContext, limits);
    if (!(budget.requested <= maximum)) {
      budget.result = CostResult.ESTIMATED_TOO_EXPENSIVE;
      budget.rejection = tooExpensiveError({
        estimatedCost: budget.requested,
        maxCost: maximum,
        http: errorHttp(requestContext, 400),
      });
      return;
    }

    const { operation } = requestContext;
    const schema = pricer.schema;
    budget.dryRun =
      schema === undefined || operation === undefined
        ? undefined
        : dryRunFields(schema, requestContext.document, operation, requestContext.request.variables);
    if (budget.dryRun === undefined && schema !== undefined && operation !== undefined) {
      const nested = nestedDryRun(schema, requestContext.document, operation, requestContext.request.variables);
      if (nested !== undefined) {
        budget.result = CostResult.QUERY_PARSE_FAILURE;
        budget.rejection = nestedDryRunError(nested, errorHttp(requestContext, 400));
        return;
      }
    }
    const charged = await chargeBuckets({
      guard,
      denyCache,
      limits,
      cost: budget.requested,
      dryRun: budget.dryRun !== undefined,
      key: budget.key,
      gate: dryRunGate,
      logger: requestContext.logger,
    });
    const { dryRunRefused } = charged;
    if (dryRunRefused !== undefined) {
      budget.result = CostResult.RATE_LIMITED;
      const error = dryRunLimitedError({
        capacity: dryRunRefused.capacity,
        refillPerSecond: (dryRunGate as DryRunGate).policy.refillPerSecond,
        retryAfterMs: dryRunRefused.retryAfterMs,
        http: errorHttp(requestContext, 429),
      });
      if (!requestContext.requestIsBatched && dryRunRefused.retryAfterMs >= 0) {
        headersOf(error).set(RETRY_AFTER_HEADER, String(retryAfterSeconds(dryRunRefused.retryAfterMs)));
      }
      budget.rejection = error;
      return;
    }
    budget.charge = charged.charge;
    budget.view = charged.view;
    budget.deniedLocally = charged.deniedLocally;
    const { view } = charged;
    if (view === undefined) {
      budget.result = CostResult.BUDGET_UNAVAILABLE;
      const retryAfterMs = charged.charge?.status === 'unavailable' ? charged.charge.retryAfterMs : 1000;
      if (config.onStoreError === 'deny') {
        const error = budgetUnavailableError(retryAfterMs, errorHttp(requestContext, 503));
        if (!requestContext.requestIsBatched) {
          headersOf(error).set(RETRY_AFTER_HEADER, String(retryAfterSeconds(retryAfterMs)));
        }
        budget.rejection = error;
      }
      return;
    }
    const binding = limits[view.binding] as ResolvedLimit;
    const bucket = view.results[view.binding] as BucketResult;
    if (!view.allowed) {
      budget.result = CostResult.RATE_LIMITED;
      const error = rateLimitedError({
        cost: budget.requested,
        remaining: bucket.remaining,
        capacity: binding.policy.capacity,
        refillPerSecond: binding.policy.refillPerSecond,
        retryAfterMs: view.retryAfterMs,
        bucket: budget.listed ? binding.name : undefined,
        http: errorHttp(requestContext, 429),
      });
      if (!requestContext.requestIsBatched && view.retryAfterMs >= 0) {
        headersOf(error).set(RETRY_AFTER_HEADER, String(retryAfterSeconds(view.retryAfterMs)));
      }
      budget.rejection = error;
      return;
    }
    setRateLimitView(requestContext.contextValue, {
      cost: budget.requested,
      capacity: binding.policy.capacity,
      remaining: bucket.remaining,
      resetAfterMs: bucket.resetAfterMs,
      now: Date.now(),
    });
  }

  async function settle(
    requestContext: GraphQLRequestContextWillSendResponse<TContext>,
    budget: Budget,
    metered: MeteredExecution | undefined,
  ): Promise<Settlement> {
    const started = performance.now();
    const { charge, limits } = budget;
    const executed = budget.rejection === undefined || budget.mode === 'measure';
    let charged: number | null = 0;
    let actual: number | null = null;
    // An operation priced 0 is settled too (a list that came back anyway is charged), unless it was
    // free by decision (introspection alone, outside production).
    if (executed && budget.priced && !budget.dryRun && !budget.free) {
      ({ charged, actual } = pricer.settledCharge(requestContext, budget.requested, metered));
      const difference = charged === null ? 0 : budget.requested - charged;
      const tokensTaken = charge?.status === 'answered' && charge.answer.allowed;
      if (tokensTaken && metered !== undefined) {
        // Resolvers that go on after the response (an error's null does not stop them) are charged as they finish.
        const { logger } = requestContext;
        metered.settle((amount) => {
          void owed.take(charge.store, limits, amount, logger);
        });
      }
      if (tokensTaken && difference !== 0 && budget.view !== undefined) {
        // Work not done comes back; work beyond the estimate (a list longer than priced) is taken too.
        const after =
          difference > 0
            ? await guard.refund(charge.store, limits, difference, requestContext.logger)
            : await owed.take(charge.store, limits, -difference, requestContext.logger);
        if (after) budget.view = settledView(budget.view, after);
      }
    }
    if (budget.expose && config.cacheableResponses === 'unannotated') {
      // A response a shared cache may keep goes out without the caller's budget.
      if (requestContext.overallCachePolicy.policyIfCacheable()?.scope === 'PUBLIC') budget.expose = false;
    }
    if (budget.expose) annotator.annotate(requestContext, budget, charged);
    if (config.corsExposeHeaders !== false) {
      exposeBudgetHeaders(
        requestContext.request.http?.headers,
        requestContext.response.http.headers,
        config.corsExposeHeaders,
      );
    }
    return { charged, actual, executed, settleMs: performance.now() - started };
  }

  return {
    async serverWillStart({ logger }) {
      if (config.store === undefined) {
        logger.warn(
          'graphql-budget: no `store` option, so budgets live in this process only (MemoryBucketStore) and are not ' +
            'shared between server processes. Pass a RedisBucketStore when you run more than one.',
        );
      }
      if (config.onDecision !== undefined) reporter.notifier = new DecisionNotifier(config.onDecision, logger);
      metrics?.start();
      // Load the store's script and clock offset now rather than in the first request's deadline.
      // Not awaited: a store that is down at startup must not hold the server back.
      store.peek(WARM_UP_KEY, WARM_UP_POLICY, { timeoutMs: WARM_UP_TIMEOUT_MS }).catch((error: unknown) => {
        logger.debug(`graphql-budget: store warm-up failed: ${error instanceof Error ? error.message : String(error)}`);
      });
      return {
        schemaDidLoadOrUpdate({ apiSchema, coreSupergraphSdl }) {
          pricer.load(apiSchema, coreSupergraphSdl, logger);
        },
      };
    },

    async requestDidStart() {
      let decision: Promise<Budget> | undefined;
      /** The decision once made (read without awaiting where another plugin's hook runs right after ours). */
      let decided: Budget | undefined;
      let metered: MeteredExecution | undefined;
      return {
        async didResolveOperation(requestContext) {
          if (!requestContext.operation) return;
          decision = decide(requestContext);
          let budget: Budget;
          try {
            budget = await decision;
            decided = budget;
          } catch (error) {
            // A GraphQLError from `identify` or `policy` is the server's own answer to the client.
            if (error instanceof GraphQLError) throw error;
            requestContext.logger.error(`graphql-budget: ${faultMessage(error)}`);
            const mode = typeof config.mode === 'function' ? 'enforce' : config.mode;
            if (mode === 'enforce') throw internalError(errorHttp(requestContext, 500));
            return;
          }
          if (!budget.rejection) return;
          if (budget.mode === 'enforce') throw budget.rejection;
          requestContext.logger.info(
            `graphql-budget (measure mode): enforce mode would reject operation ` +
              `${requestContext.operationName ?? '(anonymous)'}: ${budget.rejection.message}`,
          );
        },

        async responseForOperation(requestContext) {
          // A dry run answers with its rateLimit fields alone; nothing else executes.
          const budget = await decision?.catch(() => undefined);
          const schema = pricer.schema;
          if (budget?.dryRun === undefined || budget.rejection !== undefined || schema === undefined) return null;
          const singleResult = await executeRateLimitOnly({
            schema,
            document: requestContext.document,
            operation: requestContext.operation,
            fields: budget.dryRun,
            variables: requestContext.request.variables,
            contextValue: requestContext.contextValue,
          });
          return { http: { headers: new HeaderMap() }, body: { kind: 'single', singleResult } };
        },

        async executionDidStart(requestContext) {
          const budget = await decision?.catch(() => undefined);
          const meter = budget?.priced === true && !budget.skipped ? pricer.meter(requestContext) : undefined;
          if (meter === undefined) return;
          metered = meter;
          return {
            willResolveField: ({ args, info }) => meter.resolving(info, args),
          };
        },

        async willSendResponse(requestContext) {
          // The response will carry this caller's budget: no shared cache may serve it to another.
          // Restricted here, before the first await: Apollo's cache control computes the
          // Cache-Control header in its own willSendResponse, which runs as soon as ours awaits (and
          // a policy restricted before execution would make it skip the schema's hints altogether).
          if (decided?.expose === true && config.cacheableResponses === 'private') {
            requestContext.overallCachePolicy.restrict({ scope: 'PRIVATE' });
          }
          if (!decision) return;
          // Another plugin may have rejected the operation while ours was still deciding.
          const budget = await decision.catch(() => undefined);
          if (budget === undefined) return;
          const settlement = await settle(requestContext, budget, metered);
          reporter.report(requestContext, budget, settlement);
        },
      };
    },
  };
}

/** Prices, turning a misbehaving `cost` option into a server fault. */
async function priced<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ChargeFunctionError) throw new BudgetServerFault(error.message, { cause: error });
    throw error;
  }
}

/** The HTTP part of a rejection; in a batch every member shares one HTTP head, so no non-2xx status there. */
function errorHttp(requestContext: GraphQLRequestContextDidResolveOperation<BaseContext>, status: number): ErrorHttp {
  return {
    status: requestContext.requestIsBatched ? (requestContext.response.http.status ?? 200) : status,
    headers: new HeaderMap(),
  };
}

function headersOf(error: GraphQLError): HeaderMap {
  return (error.extensions.http as ErrorHttp).headers;
}
