import type { BaseContext, GraphQLRequestContext, GraphQLRequestContextDidResolveOperation } from '@apollo/server';
import type { BucketPolicy, BucketStore } from '../bucket/types.js';
import type { CostEstimate } from '../cost/types.js';
import type { CostAnalyzerOptions } from '../cost/analyzer.js';
import type { CircuitBreakerOptions } from './circuit-breaker.js';
import type { StoreErrorPolicy } from './guarded-store.js';
import { POLICY_NAME_PATTERN } from './rate-limit-headers.js';

/** `'enforce'` rejects what does not fit; `'measure'` charges the same way but never rejects. */
export type BudgetMode = 'enforce' | 'measure';

/** Options of `queryBudgetPlugin`. Only `identify` is required. */
export interface QueryBudgetOptions<TContext extends BaseContext = BaseContext> {
  /**
   * Who pays for the operation: the key of the caller's bucket (any string; the store maps it to a
   * safe key). Required: there is no safe default. Derive it from something the server verified
   * (the authenticated user or API key in your context), never from a header the client controls.
   * For anonymous callers, key by the client address read in your context function from
   * `req.socket.remoteAddress` (or from `X-Forwarded-For` only as written by your own proxy).
   * A `GraphQLError` thrown here is returned to the client as is.
   */
  identify: (requestContext: GraphQLRequestContextDidResolveOperation<TContext>) => string | Promise<string>;
  /**
   * The caller's bucket: a fixed policy, or a function of the request for tiers (free vs paid).
   * @default { capacity: 1000, refillPerSecond: 50 }
   */
  policy?:
    | BucketPolicy
    | ((requestContext: GraphQLRequestContextDidResolveOperation<TContext>) => BucketPolicy | Promise<BucketPolicy>);
  /**
   * Where buckets live. Use a `RedisBucketStore` when more than one server process serves the API.
   * @default a new `MemoryBucketStore` (this process only; a warning is logged once at startup)
   */
  store?: BucketStore;
  /**
   * `'enforce'`: reject operations that do not fit (429, 400). `'measure'`: a dark launch; the same
   * store calls are made (so buckets evolve exactly as under enforce), nothing is rejected, and the
   * would-be rejection is logged and reported as `extensions.cost.wouldReject`.
   * @default 'enforce'
   */
  mode?: BudgetMode;
  /**
   * The largest cost one operation may have; above it the operation is rejected with HTTP 400
   * `COST_ESTIMATED_TOO_EXPENSIVE` before any token is taken. It is also capped by the policy's
   * capacity (a bigger operation could never be paid for).
   * @default the policy's capacity
   */
  maxCost?: number;
  /**
   * What an operation is charged, from its estimate (and, after execution, from its actual cost).
   * Must return a finite number ≥ 0, or `Infinity` (treated as too expensive).
   * @default `typeCost + fieldCost`
   */
  cost?: (estimate: CostEstimate) => number;
  /**
   * Size assumed for a list field without `@listSize` or slicing argument (cost engine option).
   * @default 10
   */
  defaultListSize?: number;
  /**
   * Work cap of the cost engine: selections visited after fragment expansion. A larger operation is
   * rejected with HTTP 400 and the cost engine's code `COST_ANALYSIS_LIMIT`.
   * @default 10000
   */
  maxNodes?: number;
  /**
   * Introspection fields (`__schema`, `__type`) and `__typename` cost nothing.
   * @default true
   */
  introspectionIsFree?: boolean;
  /**
   * graphql-query-complexity estimators used instead of the `@cost` / `@listSize` directives.
   * @default undefined (the directives)
   */
  estimators?: CostAnalyzerOptions['estimators'];
  /**
   * What happens when the store errors or misses `storeTimeoutMs`: `'allow'` lets the operation run
   * uncharged (`throttleStatus: null`); `'deny'` rejects it with HTTP 503 `BUDGET_UNAVAILABLE`;
   * `'local'` charges an in-process `MemoryBucketStore` with the same policy meanwhile.
   * @default 'allow'
   */
  onStoreError?: StoreErrorPolicy;
  /**
   * Deadline of each store call (ms). The store rejects a call that misses it, and a command that
   * reaches Redis later has no effect, so a late answer never charges.
   * @default 50
   */
  storeTimeoutMs?: number;
  /**
   * When to stop calling a failing store and when to probe it again. The plugin keeps one breaker
   * per partition of the store (`BucketStore.partitionOf`; for a `RedisBucketStore` over a Cluster,
   * the master serving the key's slot), so a failing Cluster master stops only the calls for the
   * buckets it holds. A store without partitions has one breaker.
   * @default { failureThreshold: 3, cooldownMs: 500 }
   */
  circuitBreaker?: CircuitBreakerOptions;
  /**
   * Whether responses carry `extensions.cost` and the `RateLimit` / `RateLimit-Policy` headers.
   * `Retry-After` is always sent with a 429 or 503.
   * @default true
   */
  exposeCost?: boolean | ((requestContext: GraphQLRequestContext<TContext>) => boolean);
  /**
   * The policy name in the RateLimit headers (letters, digits, `_ . : -`; at most 64).
   * @default 'budget'
   */
  policyName?: string;
  /**
   * Request header that, set to `fields`, adds the per-field cost breakdown to `extensions.cost.fields`
   * (only when `exposeCost` is true). Lower case.
   * @default 'graphql-budget-debug'
   */
  debugHeader?: string;
  /**
   * Estimates kept in memory, keyed by (document hash, operation name, variables).
   * 0 disables the cache.
   * @default 1000
   */
  estimateCacheSize?: number;
}

/** The defaults of every optional option. */
export const queryBudgetDefaults = {
  policy: { capacity: 1000, refillPerSecond: 50 },
  mode: 'enforce',
  introspectionIsFree: true,
  onStoreError: 'allow',
  storeTimeoutMs: 50,
  circuitBreaker: { failureThreshold: 3, cooldownMs: 500 },
  exposeCost: true,
  policyName: 'budget',
  debugHeader: 'graphql-budget-debug',
  estimateCacheSize: 1000,
} as const satisfies Partial<QueryBudgetOptions>;

/** `QueryBudgetOptions` after validation, with defaults applied (the store is resolved by the plugin). */
export interface ResolvedQueryBudgetOptions<TContext extends BaseContext> {
  identify: QueryBudgetOptions<TContext>['identify'];
  policy: NonNullable<QueryBudgetOptions<TContext>['policy']>;
  store: BucketStore | undefined;
  mode: BudgetMode;
  maxCost: number | undefined;
  cost: ((estimate: CostEstimate) => number) | undefined;
  analyzer: CostAnalyzerOptions;
  onStoreError: StoreErrorPolicy;
  storeTimeoutMs: number;
  circuitBreaker: Required<CircuitBreakerOptions>;
  exposeCost: NonNullable<QueryBudgetOptions<TContext>['exposeCost']>;
  policyName: string;
  debugHeader: string;
  estimateCacheSize: number;
}

/** Validates the options and applies the defaults; throws `TypeError`/`RangeError` naming the option. */
export function resolveOptions<TContext extends BaseContext>(
  options: QueryBudgetOptions<TContext>,
): ResolvedQueryBudgetOptions<TContext> {
  if (options === null || typeof options !== 'object') {
    throw new TypeError('queryBudgetPlugin: options must be an object with at least `identify`.');
  }
  if (typeof options.identify !== 'function') {
    throw new TypeError(
      "queryBudgetPlugin: `identify` must be a function returning the caller's key (e.g. the authenticated user id); " +
        `got ${describe(options.identify)}.`,
    );
  }
  const policy = options.policy ?? queryBudgetDefaults.policy;
  if (typeof policy !== 'function') validatePolicy(policy, '`policy`');
  const store = options.store;
  if (store !== undefined && !isBucketStore(store)) {
    throw new TypeError('queryBudgetPlugin: `store` must implement consume, refund and peek (a BucketStore).');
  }
  const mode = options.mode ?? queryBudgetDefaults.mode;
  if (mode !== 'enforce' && mode !== 'measure') {
    throw new RangeError(`queryBudgetPlugin: \`mode\` must be 'enforce' or 'measure'; got ${describe(mode)}.`);
  }
  if (options.maxCost !== undefined) requireNumber(options.maxCost, '`maxCost`', { min: 0, exclusiveMin: true });
  if (options.cost !== undefined && typeof options.cost !== 'function') {
    throw new TypeError(
      `queryBudgetPlugin: \`cost\` must be a function of the estimate; got ${describe(options.cost)}.`,
    );
  }
  if (options.defaultListSize !== undefined) {
    requireNumber(options.defaultListSize, '`defaultListSize`', { min: 0, allowInfinity: true });
  }
  if (options.maxNodes !== undefined) requireNumber(options.maxNodes, '`maxNodes`', { min: 1, integer: true });
  const introspectionIsFree = options.introspectionIsFree ?? queryBudgetDefaults.introspectionIsFree;
  if (typeof introspectionIsFree !== 'boolean') {
    throw new TypeError(
      `queryBudgetPlugin: \`introspectionIsFree\` must be a boolean; got ${describe(introspectionIsFree)}.`,
    );
  }
  if (options.estimators !== undefined && !Array.isArray(options.estimators)) {
    throw new TypeError(
      `queryBudgetPlugin: \`estimators\` must be an array of estimator functions; got ${describe(options.estimators)}.`,
    );
  }
  const onStoreError = options.onStoreError ?? queryBudgetDefaults.onStoreError;
  if (onStoreError !== 'allow' && onStoreError !== 'deny' && onStoreError !== 'local') {
    throw new RangeError(
      `queryBudgetPlugin: \`onStoreError\` must be 'allow', 'deny' or 'local'; got ${describe(onStoreError)}.`,
    );
  }
  const storeTimeoutMs = options.storeTimeoutMs ?? queryBudgetDefaults.storeTimeoutMs;
  requireNumber(storeTimeoutMs, '`storeTimeoutMs`', { min: 1 });
  const breaker = options.circuitBreaker ?? {};
  if (breaker === null || typeof breaker !== 'object') {
    throw new TypeError(`queryBudgetPlugin: \`circuitBreaker\` must be an object; got ${describe(breaker)}.`);
  }
  const failureThreshold = breaker.failureThreshold ?? queryBudgetDefaults.circuitBreaker.failureThreshold;
  requireNumber(failureThreshold, '`circuitBreaker.failureThreshold`', { min: 1, integer: true });
  const cooldownMs = breaker.cooldownMs ?? queryBudgetDefaults.circuitBreaker.cooldownMs;
  requireNumber(cooldownMs, '`circuitBreaker.cooldownMs`', { min: 0 });
  const exposeCost = options.exposeCost ?? queryBudgetDefaults.exposeCost;
  if (typeof exposeCost !== 'boolean' && typeof exposeCost !== 'function') {
    throw new TypeError(
      `queryBudgetPlugin: \`exposeCost\` must be a boolean or a function; got ${describe(exposeCost)}.`,
    );
  }
  const policyName = options.policyName ?? queryBudgetDefaults.policyName;
  if (typeof policyName !== 'string' || !POLICY_NAME_PATTERN.test(policyName)) {
    throw new RangeError(
      `queryBudgetPlugin: \`policyName\` must be 1 to 64 letters, digits or _ . : -; got ${describe(policyName)}.`,
    );
  }
  const debugHeader = options.debugHeader ?? queryBudgetDefaults.debugHeader;
  if (typeof debugHeader !== 'string' || !/^[a-z0-9-]+$/.test(debugHeader)) {
    throw new RangeError(
      `queryBudgetPlugin: \`debugHeader\` must be a lower-case header name; got ${describe(debugHeader)}.`,
    );
  }
  const estimateCacheSize = options.estimateCacheSize ?? queryBudgetDefaults.estimateCacheSize;
  requireNumber(estimateCacheSize, '`estimateCacheSize`', { min: 0, integer: true });

  const analyzer: CostAnalyzerOptions = { introspectionIsFree };
  if (options.defaultListSize !== undefined) analyzer.defaultListSize = options.defaultListSize;
  if (options.maxNodes !== undefined) analyzer.maxNodes = options.maxNodes;
  if (options.estimators !== undefined) analyzer.estimators = options.estimators;

  return {
    identify: options.identify,
    policy,
    store,
    mode,
    maxCost: options.maxCost,
    cost: options.cost,
    analyzer,
    onStoreError,
    storeTimeoutMs,
    circuitBreaker: { failureThreshold, cooldownMs },
    exposeCost,
    policyName,
    debugHeader,
    estimateCacheSize,
  };
}

/** Throws when a policy (from the options or returned by the policy function) is unusable. */
export function validatePolicy(policy: unknown, name: string): asserts policy is BucketPolicy {
  if (policy === null || typeof policy !== 'object') {
    throw new TypeError(`queryBudgetPlugin: ${name} must be { capacity, refillPerSecond }; got ${describe(policy)}.`);
  }
  const { capacity, refillPerSecond } = policy as Partial<BucketPolicy>;
  requireNumber(capacity, `${name}.capacity`, { min: 0, exclusiveMin: true });
  requireNumber(refillPerSecond, `${name}.refillPerSecond`, { min: 0 });
}

interface NumberRule {
  min: number;
  exclusiveMin?: boolean;
  integer?: boolean;
  allowInfinity?: boolean;
}

function requireNumber(value: unknown, name: string, rule: NumberRule): asserts value is number {
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new TypeError(`queryBudgetPlugin: ${name} must be a number; got ${describe(value)}.`);
  }
  const finiteOk = Number.isFinite(value) || (rule.allowInfinity === true && value === Infinity);
  const aboveMin = rule.exclusiveMin ? value > rule.min : value >= rule.min;
  if (!finiteOk || !aboveMin || (rule.integer && !Number.isInteger(value))) {
    const bound = `${rule.exclusiveMin ? '>' : '≥'} ${rule.min}`;
    throw new RangeError(
      `queryBudgetPlugin: ${name} must be ${rule.integer ? 'an integer' : 'a finite number'} ${bound}; got ${value}.`,
    );
  }
}

function isBucketStore(value: unknown): value is BucketStore {
  if (value === null || typeof value !== 'object') return false;
  const store = value as Record<string, unknown>;
  return typeof store.consume === 'function' && typeof store.refund === 'function' && typeof store.peek === 'function';
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : String(value);
}
