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
import type { FieldCostBreakdown } from '../cost/types.js';
import { throttleStatusOf, type CostExtension } from './cost-extension.js';
import {
  BudgetErrorCode,
  BudgetServerFault,
  budgetUnavailableError,
  costAnalysisError,
  internalError,
  rateLimitedError,
  retryAfterSeconds,
  tooExpensiveError,
  type ErrorHttp,
} from './errors.js';
import { GuardedStore, type Charge } from './guarded-store.js';
import { policyProblem, resolveOptions, type QueryBudgetOptions } from './options.js';
import { ChargeFunctionError, OperationPricer } from './pricing.js';
import {
  expressible,
  formatRateLimit,
  formatRateLimitPolicy,
  RATE_LIMIT_HEADER,
  RATE_LIMIT_POLICY_HEADER,
  RETRY_AFTER_HEADER,
  wholeSecondsUntil,
} from './rate-limit-headers.js';

/** What the plugin decided for one operation, kept until the response is sent. */
interface Budget {
  key: string;
  policy: BucketPolicy;
  /** Tokens charged up front. */
  requested: number;
  /** Per-field breakdown, when the caller may and did ask for it. */
  fields: FieldCostBreakdown[] | undefined;
  fieldsTruncated: boolean;
  expose: boolean;
  /** undefined when the store was not asked (the operation was too expensive or could not be priced). */
  charge: Charge | undefined;
  /** The rejection (enforce mode: returned; measure mode: only reported). */
  rejection: GraphQLError | undefined;
}

/** A read-only store call at startup (`peek` writes nothing). */
const WARM_UP_KEY = 'graphql-budget:warm-up';
const WARM_UP_POLICY: BucketPolicy = { capacity: 1, refillPerSecond: 1 };
const WARM_UP_TIMEOUT_MS = 2000;

/**
 * Charges every operation its cost against the caller's token bucket.
 *
 * request → identify and policy (user code; its faults are a 500, never a store failure) →
 * price (cost engine, byte-bounded cache) → consume (store behind a deadline and one circuit
 * breaker per store partition; `onStoreError` meanwhile) → decision (run, or reject with
 * 429 / 400 / 503) → after execution: the settled charge (only work not done is refunded), one
 * refund call, `extensions.cost` and RateLimit headers.
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
  const pricer = new OperationPricer({
    analyzer: config.analyzer,
    cost: config.cost,
    estimateCacheMaxBytes: config.estimateCacheMaxBytes,
  });
  // A fixed policy was validated by resolveOptions; its RateLimit-Policy header never changes.
  const fixedPolicy = typeof config.policy === 'function' ? undefined : config.policy;
  const fixedPolicyHeader = fixedPolicy && formatRateLimitPolicy(config.policyName, fixedPolicy);

  /** The caller's key, from `identify`. */
  async function keyOf(requestContext: GraphQLRequestContextDidResolveOperation<TContext>): Promise<string> {
    const key = await userCode('`identify`', () => config.identify(requestContext));
    if (typeof key !== 'string' || key.length === 0) {
      throw new BudgetServerFault(`\`identify\` must return a non-empty string; it returned ${describe(key)}.`);
    }
    return key;
  }

  /** The caller's policy: the fixed one, or the one `policy` returns, checked as the stores check it. */
  async function policyOf(requestContext: GraphQLRequestContextDidResolveOperation<TContext>): Promise<BucketPolicy> {
    const policyOption = config.policy;
    if (typeof policyOption !== 'function') return policyOption;
    const policy = await userCode('`policy`', () => policyOption(requestContext));
    const problem = policyProblem(policy);
    if (problem !== undefined) {
      throw new BudgetServerFault(`the policy returned by \`policy\` is invalid: ${problem.message}.`);
    }
    return policy;
  }

  function wantsBreakdown(
    requestContext: GraphQLRequestContextDidResolveOperation<TContext>,
    expose: boolean,
  ): boolean {
    if (!expose || requestContext.request.http?.headers.get(config.debugHeader) !== 'fields') return false;
    const allowed = config.fieldBreakdown;
    return typeof allowed === 'function' ? allowed(requestContext) === true : allowed;
  }

  async function decide(requestContext: GraphQLRequestContextDidResolveOperation<TContext>): Promise<Budget> {
    const expose =
      typeof config.exposeCost === 'function' ? config.exposeCost(requestContext) === true : config.exposeCost;
    const key = await keyOf(requestContext);
    const policy = await policyOf(requestContext);
    const budget: Budget = {
      key,
      policy,
      requested: 0,
      fields: undefined,
      fieldsTruncated: false,
      expose,
      charge: undefined,
      rejection: undefined,
    };

    const price = await priced(() => pricer.price(requestContext, wantsBreakdown(requestContext, expose)));
    if ('error' in price) {
      // The operation cannot be priced: a 400 in enforce mode; measure mode lets it run uncharged.
      budget.rejection = costAnalysisError(price.error, errorHttp(requestContext, 400));
      return budget;
    }
    budget.requested = price.requested;
    budget.fields = price.fields;
    budget.fieldsTruncated = price.fieldsTruncated === true;

    const maximum = Math.min(config.maxCost ?? policy.capacity, policy.capacity);
    if (!(budget.requested <= maximum)) {
      budget.rejection = tooExpensiveError({
        estimatedCost: budget.requested,
        maxCost: maximum,
        http: errorHttp(requestContext, 400),
      });
      return budget;
    }

    const charge = await guard.consume(key, budget.requested, policy, requestContext.logger);
    budget.charge = charge;
    if (charge.status === 'unavailable') {
      if (config.onStoreError === 'deny') {
        const error = budgetUnavailableError(charge.retryAfterMs, errorHttp(requestContext, 503));
        if (!requestContext.requestIsBatched) {
          headersOf(error).set(RETRY_AFTER_HEADER, String(retryAfterSeconds(charge.retryAfterMs)));
        }
        budget.rejection = error;
      }
      return budget;
    }
    const { result } = charge;
    if (!result.allowed) {
      const error = rateLimitedError({
        cost: budget.requested,
        remaining: result.remaining,
        capacity: policy.capacity,
        refillPerSecond: policy.refillPerSecond,
        retryAfterMs: result.retryAfterMs,
        http: errorHttp(requestContext, 429),
      });
      if (!requestContext.requestIsBatched && result.retryAfterMs >= 0) {
        headersOf(error).set(RETRY_AFTER_HEADER, String(retryAfterSeconds(result.retryAfterMs)));
      }
      budget.rejection = error;
    }
    return budget;
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
      actual = pricer.settledCharge(requestContext, budget.requested);
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
    if (config.mode === 'measure' && budget.rejection) cost.wouldReject = String(budget.rejection.extensions.code);
    if (budget.fields) cost.fields = budget.fields;
    if (budget.fieldsTruncated) cost.fieldsTruncated = true;

    const body = requestContext.response.body;
    if (body.kind === 'single') {
      body.singleResult.extensions = { ...body.singleResult.extensions, cost };
    } else {
      body.initialResult.extensions = { ...body.initialResult.extensions, cost };
    }
    if (!expressible(budget.policy)) return;
    const headers = requestContext.response.http.headers;
    headers.set(
      RATE_LIMIT_POLICY_HEADER,
      fixedPolicyHeader !== undefined && budget.policy === fixedPolicy
        ? fixedPolicyHeader
        : formatRateLimitPolicy(config.policyName, budget.policy),
    );
    if (bucket)
      headers.set(RATE_LIMIT_HEADER, formatRateLimit(config.policyName, bucket.remaining, resetOf(budget, bucket)));
  }

  /** `t` of the RateLimit field: on a 429 the Retry-After seconds, otherwise the seconds until full. */
  function resetOf(budget: Budget, bucket: BucketResult): number | undefined {
    const refused = config.mode === 'enforce' && budget.rejection?.extensions.code === BudgetErrorCode.RATE_LIMITED;
    if (refused) return bucket.retryAfterMs >= 0 ? retryAfterSeconds(bucket.retryAfterMs) : undefined;
    return wholeSecondsUntil(bucket.resetAfterMs);
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
        schemaDidLoadOrUpdate({ apiSchema, coreSupergraphSdl }) {
          pricer.load(apiSchema, coreSupergraphSdl, logger);
        },
      };
    },

    async requestDidStart() {
      let decision: Promise<Budget> | undefined;
      return {
        async didResolveOperation(requestContext) {
          if (!requestContext.operation) return;
          decision = decide(requestContext);
          let budget: Budget;
          try {
            budget = await decision;
          } catch (error) {
            // A GraphQLError from `identify` or `policy` is the server's own answer to the client.
            if (error instanceof GraphQLError) throw error;
            requestContext.logger.error(`graphql-budget: ${faultMessage(error)}`);
            if (config.mode === 'enforce') throw internalError(errorHttp(requestContext, 500));
            return;
          }
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

/** Runs user code; what it throws, unless a GraphQLError meant for the client, becomes a server fault naming it. */
async function userCode<T>(name: string, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof GraphQLError) throw error;
    throw new BudgetServerFault(`${name} threw: ${faultMessage(error)}`, { cause: error });
  }
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

/** A fault for the log: the message, and the stack of what was thrown when there is one. */
function faultMessage(error: unknown): string {
  if (error instanceof BudgetServerFault) return error.message;
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return String(error);
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || value === undefined) return String(value);
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
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
