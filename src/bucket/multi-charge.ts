import type { BucketCallOptions, BucketLimit, BucketResult, BucketStore, MultiBucketResult } from './types.js';

/**
 * The calls that charge buckets group by group: each group (a list of indexes into the limits) is
 * charged all or nothing by one call. One result per bucket of the group, in its order.
 */
export interface GroupCalls {
  /** Takes the cost from every bucket of the group or from none; each result says whether that bucket could pay. */
  consume(group: readonly number[]): Promise<BucketResult[]>;
  /** Gives the cost back to every bucket of the group. */
  refund(group: readonly number[]): Promise<BucketResult[]>;
  /** Reads every bucket of the group. */
  peek(group: readonly number[]): Promise<BucketResult[]>;
}

/**
 * Takes `cost` from every bucket, one group after another in the order given; when a group
 * denies, gives back what the earlier groups took and answers with every bucket as it then stands
 * (the earlier ones after their give-back, the later ones read). No bucket ever pays what it does
 * not hold, so nothing is admitted that one bucket could not pay; while a charge is under way its
 * earlier takes are visible, so a concurrent charge of the same buckets may be denied that would
 * have fitted.
 *
 * Failures: when a group's charge fails (throws), the earlier takes are given back in the
 * background and the failure is passed on. When the charge was denied, the denial stands whatever
 * happens to the give-backs and reads: a give-back that fails leaves its buckets charged (the
 * caller pays, nothing is admitted) and they are reported as their charge left them; a later
 * bucket that cannot be read is reported full.
 */
export async function consumeGroupsInOrder(
  groups: readonly (readonly number[])[],
  limits: readonly BucketLimit[],
  cost: number,
  calls: GroupCalls,
): Promise<MultiBucketResult> {
  const results: BucketResult[] = new Array<BucketResult>(limits.length);
  for (const [at, group] of groups.entries()) {
    let charged: BucketResult[];
    try {
      charged = await calls.consume(group);
    } catch (error) {
      void Promise.allSettled(groups.slice(0, at).map((earlier) => calls.refund(earlier)));
      throw error;
    }
    place(results, group, charged);
    if (charged.every((result) => result.allowed)) continue;

    // Give back the earlier takes; the later buckets are only read, for the caller's answer.
    const [given, read] = await Promise.all([
      Promise.allSettled(groups.slice(0, at).map((earlier) => calls.refund(earlier))),
      Promise.allSettled(groups.slice(at + 1).map((later) => calls.peek(later))),
    ]);
    const answer = (settled: PromiseSettledResult<BucketResult[]>, indexes: readonly number[], fallback: boolean) => {
      indexes.forEach((index, i) => {
        const limit = limits[index] as BucketLimit;
        if (settled.status === 'fulfilled') results[index] = wouldPay(settled.value[i] as BucketResult, cost, limit);
        else if (fallback) results[index] = unread(cost, limit);
      });
    };
    for (const [g, settled] of given.entries()) answer(settled, groups[g] as number[], false);
    for (const [g, settled] of read.entries()) answer(settled, groups[at + 1 + g] as number[], true);
    return deniedResult(results);
  }
  return allowedResult(results);
}

/**
 * `consumeGroupsInOrder` with one bucket per group, through the store's single-bucket calls: what
 * stores without an atomic `consumeAll` get from the plugin. Put the contended buckets (shared by
 * many callers) last: they are then taken only once the others have paid, and held for the
 * shortest time.
 */
export function consumeInOrder(
  store: Pick<BucketStore, 'consume' | 'refund' | 'peek'>,
  limits: readonly BucketLimit[],
  cost: number,
  options?: BucketCallOptions,
): Promise<MultiBucketResult> {
  const limitAt = (group: readonly number[]): BucketLimit => limits[group[0] as number] as BucketLimit;
  return consumeGroupsInOrder(
    limits.map((_, index) => [index]),
    limits,
    cost,
    {
      consume: async (group) => [await store.consume(limitAt(group).key, cost, limitAt(group).policy, options)],
      refund: async (group) => [await store.refund(limitAt(group).key, cost, limitAt(group).policy, options)],
      peek: async (group) => [await store.peek(limitAt(group).key, limitAt(group).policy, options)],
    },
  );
}

function place(results: BucketResult[], group: readonly number[], values: readonly BucketResult[]): void {
  group.forEach((index, i) => {
    results[index] = values[i] as BucketResult;
  });
}

/**
 * A bucket read with `peek` or after a refund, as `consume` would have answered it: whether it
 * alone could pay `cost`, and if not how long until it can (ms, rounded up; -1 never).
 */
export function wouldPay(bucket: BucketResult, cost: number, limit: BucketLimit): BucketResult {
  const missing = cost - bucket.remaining;
  if (missing <= 0 && cost <= limit.policy.capacity) return { ...bucket, cost, allowed: true, retryAfterMs: 0 };
  const { capacity, refillPerSecond } = limit.policy;
  const retryAfterMs = cost > capacity || refillPerSecond <= 0 ? -1 : Math.ceil((missing * 1000) / refillPerSecond);
  return { ...bucket, cost, allowed: false, retryAfterMs };
}

/** A bucket that could not be read, reported full. */
function unread(cost: number, limit: BucketLimit): BucketResult {
  const { capacity } = limit.policy;
  const never = cost > capacity;
  return { allowed: !never, cost, remaining: capacity, capacity, retryAfterMs: never ? -1 : 0, resetAfterMs: 0 };
}

/** The answer when every bucket paid: the binding bucket is the one with the fewest tokens left (the first of equals). */
export function allowedResult(results: BucketResult[]): MultiBucketResult {
  let binding = 0;
  for (const [index, result] of results.entries()) {
    if (result.remaining < (results[binding] as BucketResult).remaining) binding = index;
  }
  return { allowed: true, results, retryAfterMs: 0, binding };
}

/**
 * The answer when some bucket could not pay: the wait is the longest of the buckets' waits (all of
 * them must be able to pay), or -1 when one never can (the first such is binding); the binding
 * bucket is the one it comes from (the first of equals).
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
