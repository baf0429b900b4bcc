import type { BucketPolicy, BucketStore } from '../bucket/types.js';
import type { CostAnalyzerOptions, CostEstimate, CostModelName } from '../cost/types.js';
import { engineDefaults, engineSettings } from '../cost/engine-options.js';
import type { CircuitBreakerOptions } from './circuit-breaker.js';
import type { BudgetDecision } from './decision-event.js';
import { redisClientKind } from '../bucket/redis-client.js';
import { checkPolicy } from '../bucket/validate.js';
import { checkKnownOptions } from '../known-options.js';
import { describeValue as describe, requireNumber } from '../option-values.js';
import { resolveLimits, type BudgetLimit } from './limits.js';
import type { BudgetMode, StoreErrorPolicy } from './outcomes.js';
import { POLICY_NAME_PATTERN } from './rate-limit-headers.js';

export type { BudgetMode } from './outcomes.js';

/**
 * The options of every server's budget (`queryBudgetPlugin` for Apollo Server, `useQueryBudget` for
 * Envelop and GraphQL Yoga). Only `identify` is required. `TArgs` is what the callbacks receive:
 * the request as the server describes it (Apollo Server's request context; Envelop's
 * `{ context, document, operationName, variables }`).
 */
export interface BudgetOptions<TArgs> {
  /**
   * Who pays for the operation: the key of the caller's bucket (any string; the store maps it to a
   * safe key). Required: there is no safe default. Derive it from something the server verified
   * (the authenticated user or API key in your context), never from a header the client controls.
   * For anonymous callers, key by their network with `clientAddressKey` (an IPv6 address by its
   * /64, `X-Forwarded-For` only through the proxies you name) in your context function.
   * A `GraphQLError` thrown here is returned to the client as is (give it `extensions.http.status`,
   * e.g. 401). Anything else thrown, or a value that is not a non-empty string, answers HTTP 500
   * `INTERNAL_SERVER_ERROR` with a generic message and is logged in full. `null` is allowed only
   * for a request that `skip` skips (`skip` is asked first, so `identify` is then not called at all).
   */
  identify(request: TArgs): string | null | Promise<string | null>;
  /**
   * Callers that are never charged (health checks, internal services): when it returns true the
   * operation is not priced against any bucket, runs, and is reported as `SKIPPED` (metrics and
   * `onDecision`; no `extensions.cost`, no RateLimit headers). Asked before `identify`. Decide from
   * something the server verified, never from a header a client can set.
   * @default undefined (nobody is skipped)
   */
  skip?(request: TArgs): boolean | Promise<boolean>;
  /**
   * The caller's budget: one policy (`{ capacity, refillPerSecond }`: one bucket per caller, named
   * `policyName` in the headers), a list of limits charged together, or a function of the request
   * returning either (tiers, tenants).
   *
   * A list of `BudgetLimit`s (`{ name, capacity, refillPerSecond, key?, hashTag? }`) charges every
   * bucket at once, all-or-nothing: several windows for the caller (without `key`, one bucket per
   * name for the caller `identify` names: `[{ name: 'minute', capacity: 2000, refillPerSecond: 33.3 },
   * { name: 'hour', capacity: 5000, refillPerSecond: 5000 / 3600 }]`), and buckets of other owners
   * (`{ name: 'app', key: 'app:42', … }`: `key` is the bucket's own identity, shared by every caller
   * whose policy names it: an app, an organisation, a global ceiling). An operation runs only if
   * every bucket holds its cost; when one does not, nothing is taken from any, and `Retry-After` is
   * the time until all of them can pay. Refunds go back to every bucket.
   *
   * Every policy must have a capacity > 0 and a refill ≥ 0 that refills the bucket from empty within
   * 1e9 s (the stores' bound); names are 1–64 of `A-Z a-z 0-9 _ . : -`, unique. A fixed policy is
   * checked at construction; one the function returns is checked on every request, and an invalid
   * one (or a throwing function) answers that request alone with HTTP 500 and a generic message,
   * logged in full: it never reaches the store, so it can never trip the circuit breaker for other
   * callers. A `GraphQLError` thrown here is returned to the client as is.
   * @default { capacity: 1000, refillPerSecond: 50 }
   */
  policy?:
    | BucketPolicy
    | readonly BudgetLimit[]
    | ((request: TArgs) => BucketPolicy | readonly BudgetLimit[] | Promise<BucketPolicy | readonly BudgetLimit[]>);
  /**
   * Where buckets live. Use a `RedisBucketStore` when more than one server process serves the API.
   * @default a new `MemoryBucketStore` (this process only; a warning is logged once at startup)
   */
  store?: BucketStore;
  /**
   * `'enforce'`: reject operations that do not fit (429, 400). `'measure'`: a dark launch; the same
   * store calls are made (so buckets evolve exactly as under enforce), nothing is rejected, and the
   * would-be rejection is logged and reported as `extensions.cost.wouldReject`. A function decides
   * per request (a dark launch per tenant: measure for most, enforce for some).
   * @default 'enforce'
   */
  mode?: BudgetMode | ((request: TArgs) => BudgetMode);
  /**
   * The largest cost one operation may have; above it the operation is rejected with HTTP 400
   * `COST_ESTIMATED_TOO_EXPENSIVE` before any token is taken. It is also capped by the
   * smallest capacity of its buckets (a bigger operation could never be paid for). A function
   * decides per request.
   * @default the smallest capacity of the operation's buckets
   */
  maxCost?: number | ((request: TArgs) => number);
  /**
   * What an operation is charged, from its estimate (and, after execution, from its actual cost).
   * Must return a finite number ≥ 0, or `Infinity` (treated as too expensive); anything else, or a
   * throw, answers HTTP 500 with a generic message, logged in full. The request is the second
   * argument (price some callers or operations differently); it must give the same answer for the
   * estimate and for the actual cost of one request, or refunds are off by the difference.
   * @default `typeCost + fieldCost`
   */
  cost?(estimate: CostEstimate, request: TArgs): number;
  /**
   * How the directives become a number (cost engine option): `'ibm'`, the IBM cost spec's static
   * analysis; `'apollo'`, Apollo Router's demand-control formula, so that `maxCost` and the budgets
   * mean the router's numbers (set `defaultListSize` to the router's `list_size`); `'github'`,
   * GitHub's rate-limit points (requests per connection / 100, at least 1, and GitHub's node limit
   * of 500,000). Not with `estimators`. See docs/cost-model.md.
   * @default 'ibm'
   */
  costModel?: CostModelName;
  /**
   * Size assumed for a list field without `@listSize` or slicing argument (cost engine option).
   * @default 10
   */
  defaultListSize?: number;
  /**
   * The largest list size a client may ask for through a slicing argument (`first: 20`, or a list
   * argument's length): an operation asking for a negative size or for more is refused with HTTP
   * 400 `COST_LIST_SIZE_OUT_OF_RANGE`, naming the argument and the bound, before anything runs.
   * This is what bounds the work one token buys for lists of scalars and enums, which weigh 0 by
   * the IBM defaults at any length (`tags(first: 2000000)` would otherwise cost 1): give such
   * lists a `@cost` as well where their items are expensive (a warning at schema load names those
   * without). A list that comes back longer than it was priced for is charged for the excess
   * after execution in any case. `Infinity` switches the bound off (the IBM rule then prices a
   * negative value as 0 items, so resolvers must clamp it themselves).
   * @default 10_000
   */
  maxListSize?: number;
  /**
   * Work cap of the cost engine: selections visited after fragment expansion. A larger operation is
   * rejected with HTTP 400 and the cost engine's code `COST_ANALYSIS_LIMIT`. The response walk
   * after execution has no such cap: it counts every item a response holds.
   * @default 10000
   */
  maxNodes?: number;
  /**
   * Whether the schema is refused when one of its lists is priced at `defaultListSize` for want of
   * a bound (no slicing argument, no `assumedSize`, no enclosing `sizedFields`: the lint rule
   * `list-without-list-size`): the server then fails to start, naming each such field. Where every
   * list is bounded by something the schema says, a list an error hides is charged at the size
   * its resolver was asked for (see docs/security.md, "What the budget guarantees").
   * @default false
   */
  strictListSizes?: boolean;
  /**
   * Lists priced by a convention where the schema has no `@listSize` (cost engine option).
   * `'relay'`: a field returning a Relay connection (`pageInfo`, and `edges { node }` and/or
   * `nodes`) with an Int `first` and/or `last` is priced as if it carried
   * `@listSize(slicingArguments: ["first", "last"], sizedFields: ["edges", "nodes"],
   * requireOneSlicingArgument: false)`; a written `@listSize` wins. See docs/cost-model.md.
   * @default false
   */
  inferListSizes?: 'relay' | false;
  /**
   * What introspection (`__schema`, `__type` and everything below them) costs. `__typename` is
   * always free.
   *
   * - `'free-when-alone'`: a query that selects nothing but introspection (as schema tools send:
   *   Apollo Sandbox, GraphiQL, graphql-codegen) is charged nothing, up to
   *   `tuning.freeIntrospectionLimit` per caller; introspection beside other fields is priced.
   * - `'priced'`: priced like any other selection, each introspection list at the schema's real
   *   size (its number of types, the most fields of one type, …), so nested introspection
   *   (`__schema { types { fields { type { fields … } } } }`) cannot make the server work for free.
   * - `'free'`: never charged, in any operation. Unsafe wherever introspection is enabled.
   *
   * @default `'free-when-alone'`, or `'priced'` when `process.env.NODE_ENV` is `'production'`
   * (read when the plugin is built, as Apollo Server decides whether introspection is enabled)
   */
  introspection?: 'priced' | 'free-when-alone' | 'free';
  /**
   * graphql-query-complexity estimators used instead of the `@cost` / `@listSize` directives.
   * @default undefined (the directives)
   */
  estimators?: CostAnalyzerOptions['estimators'];
  /**
   * What happens when the store errors or misses `tuning.storeTimeoutMs`: `'local'` charges an in-process
   * `MemoryBucketStore` with the same policy meanwhile (each process enforces the budget on its own,
   * so over an outage of T seconds at worst N processes × (capacity + refillPerSecond × T), and it
   * adds no latency); `'deny'` rejects the operation with
   * HTTP 503 `BUDGET_UNAVAILABLE`; `'allow'` lets it run uncharged (`throttleStatus: null`), for
   * those who prefer no limit to a per-process one. Whoever can slow the store down (a flood of
   * requests, a slow shard) switches limiting off under `'allow'`.
   * @default 'local'
   */
  onStoreError?: StoreErrorPolicy;
  /**
   * Whether responses carry `extensions.cost` and the `RateLimit` / `RateLimit-Policy` headers.
   * `Retry-After` is always sent with a 429 or 503.
   * @default true
   */
  exposeCost?: boolean | ((request: TArgs) => boolean);
  /**
   * What happens to a response that Apollo's cache control would let a shared cache (a CDN, a
   * proxy) keep (`cache-control: max-age=…, public`), when the plugin adds the caller's budget to it
   * (`extensions.cost`, the RateLimit headers): `'private'` keeps the annotation and restricts the
   * response's cache policy to `PRIVATE`, so only the caller's own client may cache it;
   * `'unannotated'` leaves such responses public and sends them without the caller's budget (no
   * `extensions.cost`, no RateLimit headers; a `rateLimit` field the client selects is its own).
   * Either way no shared cache serves one caller's budget to another.
   * @default 'private'
   */
  cacheableResponses?: 'private' | 'unannotated';
  /**
   * Browsers: the plugin lists the budget headers it sends (`RateLimit`, `RateLimit-Policy`,
   * `Retry-After`) in `Access-Control-Expose-Headers` on responses to cross-origin requests (with an
   * `Origin` header), merged with what the response already exposes. Apollo's integrations
   * (standalone, Express, Fastify) write the response's headers after your CORS middleware and
   * replace its `Access-Control-Expose-Headers`: list here the headers your CORS middleware
   * exposes (its `exposedHeaders`) so they stay exposed, or pass `false` and add
   * `budgetExposedHeaders` to your middleware's list instead.
   * @default [] (the budget headers only)
   */
  corsExposeHeaders?: readonly string[] | false;
  /**
   * The policy name in the RateLimit headers (letters, digits, `_ . : -`; at most 64).
   * @default 'budget'
   */
  policyName?: string;
  /**
   * Who may ask for the per-field cost breakdown (`extensions.cost.fields`) by sending the
   * `tuning.debugHeader` set to `fields`. Off by default: the breakdown reveals the schema's weights,
   * is computed afresh for every such request (the estimate cache is bypassed) and is long for a
   * large operation. Turn it on for trusted callers only, e.g.
   * `({ contextValue }) => contextValue.user?.isStaff === true`. Needs `exposeCost`. At most
   * `MAX_BREAKDOWN_ENTRIES` (1,000) entries are returned; `fieldsTruncated: true` says when more existed.
   * @default false
   */
  fieldBreakdown?: boolean | ((request: TArgs) => boolean);
  /**
   * Called once per operation the plugin decided on, after its response is handed to the HTTP layer,
   * with what was decided (`BudgetDecision`: the caller's key, policy, requested and actual cost,
   * result, tokens left, retry time, mode, what the store did, the time the plugin added). A hook
   * that throws, rejects or is slow never changes or delays a response; its errors are logged
   * once per burst (at most one line per 10 s, with the count of the others).
   * @default undefined
   */
  onDecision?: (decision: BudgetDecision) => void | Promise<void>;
  /**
   * OpenTelemetry metrics through `@opentelemetry/api` (an optional peer: without it, or without an
   * SDK registered, nothing is recorded and nothing is paid). `false` turns them off;
   * `{ operationName: true }` adds the `graphql.operation.name` attribute. Clients choose operation
   * names, so it is bounded: only operations that were priced and admitted carry it, with the first
   * `maxOperationNames` (default 100) distinct names of at most 64 characters; any other name is
   * recorded as `'(other)'`.
   * @default true (metrics on, without the operation name)
   */
  metrics?: boolean | { operationName?: boolean; maxOperationNames?: number };
  /**
   * Knobs that rarely need turning: the store's deadline and circuit breakers, the caches' sizes,
   * the local limits of dry runs and free introspection, the debug header's name.
   */
  tuning?: BudgetTuning;
}

/** The `tuning` option of every server's budget: each knob has a default that suits most servers. */
export interface BudgetTuning {
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
   * Request header that, set to `fields`, asks for the per-field cost breakdown (see
   * `fieldBreakdown`). Lower case.
   * @default 'graphql-budget-debug'
   */
  debugHeader?: string;
  /**
   * Memory for cached estimates, in bytes (keys and values counted), keyed by (document hash,
   * operation name, variables): the least recently used are dropped beyond it. A request whose
   * variables serialize to more than 2 KB is not cached. Errors are cached as their message, code
   * and locations only, never with the document. 0 disables the cache.
   * @default 4_194_304 (4 MiB)
   */
  estimateCacheMaxBytes?: number;
  /**
   * Buckets whose last refusal this process remembers, to refuse later operations on them that
   * cannot fit yet without a store call (the deny cache: an abusive caller who keeps sending after
   * a 429 costs no Redis call per request). Least recently used dropped first; per process. It only
   * ever refuses what the store's own account says cannot fit, so it can be slightly conservative
   * (a refund elsewhere is not in it), never generous. 0 turns it off.
   * @default 10_000
   */
  denyCacheMaxEntries?: number;
  /**
   * The local limit of each caller's `rateLimit(dryRun: true)` operations, in this process: a dry
   * run takes no tokens, so without it a caller could make the store read their bucket as often as
   * they like. Each caller has an in-process bucket of this policy (never their own budget), one
   * token per dry run, and a dry run it cannot pay is refused with HTTP 429 `RATE_LIMITED` without
   * a store call. A dry run of an operation the deny cache already knows cannot be paid is answered
   * from it, also without a store call. `false` removes the limit.
   * @default { capacity: 10, refillPerSecond: 1 }
   */
  dryRunLimit?: BucketPolicy | false;
  /**
   * The local limit of each caller's free introspection (`introspection: 'free-when-alone'`), in this
   * process: schema tools introspect when they load and now and then after, and an operation of
   * introspection alone is not free for anyone who sends it without end (nested introspection makes
   * the server work hard, 0.4 MB and tens of ms of CPU for one operation on a schema of 40 types).
   * Each caller has an in-process bucket of this policy (never their own budget), one token per
   * free operation; beyond it the operation is priced and charged like any other (and refused as
   * too expensive where it costs more than the caller's capacity). `false` removes the limit.
   * @default { capacity: 10, refillPerSecond: 1 }
   */
  freeIntrospectionLimit?: BucketPolicy | false;
}

/** The longest delay a timer takes (ms): Node runs a longer one after 1 ms. */
const MAX_TIMER_MS = 2_147_483_647;

/** Distinct `graphql.operation.name` values recorded at most (`metrics.maxOperationNames`). */
const DEFAULT_MAX_OPERATION_NAMES = 100;

/** The defaults of `tuning`. */
const tuningDefaults = {
  storeTimeoutMs: 50,
  circuitBreaker: { failureThreshold: 3, cooldownMs: 500 },
  debugHeader: 'graphql-budget-debug',
  estimateCacheMaxBytes: 4 * 1024 * 1024,
  denyCacheMaxEntries: 10_000,
  dryRunLimit: { capacity: 10, refillPerSecond: 1 },
  freeIntrospectionLimit: { capacity: 10, refillPerSecond: 1 },
} as const satisfies BudgetTuning;

/**
 * The defaults of every optional option (the cost engine's are the engine's own, so a price is the
 * same from the plugin, `estimateCost` and the CLI). `introspection`'s depends on `NODE_ENV`.
 */
export const queryBudgetDefaults = {
  policy: { capacity: 1000, refillPerSecond: 50 },
  mode: 'enforce',
  costModel: engineDefaults.costModel,
  defaultListSize: engineDefaults.defaultListSize,
  maxListSize: engineDefaults.maxListSize,
  maxNodes: engineDefaults.maxNodes,
  strictListSizes: engineDefaults.strictListSizes,
  inferListSizes: engineDefaults.inferListSizes,
  onStoreError: 'local',
  exposeCost: true,
  cacheableResponses: 'private',
  corsExposeHeaders: [],
  policyName: 'budget',
  fieldBreakdown: false,
  metrics: true,
  tuning: tuningDefaults,
} as const satisfies Partial<BudgetOptions<unknown>>;

/** Every option's name, so that an unknown one is refused (the type keeps the list complete). */
const OPTION_NAMES = {
  identify: true,
  skip: true,
  policy: true,
  store: true,
  mode: true,
  maxCost: true,
  cost: true,
  costModel: true,
  defaultListSize: true,
  maxListSize: true,
  maxNodes: true,
  strictListSizes: true,
  inferListSizes: true,
  introspection: true,
  estimators: true,
  onStoreError: true,
  exposeCost: true,
  cacheableResponses: true,
  corsExposeHeaders: true,
  policyName: true,
  fieldBreakdown: true,
  onDecision: true,
  metrics: true,
  tuning: true,
} as const satisfies Record<keyof BudgetOptions<unknown>, true>;

const TUNING_NAMES = {
  storeTimeoutMs: true,
  circuitBreaker: true,
  debugHeader: true,
  estimateCacheMaxBytes: true,
  denyCacheMaxEntries: true,
  dryRunLimit: true,
  freeIntrospectionLimit: true,
} as const satisfies Record<keyof BudgetTuning, true>;

/** Every option's name, `tuning`'s as `tuning.name` (docs/options.md has a row for each: test/plugin/options-doc.test.ts). */
export const budgetOptionNames: readonly string[] = [
  ...Object.keys(OPTION_NAMES),
  ...Object.keys(TUNING_NAMES).map((name) => `tuning.${name}`),
];

/** Options of earlier releases, and what replaced them. */
const REPLACED: Readonly<Record<string, string>> = {
  estimateCacheSize: '`tuning.estimateCacheMaxBytes` (bytes, not entries)',
  introspectionIsFree: "`introspection: 'free'`",
  introspectionOnlyIsFree: "`introspection: 'free-when-alone'` (or `'priced'` for false)",
  ...Object.fromEntries(Object.keys(TUNING_NAMES).map((name) => [name, `\`tuning.${name}\``])),
};

/** `BudgetOptions` after validation, with defaults applied (the store is resolved by the request path). */
export interface ResolvedBudgetOptions<TArgs> {
  identify: BudgetOptions<TArgs>['identify'];
  skip: BudgetOptions<TArgs>['skip'];
  policy: NonNullable<BudgetOptions<TArgs>['policy']>;
  store: BucketStore | undefined;
  mode: NonNullable<BudgetOptions<TArgs>['mode']>;
  maxCost: BudgetOptions<TArgs>['maxCost'];
  cost: BudgetOptions<TArgs>['cost'];
  /** The cost engine's options, checked (`engineSettings`). */
  analyzer: CostAnalyzerOptions;
  /** Whether operations of nothing but introspection are free (`introspection` is not `'priced'`). */
  introspectionOnlyIsFree: boolean;
  onStoreError: StoreErrorPolicy;
  storeTimeoutMs: number;
  circuitBreaker: Required<CircuitBreakerOptions>;
  exposeCost: NonNullable<BudgetOptions<TArgs>['exposeCost']>;
  cacheableResponses: 'private' | 'unannotated';
  corsExposeHeaders: readonly string[] | false;
  policyName: string;
  fieldBreakdown: NonNullable<BudgetOptions<TArgs>['fieldBreakdown']>;
  debugHeader: string;
  estimateCacheMaxBytes: number;
  onDecision: BudgetOptions<TArgs>['onDecision'];
  denyCacheMaxEntries: number;
  dryRunLimit: BucketPolicy | false;
  freeIntrospectionLimit: BucketPolicy | false;
  metrics: false | { operationName: boolean; maxOperationNames: number };
}

/** Validates the options and applies the defaults; throws `TypeError`/`RangeError` naming the option. */
export function resolveOptions<TArgs>(options: BudgetOptions<TArgs>, owner: string): ResolvedBudgetOptions<TArgs> {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`${owner}: options must be an object with at least \`identify\`.`);
  }
  if (typeof options.identify !== 'function') {
    throw new TypeError(
      `${owner}: \`identify\` must be a function returning the caller's key (e.g. the authenticated user id); ` +
        `got ${describe(options.identify)}.`,
    );
  }
  for (const [name, replacement] of Object.entries(REPLACED)) {
    if (name in options) throw new TypeError(`${owner}: \`${name}\` was replaced by ${replacement}; use that instead.`);
  }
  checkKnownOptions(owner, options, Object.keys(OPTION_NAMES));
  const policy = options.policy ?? queryBudgetDefaults.policy;
  if (typeof policy !== 'function') {
    try {
      resolveLimits(policy, 'caller', 'budget');
    } catch (error) {
      const problem = error as TypeError | RangeError;
      const message = `${owner}: ${problem.message.replace(/^policy\b/, '`policy`')}.`;
      throw problem instanceof RangeError ? new RangeError(message) : new TypeError(message);
    }
  }
  const store = options.store;
  const rawClient = redisClientKind(store);
  if (rawClient !== undefined) {
    throw new TypeError(
      `${owner}: \`store\` is a raw ${rawClient} client; wrap it in a store: \`store: new RedisBucketStore(client)\`.`,
    );
  }
  if (store !== undefined && !isBucketStore(store)) {
    throw new TypeError(`${owner}: \`store\` must implement consume, refund and peek (a BucketStore).`);
  }
  if (options.skip !== undefined && typeof options.skip !== 'function') {
    throw new TypeError(`${owner}: \`skip\` must be a function of the request; got ${describe(options.skip)}.`);
  }
  const mode = options.mode ?? queryBudgetDefaults.mode;
  if (typeof mode !== 'function') checkMode(owner, mode, '`mode`');
  const maxCost = options.maxCost;
  if (maxCost !== undefined && typeof maxCost !== 'function') {
    requireNumber(owner, maxCost, '`maxCost`', { min: 0, exclusiveMin: true });
  }
  if (options.cost !== undefined && typeof options.cost !== 'function') {
    throw new TypeError(`${owner}: \`cost\` must be a function of the estimate; got ${describe(options.cost)}.`);
  }
  const introspection = options.introspection ?? (process.env.NODE_ENV === 'production' ? 'priced' : 'free-when-alone');
  if (introspection !== 'priced' && introspection !== 'free-when-alone' && introspection !== 'free') {
    throw new RangeError(
      `${owner}: \`introspection\` must be 'priced', 'free-when-alone' or 'free'; got ${describe(introspection)}.`,
    );
  }
  const analyzer: CostAnalyzerOptions = { introspection: introspection === 'free' ? 'free' : 'priced' };
  for (const name of [
    'costModel',
    'defaultListSize',
    'maxListSize',
    'maxNodes',
    'strictListSizes',
    'inferListSizes',
    'estimators',
  ] as const) {
    if (options[name] !== undefined) Object.assign(analyzer, { [name]: options[name] });
  }
  // The engine's options are checked where the engine reads them, once for every caller.
  engineSettings(analyzer, owner);

  const onStoreError = options.onStoreError ?? queryBudgetDefaults.onStoreError;
  if (onStoreError !== 'allow' && onStoreError !== 'deny' && onStoreError !== 'local') {
    throw new RangeError(
      `${owner}: \`onStoreError\` must be 'allow', 'deny' or 'local'; got ${describe(onStoreError)}.`,
    );
  }
  const exposeCost = options.exposeCost ?? queryBudgetDefaults.exposeCost;
  if (typeof exposeCost !== 'boolean' && typeof exposeCost !== 'function') {
    throw new TypeError(`${owner}: \`exposeCost\` must be a boolean or a function; got ${describe(exposeCost)}.`);
  }
  const cacheableResponses = options.cacheableResponses ?? queryBudgetDefaults.cacheableResponses;
  if (cacheableResponses !== 'private' && cacheableResponses !== 'unannotated') {
    throw new RangeError(
      `${owner}: \`cacheableResponses\` must be 'private' or 'unannotated'; got ${describe(cacheableResponses)}.`,
    );
  }
  const corsExposeHeaders = options.corsExposeHeaders ?? queryBudgetDefaults.corsExposeHeaders;
  if (
    corsExposeHeaders !== false &&
    !(
      Array.isArray(corsExposeHeaders) &&
      corsExposeHeaders.every((name) => typeof name === 'string' && /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
    )
  ) {
    throw new TypeError(
      `${owner}: \`corsExposeHeaders\` must be false or an array of header names; got ${describe(corsExposeHeaders)}.`,
    );
  }
  const policyName = options.policyName ?? queryBudgetDefaults.policyName;
  if (typeof policyName !== 'string' || !POLICY_NAME_PATTERN.test(policyName)) {
    throw new RangeError(
      `${owner}: \`policyName\` must be 1 to 64 letters, digits or _ . : -; got ${describe(policyName)}.`,
    );
  }
  const fieldBreakdown = options.fieldBreakdown ?? queryBudgetDefaults.fieldBreakdown;
  if (typeof fieldBreakdown !== 'boolean' && typeof fieldBreakdown !== 'function') {
    throw new TypeError(
      `${owner}: \`fieldBreakdown\` must be a boolean or a function; got ${describe(fieldBreakdown)}.`,
    );
  }
  if (options.onDecision !== undefined && typeof options.onDecision !== 'function') {
    throw new TypeError(`${owner}: \`onDecision\` must be a function; got ${describe(options.onDecision)}.`);
  }
  const metrics = metricsOf(owner, options.metrics ?? queryBudgetDefaults.metrics);
  return {
    identify: options.identify,
    skip: options.skip,
    policy,
    store,
    mode,
    maxCost,
    cost: options.cost,
    analyzer,
    introspectionOnlyIsFree: introspection !== 'priced',
    onStoreError,
    exposeCost,
    cacheableResponses,
    corsExposeHeaders,
    policyName,
    fieldBreakdown,
    onDecision: options.onDecision,
    metrics,
    ...tuningOf(owner, options.tuning ?? {}),
  };
}

/** The `tuning` knobs, checked, with their defaults. */
function tuningOf(
  owner: string,
  tuning: BudgetTuning,
): Pick<
  ResolvedBudgetOptions<unknown>,
  | 'storeTimeoutMs'
  | 'circuitBreaker'
  | 'debugHeader'
  | 'estimateCacheMaxBytes'
  | 'denyCacheMaxEntries'
  | 'dryRunLimit'
  | 'freeIntrospectionLimit'
> {
  if (tuning === null || typeof tuning !== 'object') {
    throw new TypeError(`${owner}: \`tuning\` must be an object; got ${describe(tuning)}.`);
  }
  checkKnownOptions(`${owner}: \`tuning\``, tuning, Object.keys(TUNING_NAMES));
  const storeTimeoutMs = tuning.storeTimeoutMs ?? tuningDefaults.storeTimeoutMs;
  requireNumber(owner, storeTimeoutMs, '`tuning.storeTimeoutMs`', { min: 1, max: MAX_TIMER_MS });
  const breaker = tuning.circuitBreaker ?? {};
  if (breaker === null || typeof breaker !== 'object') {
    throw new TypeError(`${owner}: \`tuning.circuitBreaker\` must be an object; got ${describe(breaker)}.`);
  }
  checkKnownOptions(`${owner}: \`tuning.circuitBreaker\``, breaker, ['failureThreshold', 'cooldownMs']);
  const failureThreshold = breaker.failureThreshold ?? tuningDefaults.circuitBreaker.failureThreshold;
  requireNumber(owner, failureThreshold, '`tuning.circuitBreaker.failureThreshold`', { min: 1, integer: true });
  const cooldownMs = breaker.cooldownMs ?? tuningDefaults.circuitBreaker.cooldownMs;
  requireNumber(owner, cooldownMs, '`tuning.circuitBreaker.cooldownMs`', { min: 0, max: MAX_TIMER_MS });
  const debugHeader = tuning.debugHeader ?? tuningDefaults.debugHeader;
  if (typeof debugHeader !== 'string' || !/^[a-z0-9-]+$/.test(debugHeader)) {
    throw new RangeError(
      `${owner}: \`tuning.debugHeader\` must be a lower-case header name; got ${describe(debugHeader)}.`,
    );
  }
  const estimateCacheMaxBytes = tuning.estimateCacheMaxBytes ?? tuningDefaults.estimateCacheMaxBytes;
  requireNumber(owner, estimateCacheMaxBytes, '`tuning.estimateCacheMaxBytes`', { min: 0, integer: true });
  const denyCacheMaxEntries = tuning.denyCacheMaxEntries ?? tuningDefaults.denyCacheMaxEntries;
  requireNumber(owner, denyCacheMaxEntries, '`tuning.denyCacheMaxEntries`', { min: 0, integer: true });
  return {
    storeTimeoutMs,
    circuitBreaker: { failureThreshold, cooldownMs },
    debugHeader,
    estimateCacheMaxBytes,
    denyCacheMaxEntries,
    dryRunLimit: localLimit(owner, tuning.dryRunLimit ?? tuningDefaults.dryRunLimit, '`tuning.dryRunLimit`'),
    freeIntrospectionLimit: localLimit(
      owner,
      tuning.freeIntrospectionLimit ?? tuningDefaults.freeIntrospectionLimit,
      '`tuning.freeIntrospectionLimit`',
    ),
  };
}

/** The `metrics` option, checked. */
function metricsOf(
  owner: string,
  option: NonNullable<BudgetOptions<unknown>['metrics']>,
): ResolvedBudgetOptions<unknown>['metrics'] {
  if (option === false) return false;
  if (option === true) return { operationName: false, maxOperationNames: DEFAULT_MAX_OPERATION_NAMES };
  if (option === null || typeof option !== 'object') {
    throw new TypeError(
      `${owner}: \`metrics\` must be a boolean or { operationName?: boolean }; got ${describe(option)}.`,
    );
  }
  checkKnownOptions(`${owner}: \`metrics\``, option, ['operationName', 'maxOperationNames']);
  const operationName = option.operationName ?? false;
  if (typeof operationName !== 'boolean') {
    throw new TypeError(`${owner}: \`metrics.operationName\` must be a boolean; got ${describe(operationName)}.`);
  }
  const maxOperationNames = option.maxOperationNames ?? DEFAULT_MAX_OPERATION_NAMES;
  requireNumber(owner, maxOperationNames, '`metrics.maxOperationNames`', { min: 0, integer: true });
  return { operationName, maxOperationNames };
}

/** A local per-caller limit option: a policy, or false for none. */
function localLimit(owner: string, limit: BucketPolicy | false, name: string): BucketPolicy | false {
  if (limit === false) return false;
  try {
    checkPolicy(limit, name);
  } catch (error) {
    const problem = error as TypeError | RangeError;
    const message = `${owner}: ${problem.message} (or false for no limit).`;
    throw problem instanceof RangeError ? new RangeError(message) : new TypeError(message);
  }
  return limit;
}

/** Throws unless `mode` is a mode; `name` says where it came from. */
export function checkMode(owner: string, mode: unknown, name: string): asserts mode is BudgetMode {
  if (mode !== 'enforce' && mode !== 'measure') {
    throw new RangeError(`${owner}: ${name} must be 'enforce' or 'measure'; got ${describe(mode)}.`);
  }
}

function isBucketStore(value: unknown): value is BucketStore {
  if (value === null || typeof value !== 'object') return false;
  const store = value as Record<string, unknown>;
  return typeof store.consume === 'function' && typeof store.refund === 'function' && typeof store.peek === 'function';
}
