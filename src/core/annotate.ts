import type { BucketResult } from '../bucket/types.js';
import type { Budget } from './budget.js';
import { throttleStatusOf, type BudgetStatus, type CostExtension } from './cost-extension.js';
import { BudgetErrorCode, retryAfterSeconds } from './errors.js';
import type { ResolvedLimit } from './limits.js';
import {
  expressible,
  formatRateLimit,
  formatRateLimitPolicy,
  RATE_LIMIT_HEADER,
  RATE_LIMIT_POLICY_HEADER,
  wholeSecondsUntil,
} from './rate-limit-headers.js';

/** What a response tells the caller about their budget: its `extensions.cost`, and header fields. */
export interface BudgetAnnotation {
  readonly cost: CostExtension;
  /** Header fields to set on the response, names in lower case. */
  readonly headers: readonly (readonly [name: string, value: string])[];
}

/**
 * Step 6 of the request path: the annotation. Says what the caller is told about their budget: `extensions.cost` (Shopify's shape; with
 * several buckets, `throttleStatus` is the one that binds and `budgets` lists them all) and the
 * `RateLimit-Policy` / `RateLimit` header fields (draft-ietf-httpapi-ratelimit-headers-10: every
 * policy in `RateLimit-Policy`, one member each; one member in `RateLimit`, the bucket that binds).
 */
export class ResponseAnnotator {
  readonly #policyName: string;
  /** RateLimit-Policy values by the limits' policies, for the policies that recur (most do). */
  readonly #policyHeaders = new Map<string, string>();

  constructor(policyName: string) {
    this.#policyName = policyName;
  }

  /** The annotation of a settled operation (undefined when it has no bucket: skipped). */
  annotation(budget: Budget, actual: number | null): BudgetAnnotation | undefined {
    const { limits, view } = budget;
    if (limits.length === 0) return undefined;
    const binding = view === undefined ? 0 : view.binding;
    const bindingLimit = limits[binding] as ResolvedLimit;
    const bindingBucket = view?.results[binding];
    const cost: CostExtension = {
      requestedQueryCost: budget.requested,
      actualQueryCost: actual,
      throttleStatus: bindingBucket ? throttleStatusOf(bindingBucket, bindingLimit.policy) : null,
    };
    if (budget.listed) cost.budgets = limits.map((limit, index) => budgetStatus(limit, view?.results[index]));
    if (budget.mode === 'measure' && budget.rejection) cost.wouldReject = String(budget.rejection.extensions.code);
    if (budget.fields) cost.fields = budget.fields;
    if (budget.fieldsTruncated) cost.fieldsTruncated = true;

    const headers: [string, string][] = [];
    const stated = limits.filter((limit) => expressible(limit.policy));
    if (stated.length === 0) return { cost, headers };
    headers.push([RATE_LIMIT_POLICY_HEADER, stated.map((limit) => this.#policyHeader(limit)).join(', ')]);
    if (bindingBucket && expressible(bindingLimit.policy)) {
      const reset = resetOf(budget, bindingBucket);
      headers.push([
        RATE_LIMIT_HEADER,
        formatRateLimit(this.#nameOf(budget, bindingLimit), bindingBucket.remaining, reset),
      ]);
    }
    return { cost, headers };
  }

  #nameOf(budget: Budget, limit: ResolvedLimit): string {
    return budget.listed ? limit.name : this.#policyName;
  }

  #policyHeader(limit: ResolvedLimit): string {
    const id = `${limit.name}\u0000${limit.policy.capacity}\u0000${limit.policy.refillPerSecond}`;
    let header = this.#policyHeaders.get(id);
    if (header === undefined) {
      header = formatRateLimitPolicy(limit.name, limit.policy);
      if (this.#policyHeaders.size >= 1024) this.#policyHeaders.clear();
      this.#policyHeaders.set(id, header);
    }
    return header;
  }
}

function budgetStatus(limit: ResolvedLimit, bucket: BucketResult | undefined): BudgetStatus {
  return {
    name: limit.name,
    maximumAvailable: limit.policy.capacity,
    currentlyAvailable: bucket === undefined ? null : Math.max(0, Math.floor(bucket.remaining)),
    restoreRate: limit.policy.refillPerSecond,
  };
}

/** `t` of the RateLimit field: on a 429 the Retry-After seconds, otherwise the seconds until full. */
function resetOf(budget: Budget, bucket: BucketResult): number | undefined {
  const refused = budget.mode === 'enforce' && budget.rejection?.extensions.code === BudgetErrorCode.RATE_LIMITED;
  if (refused) {
    const wait = budget.view?.retryAfterMs ?? bucket.retryAfterMs;
    return wait >= 0 ? retryAfterSeconds(wait) : undefined;
  }
  return wholeSecondsUntil(bucket.resetAfterMs);
}
