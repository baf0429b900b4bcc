import type { BaseContext, GraphQLRequestContextWillSendResponse } from '@apollo/server';
import type { BucketPolicy, BucketResult } from '../bucket/types.js';
import type { Budget } from './budget.js';
import { throttleStatusOf, type CostExtension } from './cost-extension.js';
import { BudgetErrorCode, retryAfterSeconds } from './errors.js';
import {
  expressible,
  formatRateLimit,
  formatRateLimitPolicy,
  RATE_LIMIT_HEADER,
  RATE_LIMIT_POLICY_HEADER,
  wholeSecondsUntil,
} from './rate-limit-headers.js';

/**
 * Writes what the caller is told about their budget: `extensions.cost` (Shopify's shape) and the
 * `RateLimit-Policy` / `RateLimit` header fields (draft-ietf-httpapi-ratelimit-headers-10).
 */
export class ResponseAnnotator {
  readonly #policyName: string;
  /** A fixed policy's header never changes: formatted once. */
  readonly #fixedPolicy: BucketPolicy | undefined;
  readonly #fixedPolicyHeader: string | undefined;

  constructor(policyName: string, fixedPolicy: BucketPolicy | undefined) {
    this.#policyName = policyName;
    this.#fixedPolicy = fixedPolicy;
    this.#fixedPolicyHeader = fixedPolicy && formatRateLimitPolicy(policyName, fixedPolicy);
  }

  annotate<TContext extends BaseContext>(
    requestContext: GraphQLRequestContextWillSendResponse<TContext>,
    budget: Budget,
    actual: number | null,
    bucket: BucketResult | undefined,
  ): void {
    const { policy } = budget;
    if (policy === null) return;
    const cost: CostExtension = {
      requestedQueryCost: budget.requested,
      actualQueryCost: actual,
      throttleStatus: bucket ? throttleStatusOf(bucket, policy) : null,
    };
    if (budget.mode === 'measure' && budget.rejection) cost.wouldReject = String(budget.rejection.extensions.code);
    if (budget.fields) cost.fields = budget.fields;
    if (budget.fieldsTruncated) cost.fieldsTruncated = true;

    const body = requestContext.response.body;
    if (body.kind === 'single') {
      body.singleResult.extensions = { ...body.singleResult.extensions, cost };
    } else {
      body.initialResult.extensions = { ...body.initialResult.extensions, cost };
    }
    if (!expressible(policy)) return;
    const headers = requestContext.response.http.headers;
    headers.set(
      RATE_LIMIT_POLICY_HEADER,
      this.#fixedPolicyHeader !== undefined && policy === this.#fixedPolicy
        ? this.#fixedPolicyHeader
        : formatRateLimitPolicy(this.#policyName, policy),
    );
    if (bucket)
      headers.set(RATE_LIMIT_HEADER, formatRateLimit(this.#policyName, bucket.remaining, resetOf(budget, bucket)));
  }
}

/** `t` of the RateLimit field: on a 429 the Retry-After seconds, otherwise the seconds until full. */
function resetOf(budget: Budget, bucket: BucketResult): number | undefined {
  const refused = budget.mode === 'enforce' && budget.rejection?.extensions.code === BudgetErrorCode.RATE_LIMITED;
  if (refused) return bucket.retryAfterMs >= 0 ? retryAfterSeconds(bucket.retryAfterMs) : undefined;
  return wholeSecondsUntil(bucket.resetAfterMs);
}
