import type { BucketPolicy } from '../bucket/types.js';

/**
 * RateLimit header fields, draft-ietf-httpapi-ratelimit-headers-10: both fields are Structured Field
 * Lists of one Item, a quoted policy name with parameters.
 *
 *   RateLimit-Policy: "budget";q=1000;w=20;graphql-budget-unit="query-cost"
 *   RateLimit:        "budget";r=730;t=6
 *
 * q: the capacity, w: seconds to refill from empty, r: tokens left, t: seconds until "additional
 * quota is made available". q and r are Integers, so they are rounded down.
 *
 * The unit. §3.1.2: `qu` conveys the quota unit, "Allowed values are listed in the RateLimit Quota
 * Units registry", and "The default quota unit is 'requests'". Our quota counts cost tokens, which
 * the registry (requests, content-bytes, concurrent-requests) does not hold, so `qu` is left out and
 * the unit travels the draft's route for one's own parameters, §3.1: "Implementation- or
 * service-specific parameters SHOULD be prefixed parameters with a vendor identifier".
 *
 * A capacity below 1 token cannot be said as a non-negative Integer quota (§3.1.1) without claiming
 * either nothing (q=0) or more than exists, so no RateLimit field is sent for such a policy
 * (§6.2: "Servers are not required to return RateLimit header fields in every response").
 */
export const RATE_LIMIT_POLICY_HEADER = 'ratelimit-policy';
export const RATE_LIMIT_HEADER = 'ratelimit';
export const RETRY_AFTER_HEADER = 'retry-after';

/** Our quota unit, as a vendor-prefixed parameter (see above). */
const UNIT_PARAMETER = ';graphql-budget-unit="query-cost"';

/** A policy name that is a valid Structured Field String and needs no escaping. */
export const POLICY_NAME_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Whether the RateLimit fields can describe `policy` (a capacity of at least one token). */
export function expressible(policy: BucketPolicy): boolean {
  return policy.capacity >= 1;
}

/** `"budget";q=1000;w=20;graphql-budget-unit="query-cost"` (no `w` when the bucket never refills). */
export function formatRateLimitPolicy(name: string, policy: BucketPolicy): string {
  const quota = Math.floor(policy.capacity);
  if (policy.refillPerSecond <= 0) return `"${name}";q=${quota}${UNIT_PARAMETER}`;
  const window = Math.max(1, Math.ceil(policy.capacity / policy.refillPerSecond));
  return `"${name}";q=${quota};w=${window}${UNIT_PARAMETER}`;
}

/**
 * `"budget";r=730;t=6`: `remaining` rounded down; `t` in whole seconds, omitted when undefined.
 *
 * On a 200, `t` is the time until the bucket is full again. On a 429 it is the time until the
 * refused operation can be paid, the same number as `Retry-After`, because §6 says: "If a response
 * contains both the Retry-After and the RateLimit header fields, the Retry-After field value SHOULD
 * NOT reference a point in time earlier than the reset parameter."
 */
export function formatRateLimit(name: string, remaining: number, resetSeconds: number | undefined): string {
  const left = Math.max(0, Math.floor(remaining));
  return resetSeconds === undefined ? `"${name}";r=${left}` : `"${name}";r=${left};t=${resetSeconds}`;
}

/** Whole seconds until `ms` has passed, rounded up (undefined for -1: never). */
export function wholeSecondsUntil(ms: number): number | undefined {
  return Number.isFinite(ms) && ms >= 0 ? Math.ceil(ms / 1000) : undefined;
}
