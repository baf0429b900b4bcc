import type { DocumentNode, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import type { BucketPolicy, BucketResult, BucketStore } from '../bucket/types.js';
import { defaultChargedCost } from '../cost/analyzer.js';
import { AnalyzerCache } from './analyzer-cache.js';
import { checkKnownOptions } from '../known-options.js';
import type { CostAnalyzerOptions, CostEstimate } from '../cost/types.js';
import { rateLimitedError, tooExpensiveError } from './errors.js';

/** Options of `chargeOperation`. */
export interface ChargeOperationOptions {
  schema: GraphQLSchema;
  document: DocumentNode;
  variables?: Readonly<Record<string, unknown>> | null;
  operationName?: string | null;
  /** Apollo's or graphql-ws's already-resolved operation, when at hand. */
  operation?: OperationDefinitionNode;
  /** The caller's bucket key (as `identify` would return it). */
  key: string;
  policy: BucketPolicy;
  store: BucketStore;
  /** What is charged for the estimate. @default `typeCost + fieldCost` */
  cost?: (estimate: CostEstimate) => number;
  /**
   * Cost-engine options (`costModel`, `defaultListSize`, `maxNodes`, …), as for
   * `createCostAnalyzer`; `maxListSize` is 10,000 and introspection lists are sized by the schema
   * (`introspectionListSizes: 'schema'`) unless given, as in the plugin.
   */
  analyzer?: CostAnalyzerOptions;
  /** Deadline of the store call (ms). @default 50 */
  timeoutMs?: number;
}

/** What `chargeOperation` charged: the tokens and the bucket after them. */
export interface ChargedOperation extends BucketResult {
  /** Tokens charged (the estimate through `cost`). */
  charged: number;
}

/** The analyzers of every `chargeOperation` call, shared by options of the same values. */
const analyzers = new AnalyzerCache();

/**
 * Prices one operation and charges it to `key`'s bucket, for operations that do not pass through
 * Apollo Server's request pipeline and so never reach the plugin: subscriptions over `graphql-ws`
 * (call it from `onSubscribe`, and again per delivered event to charge each one).
 *
 * Resolves with the bucket after the charge. Throws a `GraphQLError`, ready to hand to the client,
 * when the operation cannot be paid: `RATE_LIMITED` with `extensions.retryAfter` (seconds, absent
 * when the bucket never refills), `COST_ESTIMATED_TOO_EXPENSIVE` above the capacity, or the cost
 * engine's own error when it cannot be priced. A store failure rejects with the store's error
 * (`BucketStoreError`), for the caller to decide what a subscription gets meanwhile.
 */
const OPTION_NAMES = {
  schema: true,
  document: true,
  variables: true,
  operationName: true,
  operation: true,
  key: true,
  policy: true,
  store: true,
  cost: true,
  analyzer: true,
  timeoutMs: true,
} as const satisfies Record<keyof ChargeOperationOptions, true>;

export async function chargeOperation(options: ChargeOperationOptions): Promise<ChargedOperation> {
  checkKnownOptions('chargeOperation', options, Object.keys(OPTION_NAMES));
  const analyzer = analyzers.analyzerOf(options.schema, options.analyzer ?? {});
  const estimate = analyzer.estimate({
    document: options.document,
    operation: options.operation,
    operationName: options.operationName ?? null,
    variables: options.variables ?? null,
  });
  const charged = (options.cost ?? defaultChargedCost)(estimate);
  if (typeof charged !== 'number' || Number.isNaN(charged) || charged < 0) {
    throw new TypeError(`chargeOperation: \`cost\` returned ${String(charged)}; it must return a number ≥ 0.`);
  }
  if (!(charged <= options.policy.capacity)) {
    throw tooExpensiveError({ estimatedCost: charged, maxCost: options.policy.capacity });
  }
  const result = await options.store.consume(options.key, charged, options.policy, {
    timeoutMs: options.timeoutMs ?? 50,
  });
  if (!result.allowed) {
    throw rateLimitedError({
      cost: charged,
      remaining: result.remaining,
      capacity: options.policy.capacity,
      refillPerSecond: options.policy.refillPerSecond,
      retryAfterMs: result.retryAfterMs,
    });
  }
  return { ...result, charged };
}
