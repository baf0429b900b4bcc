/**
 * Argument checks shared by every store, run before any state is touched: a bad policy or cost
 * is a programmer error and throws `TypeError` (wrong type) or `RangeError` (wrong value) naming
 * the argument.
 */
import type { BucketCallOptions, BucketLimit, BucketPolicy } from './types.js';

/** A value as an error message shows it. */
export function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null) return 'null';
  return typeof value;
}

/** Throws unless `value` is a finite number ≥ 0 (or > 0 when `positive`). */
export function checkNumber(name: string, value: unknown, positive: boolean): asserts value is number {
  const rule = positive ? 'a finite number > 0' : 'a finite number >= 0';
  if (typeof value !== 'number') throw new TypeError(`${name} must be ${rule}, got ${describe(value)}`);
  if (!Number.isFinite(value) || value < 0 || (positive && value === 0)) {
    throw new RangeError(`${name} must be ${rule}, got ${describe(value)}`);
  }
}

/** Throws unless `key` is a string (any string: stores map it to a safe name). */
export function checkKey(key: unknown): asserts key is string {
  if (typeof key !== 'string') throw new TypeError(`key must be a string, got ${describe(key)}`);
}

/** Longest time a bucket may take to refill from empty (s): keeps every instant far below 2^53 µs. */
export const MAX_REFILL_SECONDS = 1e9;

/**
 * Throws unless `policy` has a finite `capacity` > 0, a finite `refillPerSecond` ≥ 0, and (when it
 * refills) refills from empty within `MAX_REFILL_SECONDS`. `name` is how messages call it.
 */
export function checkPolicy(policy: unknown, name = 'policy'): asserts policy is BucketPolicy {
  if (typeof policy !== 'object' || policy === null) {
    throw new TypeError(`${name} must be an object { capacity, refillPerSecond }, got ${describe(policy)}`);
  }
  const { capacity, refillPerSecond } = policy as Record<string, unknown>;
  checkNumber(`${name}.capacity`, capacity, true);
  checkNumber(`${name}.refillPerSecond`, refillPerSecond, false);
  if (refillPerSecond > 0 && capacity / refillPerSecond > MAX_REFILL_SECONDS) {
    throw new RangeError(
      `${name}.capacity / ${name}.refillPerSecond (seconds to refill) must be at most ${MAX_REFILL_SECONDS}, got ${capacity / refillPerSecond}`,
    );
  }
}

/** Most buckets one charge of several may name (each is a key of one script call). */
export const MAX_LIMITS = 64;

/**
 * Throws unless `limits` is an array of 1 to `MAX_LIMITS` `{ key, policy, hashTag? }` whose keys
 * all differ (a bucket appears once in a charge), each with a valid policy and an absent or string
 * hash tag.
 */
export function checkLimits(limits: unknown): asserts limits is readonly BucketLimit[] {
  if (!Array.isArray(limits)) {
    throw new TypeError(`limits must be an array of { key, policy, hashTag? }, got ${describe(limits)}`);
  }
  if (limits.length === 0) throw new RangeError('limits must name at least one bucket, got an empty array');
  if (limits.length > MAX_LIMITS) {
    throw new RangeError(`limits must name at most ${MAX_LIMITS} buckets, got ${limits.length}`);
  }
  const seen = new Map<string, number>();
  for (const [index, limit] of (limits as unknown[]).entries()) {
    const name = `limits[${index}]`;
    if (typeof limit !== 'object' || limit === null) {
      throw new TypeError(`${name} must be an object { key, policy, hashTag? }, got ${describe(limit)}`);
    }
    const { key, policy, hashTag } = limit as Record<string, unknown>;
    if (typeof key !== 'string') throw new TypeError(`${name}.key must be a string, got ${describe(key)}`);
    checkPolicy(policy, `${name}.policy`);
    if (hashTag !== undefined && typeof hashTag !== 'string') {
      throw new TypeError(`${name}.hashTag must be a string or undefined, got ${describe(hashTag)}`);
    }
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      throw new RangeError(
        `${name}.key repeats limits[${earlier}].key ${JSON.stringify(key)}: each bucket appears once`,
      );
    }
    seen.set(key, index);
  }
}

/** Longest timer Node keeps (ms): a longer one fires after 1 ms. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/** Throws unless `options` is absent or has an absent `timeoutMs` > 0 and ≤ `MAX_TIMEOUT_MS`. */
export function checkCallOptions(options: unknown): asserts options is BucketCallOptions | undefined {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`options must be an object { timeoutMs? }, got ${describe(options)}`);
  }
  const { timeoutMs } = options as Record<string, unknown>;
  if (timeoutMs === undefined) return;
  checkNumber('options.timeoutMs', timeoutMs, true);
  if ((timeoutMs as number) > MAX_TIMEOUT_MS) {
    throw new RangeError(`options.timeoutMs must be at most ${MAX_TIMEOUT_MS} (about 24.8 days), got ${timeoutMs}`);
  }
}

/** Checks the arguments of one store call; `amountName` is 'cost' or 'amount' (absent for peek). */
export function checkCall(
  key: unknown,
  amountName: 'cost' | 'amount' | undefined,
  amount: unknown,
  policy: unknown,
  options: unknown,
): void {
  checkKey(key);
  if (amountName !== undefined) checkNumber(amountName, amount, false);
  checkPolicy(policy);
  checkCallOptions(options);
}
