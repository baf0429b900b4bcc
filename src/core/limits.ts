import type { BucketLimit, BucketPolicy } from '../bucket/types.js';
import { checkKnownOptions } from '../known-options.js';
import { MAX_LIMITS, checkPolicy } from '../bucket/validate.js';
import { POLICY_NAME_PATTERN } from './rate-limit-headers.js';

/**
 * One of several buckets an operation is charged against (`policy` may return an array of them):
 * a window of the caller's own (no `key`: one bucket per name for the caller `identify` names), or
 * a bucket of another owner (`key`: the bucket's own identity, not prefixed by the caller, such as
 * the caller's app or organisation, or a global ceiling).
 */
export interface BudgetLimit extends BucketPolicy {
  /** The bucket's name in the RateLimit headers and `extensions.cost.budgets`: 1–64 of `A-Z a-z 0-9 _ . : -`, unique in one policy. */
  name: string;
  /** Another owner's bucket, shared by every caller whose policy names it. @default the caller's own */
  key?: string;
  /**
   * Buckets with the same hash tag live in one Redis Cluster slot and are charged in one atomic call.
   * @default the caller's key for the caller's own buckets (so they share a slot); the bucket's own
   * key otherwise (so a shared bucket never shares a Redis key with a caller's single bucket)
   */
  hashTag?: string;
}

/** A limit ready to charge: the store's bucket, and what the caller is told about it. */
export interface ResolvedLimit extends BucketLimit {
  /** The name in the headers and `extensions.cost.budgets`. */
  readonly name: string;
  /** Whether it belongs to another owner (`key` was given): charged after the caller's own. */
  readonly shared: boolean;
}

/**
 * The limits of one operation from what `policy` gave: one policy object (today's single bucket,
 * keyed by the caller and named by `policyName`), or an array of `BudgetLimit`s. The caller's own
 * buckets come first and shared ones last, each group in the order given: the order a Redis Cluster
 * charges buckets of different slots in, so the contended shared buckets are held for the shortest
 * time (see `BucketStore.consumeAll`).
 *
 * A caller's named bucket is keyed by the caller's key and the name joined by NUL (which no name
 * holds), and tagged with the caller's key, so all of a caller's buckets share one Cluster slot.
 *
 * @throws {TypeError | RangeError} describing what is wrong (the plugin reports it as a server fault,
 * or at construction for a fixed policy).
 */
/** The fields of a policy, and of one limit of a list (a misspelled one would be ignored). */
const POLICY_FIELDS = ['capacity', 'refillPerSecond'];
const LIMIT_FIELDS = ['name', 'capacity', 'refillPerSecond', 'key', 'hashTag'];

export function resolveLimits(value: unknown, callerKey: string, policyName: string): ResolvedLimit[] {
  if (!Array.isArray(value)) {
    const problem = policyProblem(value);
    if (problem !== undefined) throw problem;
    checkKnownOptions('policy', value as object, POLICY_FIELDS);
    return [{ key: callerKey, policy: value as BucketPolicy, name: policyName, shared: false }];
  }
  if (value.length === 0) throw new RangeError('policy must hold at least one limit; got an empty array');
  if (value.length > MAX_LIMITS) {
    throw new RangeError(`policy must hold at most ${MAX_LIMITS} limits; got ${value.length}`);
  }
  const own: ResolvedLimit[] = [];
  const shared: ResolvedLimit[] = [];
  const names = new Set<string>();
  const sharedKeys = new Map<string, number>();
  for (const [index, entry] of value.entries()) {
    const where = `policy[${index}]`;
    if (entry === null || typeof entry !== 'object') {
      throw new TypeError(`${where} must be { name, capacity, refillPerSecond, key?, hashTag? }`);
    }
    checkKnownOptions(where, entry, LIMIT_FIELDS);
    const { name, key, hashTag, capacity, refillPerSecond } = entry as Partial<BudgetLimit>;
    if (typeof name !== 'string' || !POLICY_NAME_PATTERN.test(name)) {
      throw new RangeError(`${where}.name must be 1 to 64 letters, digits or _ . : -; got ${JSON.stringify(name)}`);
    }
    if (names.has(name)) throw new RangeError(`${where}.name "${name}" is used twice`);
    names.add(name);
    const policy = { capacity, refillPerSecond };
    const problem = policyProblem(policy);
    if (problem !== undefined) throw retyped(problem, `${where}: ${problem.message}`);
    if (key !== undefined && (typeof key !== 'string' || key.length === 0)) {
      throw new TypeError(`${where}.key must be a non-empty string when given; got ${JSON.stringify(key)}`);
    }
    if (hashTag !== undefined && (typeof hashTag !== 'string' || hashTag.length === 0)) {
      throw new TypeError(`${where}.hashTag must be a non-empty string when given; got ${JSON.stringify(hashTag)}`);
    }
    const bucketPolicy = policy as BucketPolicy;
    if (key === undefined) {
      own.push({
        key: `${callerKey}\u0000${name}`,
        policy: bucketPolicy,
        hashTag: hashTag ?? callerKey,
        name,
        shared: false,
      });
    } else {
      const earlier = sharedKeys.get(key);
      if (earlier !== undefined)
        throw new RangeError(`${where}.key repeats policy[${earlier}].key ${JSON.stringify(key)}`);
      sharedKeys.set(key, index);
      // Tagged by its own key unless told otherwise: a tagged bucket never has the Redis key of a
      // caller's plain bucket, so no identity a caller picks ("acme") reaches the shared one.
      shared.push({ key, policy: bucketPolicy, hashTag: hashTag ?? key, name, shared: true });
    }
  }
  for (const limit of own) {
    // Only a key holding NUL can spell a caller's own bucket; refused here, not by the store.
    if (sharedKeys.has(limit.key)) {
      throw new RangeError(
        `policy[${sharedKeys.get(limit.key)}].key is the key of the caller's own "${limit.name}" bucket`,
      );
    }
  }
  return [...own, ...shared];
}

/** The smallest capacity: the default `maxCost` (an operation costing more could never be paid). */
export function smallestCapacity(limits: readonly ResolvedLimit[]): number {
  let smallest = Number.POSITIVE_INFINITY;
  for (const limit of limits) smallest = Math.min(smallest, limit.policy.capacity);
  return smallest;
}

/**
 * Why `policy` cannot be used, or undefined when it can: the stores' own check (`checkPolicy`), so
 * the plugin never hands a store a policy the store would refuse.
 */
export function policyProblem(policy: unknown): TypeError | RangeError | undefined {
  try {
    checkPolicy(policy);
    return undefined;
  } catch (error) {
    if (error instanceof TypeError || error instanceof RangeError) return error;
    throw error;
  }
}

function retyped(error: TypeError | RangeError, message: string): TypeError | RangeError {
  return error instanceof RangeError ? new RangeError(message) : new TypeError(message);
}
