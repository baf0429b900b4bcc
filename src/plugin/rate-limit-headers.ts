import type { BucketPolicy, BucketResult } from '../bucket/types.js';

/**
 * RateLimit header fields, draft-ietf-httpapi-ratelimit-headers-10: both fields are Structured Field
 * Lists of one item, a quoted policy name with Integer parameters.
 *
 *   RateLimit-Policy: "budget";q=1000;w=20    q: capacity (tokens), w: seconds to refill from empty
 *   RateLimit:        "budget";r=730;t=6      r: tokens left (rounded down), t: seconds until full (rounded up)
 */
export const RATE_LIMIT_POLICY_HEADER = 'ratelimit-policy';
export const RATE_LIMIT_HEADER = 'ratelimit';
export const RETRY_AFTER_HEADER = 'retry-after';

/** A policy name that is a valid Structured Field String and needs no escaping. */
export const POLICY_NAME_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

/** `"budget";q=1000;w=20` (no `w` when the bucket never refills). */
export function formatRateLimitPolicy(name: string, policy: BucketPolicy): string {
  const quota = Math.floor(policy.capacity);
  if (policy.refillPerSecond <= 0) return `"${name}";q=${quota}`;
  const window = Math.max(1, Math.ceil(policy.capacity / policy.refillPerSecond));
  return `"${name}";q=${quota};w=${window}`;
}

/** `"budget";r=730;t=6`. */
export function formatRateLimit(name: string, result: BucketResult): string {
  const remaining = Math.max(0, Math.floor(result.remaining));
  // resetAfterMs is -1 when the bucket never refills: no `t` then.
  const reset =
    Number.isFinite(result.resetAfterMs) && result.resetAfterMs >= 0
      ? Math.ceil(result.resetAfterMs / 1000)
      : undefined;
  return reset === undefined ? `"${name}";r=${remaining}` : `"${name}";r=${remaining};t=${reset}`;
}
