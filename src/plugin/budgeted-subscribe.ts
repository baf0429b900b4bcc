import {
  GraphQLError,
  createSourceEventStream,
  execute,
  type ExecutionArgs,
  type ExecutionResult,
  type OperationDefinitionNode,
  getOperationAST,
} from 'graphql';
import { MemoryBucketStore } from '../bucket/memory-store.js';
import type { BucketPolicy, BucketStore } from '../bucket/types.js';
import { defaultChargedCost } from '../cost/analyzer.js';
import type { CostAnalyzerOptions, CostEstimate } from '../cost/types.js';
import { AnalyzerCache } from './analyzer-cache.js';
import { chargeBuckets } from './bucket-charge.js';
import type { CircuitBreakerOptions } from './circuit-breaker.js';
import { DenyCache } from './deny-cache.js';
import {
  budgetUnavailableError,
  costAnalysisError,
  costErrorRecord,
  internalError,
  rateLimitedError,
  tooExpensiveError,
} from './errors.js';
import { GuardedStore, type StoreErrorPolicy } from './guarded-store.js';
import { checkKnownOptions } from './known-options.js';
import { resolveLimits, smallestCapacity, type BudgetLimit, type ResolvedLimit } from './limits.js';
import { queryBudgetDefaults } from './options.js';
import { faultMessage } from './request-inputs.js';

/** Options of `budgetedSubscribe`. Only `identify` is required. */
export interface BudgetedSubscribeOptions {
  /**
   * Who pays for the subscription and its events: the caller's bucket key, from graphql-js
   * `ExecutionArgs` (graphql-ws hands `subscribe` its `contextValue`, from the server's `context`
   * option). A `GraphQLError` thrown here is sent to the client as is; anything else thrown, or a
   * value that is not a non-empty string, refuses the subscription with a generic error (logged).
   */
  identify: (args: ExecutionArgs) => string | Promise<string>;
  /**
   * The caller's budget: one policy, a list of limits charged together (see `queryBudgetPlugin`'s
   * `policy`), or a function of `ExecutionArgs` returning either.
   * @default { capacity: 1000, refillPerSecond: 50 }
   */
  policy?:
    | BucketPolicy
    | readonly BudgetLimit[]
    | ((args: ExecutionArgs) => BucketPolicy | readonly BudgetLimit[] | Promise<BucketPolicy | readonly BudgetLimit[]>);
  /**
   * Where buckets live: the same store as the plugin's, so subscriptions and queries share budgets.
   * @default a new `MemoryBucketStore` (this process only)
   */
  store?: BucketStore;
  /**
   * The largest cost of the operation (charged when it subscribes and for each event), never above
   * the smallest capacity of its buckets.
   * @default the smallest capacity of the operation's buckets
   */
  maxCost?: number;
  /** What is charged for an estimate (and for an event's actual cost). @default `typeCost + fieldCost` */
  cost?: (estimate: CostEstimate, args: ExecutionArgs) => number;
  /**
   * Cost-engine options (`costModel`, `defaultListSize`, `maxNodes`, …), as for `createCostAnalyzer`.
   * `maxListSize` is 10,000 unless given, as in the plugin.
   */
  analyzer?: CostAnalyzerOptions;
  /** What an unavailable store means, as in the plugin. @default 'local' */
  onStoreError?: StoreErrorPolicy;
  /** Deadline of each store call (ms). @default 50 */
  storeTimeoutMs?: number;
  /** As in the plugin. @default { failureThreshold: 3, cooldownMs: 500 } */
  circuitBreaker?: CircuitBreakerOptions;
  /** Where faults of `identify`, `policy` and `cost` are logged. @default console */
  logger?: { warn(message: string): void; error(message: string): void };
}

/** `subscribe` for graphql-ws: what `budgetedSubscribe` returns. */
export type BudgetedSubscribe = (
  args: ExecutionArgs,
) => Promise<AsyncGenerator<ExecutionResult, void, unknown> | ExecutionResult>;

/**
 * A `subscribe` function for graphql-ws (`useServer({ schema, subscribe: budgetedSubscribe({ store,
 * identify, policy }) }, wsServer)`) that charges a subscription against the caller's budget: its
 * estimate when it starts (refused with the error as the operation's result), then, for each event
 * the source produces, the estimate again before the event is resolved; after the event is
 * resolved, the difference from what its resolvers returned is refunded or taken (a list longer
 * than priced is charged). The first event that cannot be paid ends the subscription: the source
 * iterator is returned, so nothing more is produced or resolved, and the client receives the
 * `RATE_LIMITED` error, then completion.
 *
 * Store calls go through the plugin's guard (deadline, circuit breaker, `onStoreError`) and deny
 * cache. Per subscription event, work that an error hides from the event's result is charged at
 * its estimate (there is no per-field hook here to meter it).
 */
export function budgetedSubscribe(options: BudgetedSubscribeOptions): BudgetedSubscribe {
  const config = checkOptions(options);
  const analyzers = new AnalyzerCache();
  const analyzerOptions: CostAnalyzerOptions = {
    maxListSize: queryBudgetDefaults.maxListSize,
    introspectionListSizes: 'schema',
    ...options.analyzer,
  };
  const store = options.store ?? new MemoryBucketStore();
  const onStoreError = options.onStoreError ?? queryBudgetDefaults.onStoreError;
  const guard = new GuardedStore({
    store,
    timeoutMs: options.storeTimeoutMs ?? queryBudgetDefaults.storeTimeoutMs,
    breaker: { ...queryBudgetDefaults.circuitBreaker, ...options.circuitBreaker },
    fallback: onStoreError === 'local' ? new MemoryBucketStore() : undefined,
  });
  const denyCache = new DenyCache(queryBudgetDefaults.denyCacheMaxEntries);
  const logger = options.logger ?? console;
  const storeLogger = {
    debug: () => {},
    info: () => {},
    warn: (message: string) => logger.warn(message),
    error: (message: string) => logger.error(message),
  };

  const charged = (estimate: CostEstimate, args: ExecutionArgs): number => {
    const value = (options.cost ?? defaultChargedCost)(estimate, args);
    if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
      throw new TypeError(`budgetedSubscribe: \`cost\` returned ${String(value)}; it must return a number ≥ 0.`);
    }
    return value;
  };

  /**
   * Charges one operation (the subscription, or one event): the store that took the tokens (undefined
   * when the store is unavailable and `onStoreError` lets it run uncharged), or the error to send.
   */
  async function pay(
    limits: ResolvedLimit[],
    cost: number,
    listed: boolean,
  ): Promise<{ store: BucketStore | undefined } | { refused: GraphQLError }> {
    const result = await chargeBuckets({
      guard,
      denyCache,
      limits,
      cost,
      dryRun: false,
      key: null,
      gate: undefined,
      logger: storeLogger,
    });
    const { view, charge } = result;
    if (view === undefined) {
      if (onStoreError !== 'deny') return { store: undefined };
      const retryAfterMs = charge?.status === 'unavailable' ? charge.retryAfterMs : 1000;
      return { refused: budgetUnavailableError(retryAfterMs) };
    }
    if (view.allowed) return { store: charge?.status === 'answered' ? charge.store : undefined };
    const binding = limits[view.binding] as ResolvedLimit;
    const refused = rateLimitedError({
      cost,
      remaining: view.results[view.binding]?.remaining ?? 0,
      capacity: binding.policy.capacity,
      refillPerSecond: binding.policy.refillPerSecond,
      retryAfterMs: view.retryAfterMs,
      bucket: listed ? binding.name : undefined,
    });
    return { refused };
  }

  return async (args) => {
    let limits: ResolvedLimit[];
    let listed: boolean;
    let requested: number;
    let operation: OperationDefinitionNode | undefined;
    const analyzer = analyzers.analyzerOf(args.schema, analyzerOptions);
    try {
      const key = await config.identify(args);
      if (typeof key !== 'string' || key.length === 0) {
        throw new TypeError(`\`identify\` must return a non-empty string; it returned ${String(key)}.`);
      }
      const policy = typeof config.policy === 'function' ? await config.policy(args) : config.policy;
      limits = resolveLimits(policy, key, 'budget');
      listed = Array.isArray(policy);
      operation = getOperationAST(args.document, args.operationName ?? undefined) ?? undefined;
      const estimate = analyzer.estimate({
        document: args.document,
        operation,
        variables: args.variableValues ?? null,
      });
      requested = charged(estimate, args);
    } catch (error) {
      const record = costErrorRecord(error);
      if (record !== undefined) return { errors: [costAnalysisError(record)] };
      if (error instanceof GraphQLError) return { errors: [error] };
      logger.error(`graphql-budget: budgetedSubscribe could not decide the budget: ${faultMessage(error)}`);
      return { errors: [internalError()] };
    }
    const maximum = Math.min(config.maxCost ?? Number.POSITIVE_INFINITY, smallestCapacity(limits));
    if (!(requested <= maximum)) return { errors: [tooExpensiveError({ estimatedCost: requested, maxCost: maximum })] };
    const subscribed = await pay(limits, requested, listed);
    if ('refused' in subscribed) return { errors: [subscribed.refused] };

    const source = await createSourceEventStream(args);
    if (!(Symbol.asyncIterator in source)) {
      // The source failed to start: its subscribe resolver ran (or was tried), and the charge stays.
      return source as ExecutionResult;
    }
    // Any async iterable (a ReadableStream has no next() of its own): its iterator.
    const events = (source as AsyncIterable<unknown>)[Symbol.asyncIterator]() as AsyncIterator<
      unknown,
      unknown,
      unknown
    >;

    /** Settles one resolved event: refunds what its resolvers did not return, takes what they returned beyond. */
    const settle = async (result: ExecutionResult, paidTo: BucketStore | undefined): Promise<void> => {
      if (paidTo === undefined || result.data === undefined || requested === 0) return;
      let actual: number;
      try {
        actual = charged(
          analyzer.actual({
            document: args.document,
            operation,
            variables: args.variableValues ?? null,
            data: result.data as Record<string, unknown> | null,
            errors: result.errors ?? null,
          }),
          args,
        );
      } catch (error) {
        logger.warn(`graphql-budget: could not measure a subscription event's cost: ${faultMessage(error)}`);
        return;
      }
      if (actual < requested) await guard.refund(paidTo, limits, requested - actual, storeLogger);
      else if (actual > requested) await guard.take(paidTo, limits, actual - requested, storeLogger);
    };

    return (async function* charge(): AsyncGenerator<ExecutionResult, void, unknown> {
      try {
        while (true) {
          const next = await events.next();
          if (next.done === true) return;
          const paid = await pay(limits, requested, listed);
          if ('refused' in paid) {
            yield { errors: [paid.refused] };
            return;
          }
          const result = await execute({ ...args, rootValue: next.value });
          await settle(result, paid.store);
          yield result;
        }
      } finally {
        await events.return?.(undefined);
      }
    })();
  };
}

const OPTION_NAMES = {
  identify: true,
  policy: true,
  store: true,
  maxCost: true,
  cost: true,
  analyzer: true,
  onStoreError: true,
  storeTimeoutMs: true,
  circuitBreaker: true,
  logger: true,
} as const satisfies Record<keyof BudgetedSubscribeOptions, true>;

interface CheckedOptions {
  identify: BudgetedSubscribeOptions['identify'];
  policy: NonNullable<BudgetedSubscribeOptions['policy']>;
  maxCost: number | undefined;
}

function checkOptions(options: BudgetedSubscribeOptions): CheckedOptions {
  if (options === null || typeof options !== 'object') {
    throw new TypeError('budgetedSubscribe: options must be an object with at least `identify`.');
  }
  checkKnownOptions('budgetedSubscribe', options, Object.keys(OPTION_NAMES));
  if (typeof options.identify !== 'function') {
    throw new TypeError(
      "budgetedSubscribe: `identify` must be a function of the ExecutionArgs returning the caller's key.",
    );
  }
  const policy = options.policy ?? queryBudgetDefaults.policy;
  if (typeof policy !== 'function') {
    try {
      resolveLimits(policy, 'caller', 'budget');
    } catch (error) {
      const problem = error as TypeError | RangeError;
      const message = `budgetedSubscribe: ${problem.message.replace(/^policy\b/, '`policy`')}.`;
      throw problem instanceof RangeError ? new RangeError(message) : new TypeError(message);
    }
  }
  const { maxCost } = options;
  if (maxCost !== undefined && !(typeof maxCost === 'number' && maxCost > 0)) {
    throw new RangeError(`budgetedSubscribe: \`maxCost\` must be a number > 0; got ${String(maxCost)}.`);
  }
  if (options.store !== undefined && typeof options.store?.consume !== 'function') {
    throw new TypeError('budgetedSubscribe: `store` must implement consume, refund and peek (a BucketStore).');
  }
  return { identify: options.identify, policy, maxCost };
}
