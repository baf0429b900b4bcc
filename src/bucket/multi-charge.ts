import type { BucketCallOptions, BucketLimit, BucketResult, BucketStore, MultiBucketResult } from './types.js';

/**
 * Takes `cost` from every bucket, one after another in the order given, through the store's
 * single-bucket `consume`; when one denies, gives back what the earlier ones took and answers with
 * every bucket as it then stands. No bucket ever pays what it does not hold, so nothing is admitted
 * that one bucket could not pay; while a charge is under way its earlier takes are visible, so a
 * concurrent charge of the same buckets may be denied that would have fitted.
 *
 * What stores without an atomic `consumeAll` get from the plugin, and what a Redis Cluster does
 * for buckets in different slots. Put the contended buckets (shared by many callers) last: they
 * are then taken only once the others have paid, and held for the shortest time.
 */
export async function consumeInOrder(
  store: Pick<BucketStore, 'consume' | 'refund' | 'peek'>,
  limits: readonly BucketLimit[],
  cost: number,
  options?: BucketCallOptions,
): Promise<MultiBucketResult> {
  const results: BucketResult[] = [];
  for (const [index, limit] of limits.entries()) {
    const result = await store.consume(limit.key, cost, limit.policy, options);
    if (result.allowed) {
      results.push(result);
      continue;
    }
    // Give back the earlier takes; the later buckets are only read, for the caller's answer.
    const given = await Promise.all(
      limits.slice(0, index).map((earlier) => store.refund(earlier.key, cost, earlier.policy, options)),
    );
    const rest = await Promise.all(
      limits.slice(index + 1).map((later) => store.peek(later.key, later.policy, options)),
    );
    const before = given.map((bucket, at) => wouldPay(bucket, cost, limits[at] as BucketLimit));
    const after = rest.map((bucket, at) => wouldPay(bucket, cost, limits[index + 1 + at] as BucketLimit));
    return deniedResult([...before, result, ...after]);
  }
  return allowedResult(results);
}

/**
 * A bucket read with `peek` or after a refund, as `consume` would have answered it: whether it
 * alone could pay `cost`, and if not how long until it can (ms, rounded up; -1 never).
 */
function wouldPay(bucket: BucketResult, cost: number, limit: BucketLimit): BucketResult {
  const missing = cost - bucket.remaining;
  if (missing <= 0) return { ...bucket, cost, allowed: true, retryAfterMs: 0 };
  const { capacity, refillPerSecond } = limit.policy;
  const retryAfterMs = cost > capacity || refillPerSecond <= 0 ? -1 : Math.ceil((missing * 1000) / refillPerSecond);
  return { ...bucket, cost, allowed: false, retryAfterMs };
}

/** The answer when every bucket paid: the binding bucket is the one with the fewest tokens left. */
export function allowedResult(results: BucketResult[]): MultiBucketResult {
  let binding = 0;
  for (const [index, result] of results.entries()) {
    if (result.remaining < (results[binding] as BucketResult).remaining) binding = index;
  }
  return { allowed: true, results, retryAfterMs: 0, binding };
}

/**
 * The answer when some bucket could not pay: the wait is the longest of the buckets' waits (all of
 * them must be able to pay), or -1 when one never can; the binding bucket is the one it comes from.
 */
export function deniedResult(results: BucketResult[]): MultiBucketResult {
  let binding = -1;
  let retryAfterMs = 0;
  for (const [index, result] of results.entries()) {
    if (result.allowed) continue;
    if (result.retryAfterMs < 0) return { allowed: false, results, retryAfterMs: -1, binding: index };
    if (binding === -1 || result.retryAfterMs > retryAfterMs) {
      binding = index;
      retryAfterMs = result.retryAfterMs;
    }
  }
  return { allowed: false, results, retryAfterMs, binding: Math.max(0, binding) };
}
