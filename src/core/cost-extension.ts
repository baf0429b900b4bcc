import type { BucketPolicy, BucketResult } from '../bucket/types.js';
import type { FieldCostBreakdown } from '../cost/types.js';

/** Where the caller's bucket stands after the operation (Shopify's `throttleStatus`). */
export interface ThrottleStatus {
  /** The bucket's capacity (tokens). */
  maximumAvailable: number;
  /** Tokens left, rounded down to an integer (the same number as the `RateLimit` header's `r`). */
  currentlyAvailable: number;
  /** Tokens added per second. */
  restoreRate: number;
}

/** One bucket of an operation charged against several (`extensions.cost.budgets`). */
export interface BudgetStatus {
  /** The limit's name. */
  name: string;
  /** Its capacity (tokens). */
  maximumAvailable: number;
  /** Tokens left, rounded down; null when this process does not know (a refusal answered by its deny cache). */
  currentlyAvailable: number | null;
  /** Tokens added per second. */
  restoreRate: number;
}

/** `extensions.cost` of a response. */
export interface CostExtension {
  /** What the operation was charged up front (the estimate, through the `cost` option). */
  requestedQueryCost: number;
  /**
   * What it was finally charged once executed: the work its resolvers did, by the same rules as the
   * estimate applied to what they returned (real list lengths, the runtime types of abstract
   * values), with the work an error hid at its estimate. The difference from `requestedQueryCost`
   * was refunded, or, above it (a list longer than it was priced for), taken as well. 0 when the
   * operation was rejected; null when it could not be measured (incremental delivery).
   */
  actualQueryCost: number | null;
  /**
   * The caller's bucket after the operation; with several buckets, the one that binds (the one with
   * the fewest tokens left, or the one that refused). null when the bucket store did not answer
   * (`onStoreError: 'allow'`) or was not asked (cost too high).
   */
  throttleStatus: ThrottleStatus | null;
  /** When `policy` gave a list of limits: every bucket, by name, in the order they are charged. */
  budgets?: BudgetStatus[];
  /**
   * Measure mode only: the error code enforce mode would have answered with (a `BudgetErrorCode`,
   * or the cost engine's code when the operation could not be priced).
   */
  wouldReject?: string;
  /**
   * Only for a caller `fieldBreakdown` allows who sent the debug request header: the per-field
   * breakdown of the estimate (at most 1,000 entries).
   */
  fields?: FieldCostBreakdown[];
  /** True when the breakdown had more entries than `fields` holds. */
  fieldsTruncated?: boolean;
}

export function throttleStatusOf(result: BucketResult, policy: BucketPolicy): ThrottleStatus {
  return {
    maximumAvailable: policy.capacity,
    currentlyAvailable: Math.max(0, Math.floor(result.remaining)),
    restoreRate: policy.refillPerSecond,
  };
}
