import { HeaderMap } from '@apollo/server';
import type {
  ApolloServerPlugin,
  BaseContext,
  GraphQLRequestContextDidResolveOperation,
  GraphQLRequestContextWillSendResponse,
} from '@apollo/server';
import type { GraphQLError } from 'graphql';
import { MemoryBucketStore } from '../bucket/memory-store.js';
import type { BucketPolicy, BucketResult } from '../bucket/types.js';
import { createCostAnalyzer, defaultChargedCost, type CostAnalyzer } from '../cost/analyzer.js';
import type { CostEstimate } from '../cost/types.js';
import { throttleStatusOf, type CostExtension } from './cost-extension.js';
import { EstimateCache, estimateCacheKey } from './estimate-cache.js';
import {
  budgetUnavailableError,
  costAnalysisError,
  rateLimitedError,
  retryAfterSeconds,
  tooExpensiveError,
  type ErrorHttp,
} from './errors.js';
import { GuardedStore, type Charge } from './guarded-store.js';
import { isIntrospectionOnly } from './introspection.js';
import { resolveOptions, validatePolicy, type QueryBudgetOptions } from './options.js';
import {
  formatRateLimit,
  formatRateLimitPolicy,
  RATE_LIMIT_HEADER,
  RATE_LIMIT_POLICY_HEADER,
  RETRY_AFTER_HEADER,
} from './rate-limit-headers.js';

/** What the plugin decided for one operation, kept until the response is sent. */
interface Budget {
  key: string;
  policy: BucketPolicy;
  /** Tokens charged up front. */
  requested: number;
  /** Per-field breakdown, when the debug header asked for it. */
  fields: CostEstimate['fields'];
  expose: boolean;
  /** undefined when the store was not asked (the operation was too expensive). */
  charge: Charge | undefined;
  /** The rejection (enforce mode: returned; measure mode: only reported). */
  rejection: GraphQLError | undefined;
}

type CachedEstimate = { estimate: CostEstimate } | { error: unknown };

const ZERO_COST: CostEstimate = { typeCost: 0, fieldCost: 0 };

/** A read-only store call at startup (`peek` writes nothing). */
const WARM_UP_KEY = 'graphql-budget:warm-up';
const WARM_UP_POLICY: BucketPolicy = { capacity: 1, refillPerSecond: 1 };
const WARM_UP_TIMEOUT_MS = 2000;

/**
 * Charges every operation its cost against the caller's token bucket.
 *
 * request → estimate (cost engine, cached) → consume (store behind a deadline and one circuit breaker
 * per store partition) → decision (run, or reject with 429 / 400 / 503) → after execution: actual
 * cost, one refund call, `extensions.cost` and RateLimit headers.
 */
export function queryBudgetPlugin<TContext extends BaseContext = BaseContext>(
  options: QueryBudgetOptions<TContext>,
): ApolloServerPlugin<TContext> {
  const config = resolveOptions(options);
  const store = config.store ?? new MemoryBucketStore();
  const guard = new GuardedStore({
    store,
    timeoutMs: config.storeTimeoutMs,
    breaker: config.circuitBreaker,
    fallback: config.onStoreError === 'local' ? new MemoryBucketStore() : undefined,
  });
  const charged = config.cost ?? defaultChargedCost;
  const cache = new EstimateCache<CachedEstimate>(config.estimateCacheSize);
  // A fixed policy was validated by resolveOptions; its RateLimit-Policy header never changes.
  const fixedPolicy = typeof config.policy === 'function' ? undefined : config.policy;
  const fixedPolicyHeader = fixedPolicy && formatRateLimitPolicy(config.policyName, fixedPolicy);
  let analyzer: CostAnalyzer | undefined;

  function chargeOf(estimate: CostEstimate): number {
    const value = charged(estimate);
    if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
      throw new TypeError(
        `queryBudgetPlugin: \`cost\` returned ${String(value)}; it must return a number ≥ 0 (or Infinity).`,
      );
    }
    return value;
  }

  function estimateOf(
    requestContext: GraphQLRequestContextDidResolveOperation<TContext>,
    breakdown: boolean,
  ): CostEstimate {
    if (!analyzer) throw new Error('queryBudgetPlugin: the schema has not been loaded yet.');
    const { document, request } = requestContext;
    const input = { document, operationName: request.operationName ?? null, variables: request.variables ?? null };
    if (breakdown) return analyzer.estimate({ ...input, breakdown: true });
    const key = estimateCacheKey(requestContext.queryHash, input.operationName, input.variables);
    const cached = key === undefined ? undefined : cache.get(key);
    if (cached) {
      if ('error' in cached) throw cached.error;
      return cached.estimate;
    }
    let entry: CachedEstimate;
    try {
      entry = { estimate: analyzer.estimate(input) };
    } catch (error) {
      entry = { error };
    }
    if (key !== undefined) cache.set(key, entry);
    if ('error' in entry) throw entry.error;
    return entry.estimate;
  }

  async function decide(requestContext: GraphQLRequestContextDidResolveOperation<TContext>): Promise<Budget> {
    const batched = requestContext.requestIsBatched;
    const expose =
      typeof config.exposeCost === 'function' ? config.exposeCost(requestContext) === true : config.exposeCost;
    const key = await config.identify(requestContext);
    if (typeof key !== 'string' || key.length === 0) {
      throw new TypeError(`queryBudgetPlugin: \`identify\` must return a non-empty string; got ${String(key)}.`);
    }
    let policy: BucketPolicy;
    if (typeof config.policy === 'function') {
      policy = await config.policy(requestContext);
      validatePolicy(policy, 'the policy returned by `policy`');
    } else {
      policy = config.policy; // validated by resolveOptions
    }

    const wantsFields = expose && requestContext.request.http?.headers.get(config.debugHeader) === 'fields';
    let estimate: CostEstimate;
    try {
      estimate = estimateOf(requestContext, wantsFields);
    } catch (error) {
      // The operation cannot be priced: a 400 in enforce mode; measure mode lets it run uncharged.
      const rejection = costAnalysisError(error, errorHttp(requestContext, 400));
      if (config.mode === 'enforce') throw rejection;
      return { key, policy, requested: 0, fields: undefined, expose, charge: undefined, rejection };
    }
    const { operation } = requestContext;
    const free =
      config.analyzer.introspectionIsFree === true &&
      operation !== undefined &&
      isIntrospectionOnly(requestContext.document, operation);
    const requested = free ? 0 : chargeOf(estimate);
    const budget: Budget = {
      key,
      policy,
      requested,
      fields: wantsFields ? (estimate.fields ?? []) : undefined,
      expose,
      charge: undefined,
      rejection: undefined,
    };

    const maximum = Math.min(config.maxCost ?? policy.capacity, policy.capacity);
    if (!(requested <= maximum)) {
      budget.rejection = tooExpensiveError({
        estimatedCost: requested,
        maxCost: maximum,
        http: errorHttp(requestContext, 400),
      });
      return budget;
    }

    const charge = await guard.consume(key, requested, policy, requestContext.logger);
    budget.charge = charge;
    if (charge.status === 'unavailable') {
      if (config.onStoreError === 'deny') {
        const error = budgetUnavailableError(charge.retryAfterMs, errorHttp(requestContext, 503));
        if (!batched) headersOf(error).set(RETRY_AFTER_HEADER, String(retryAfterSeconds(charge.retryAfterMs)));
        budget.rejection = error;
      }
      return budget;
    }
    const { result } = charge;
    if (!result.allowed) {
      const error = rateLimitedError({
        cost: requested,
        remaining: result.remaining,
        capacity: policy.capacity,
        refillPerSecond: policy.refillPerSecond,
        retryAfterMs: result.retryAfterMs,
        http: errorHttp(requestContext, 429),
      });
      if (!batched && result.retryAfterMs >= 0) {
        headersOf(error).set(RETRY_AFTER_HEADER, String(retryAfterSeconds(result.retryAfterMs)));
      }
      budget.rejection = error;
    }
    return budget;
  }

  /** Tokens the executed operation really cost, never more than was charged. */
  function actualOf(requestContext: GraphQLRequestContextWillSendResponse<TContext>, budget: Budget): number | null {
    if (budget.requested === 0) return 0;
    const body = requestContext.response.body;
    if (body.kind !== 'single') return null;
    const data = body.singleResult.data;
    if (data === undefined || data === null) return Math.min(budget.requested, chargeOf(ZERO_COST));
    if (!analyzer || !requestContext.document) return budget.requested;
    try {
      const actual = analyzer.actual({
        document: requestContext.document,
        operationName: requestContext.request.operationName ?? null,
        variables: requestContext.request.variables ?? null,
        data,
      });
      return Math.min(budget.requested, chargeOf(actual));
    } catch (error) {
      requestContext.logger.warn(
        `graphql-budget: could not measure the actual cost (${error instanceof Error ? error.message : String(error)}); nothing refunded.`,
      );
      return budget.requested;
    }
  }

  async function settle(
    requestContext: GraphQLRequestContextWillSendResponse<TContext>,
    budget: Budget,
  ): Promise<void> {
    const { charge } = budget;
    let bucket: BucketResult | undefined = charge?.status === 'answered' ? charge.result : undefined;
    let actual: number | null = 0;
    const tokensTaken = charge?.status === 'answered' && charge.result.allowed;
    const executed = budget.rejection === undefined || config.mode === 'measure';
    if (executed) {
      actual = actualOf(requestContext, budget);
      const refund = actual === null ? 0 : budget.requested - actual;
      if (tokensTaken && refund > 0) {
        const after = await guard.refund(charge.store, budget.key, refund, budget.policy, requestContext.logger);
        if (after) bucket = after;
      }
    }
    if (!budget.expose) return;

    const cost: CostExtension = {
      requestedQueryCost: budget.requested,
      actualQueryCost: actual,
      throttleStatus: bucket ? throttleStatusOf(bucket, budget.policy) : null,
    };
    if (config.mode === 'measure' && budget.rejection) cost.wouldReject = codeOf(budget.rejection);
    if (budget.fields) cost.fields = budget.fields;

    const body = requestContext.response.body;
    if (body.kind === 'single') {
      body.singleResult.extensions = { ...body.singleResult.extensions, cost };
    } else {
      body.initialResult.extensions = { ...body.initialResult.extensions, cost };
    }
    const headers = requestContext.response.http.headers;
    headers.set(
      RATE_LIMIT_POLICY_HEADER,
      fixedPolicyHeader !== undefined && budget.policy === fixedPolicy
        ? fixedPolicyHeader
        : formatRateLimitPolicy(config.policyName, budget.policy),
    );
    if (bucket) headers.set(RATE_LIMIT_HEADER, formatRateLimit(config.policyName, bucket));
  }

  return {
    async serverWillStart({ logger }) {
      if (config.store === undefined) {
        logger.warn(
          'graphql-budget: no `store` option, so budgets live in this process only (MemoryBucketStore) and are not ' +
            'shared between server processes. Pass a RedisBucketStore when you run more than one.',
        );
      }
      // Load the store's script and clock offset now rather than in the first request's deadline.
      // Not awaited: a store that is down at startup must not hold the server back.
      store.peek(WARM_UP_KEY, WARM_UP_POLICY, { timeoutMs: WARM_UP_TIMEOUT_MS }).catch((error: unknown) => {
        logger.debug(`graphql-budget: store warm-up failed: ${error instanceof Error ? error.message : String(error)}`);
      });
      return {
        schemaDidLoadOrUpdate({ apiSchema }) {
          analyzer = createCostAnalyzer(apiSchema, config.analyzer);
          cache.clear();
        },
      };
    },

    async requestDidStart() {
      let decision: Promise<Budget> | undefined;
      return {
        async didResolveOperation(requestContext) {
          if (!requestContext.operation) return;
          decision = decide(requestContext);
          const budget = await decision;
          if (!budget.rejection) return;
          if (config.mode === 'enforce') throw budget.rejection;
          requestContext.logger.info(
            `graphql-budget (measure mode): enforce mode would reject operation ` +
              `${requestContext.operationName ?? '(anonymous)'}: ${budget.rejection.message}`,
          );
        },

        async willSendResponse(requestContext) {
          if (!decision) return;
          // Another plugin may have rejected the operation while ours was still deciding.
          const budget = await decision.catch(() => undefined);
          if (budget) await settle(requestContext, budget);
        },
      };
    },
  };
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

function codeOf(error: GraphQLError): string {
  return String(error.extensions.code);
}
