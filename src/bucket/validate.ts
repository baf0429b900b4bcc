/**
 * Argument checks shared by every store, run before any state is touched: a bad policy or cost
 * is a programmer error and throws `TypeError` (wrong type) or `RangeError` (wrong value) naming
 * the argument.
 */
import type { BucketCallOptions, BucketPolicy } from './types.js';

function describe(value: unknown): string {
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
 * refills) refills from empty within `MAX_REFILL_SECONDS`.
 */
export function checkPolicy(policy: unknown): asserts policy is BucketPolicy {
  if (typeof policy !== 'object' || policy === null) {
    throw new TypeError(`policy must be an object { capacity, refillPerSecond }, got ${describe(policy)}`);
  }
  const { capacity, refillPerSecond } = policy as Record<string, unknown>;
  checkNumber('policy.capacity', capacity, true);
  checkNumber('policy.refillPerSecond', refillPerSecond, false);
  if (refillPerSecond > 0 && capacity / refillPerSecond > MAX_REFILL_SECONDS) {
    throw new RangeError(
      `policy.capacity / policy.refillPerSecond (seconds to refill) must be at most ${MAX_REFILL_SECONDS}, got ${capacity / refillPerSecond}`,
    );
  }
}

/** Throws unless `options` is absent or has an absent or finite `timeoutMs` > 0. */
export function checkCallOptions(options: unknown): asserts options is BucketCallOptions | undefined {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`options must be an object { timeoutMs? }, got ${describe(options)}`);
  }
  const { timeoutMs } = options as Record<string, unknown>;
  if (timeoutMs !== undefined) checkNumber('options.timeoutMs', timeoutMs, true);
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
