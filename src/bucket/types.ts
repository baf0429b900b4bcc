/**
 * The token-bucket contract shared by every store.
 *
 * A bucket holds at most `capacity` tokens and refills continuously at `refillPerSecond`.
 * A key that does not exist is a full bucket. Every store returns the same `BucketResult`.
 */

/**
 * How large a caller's bucket is and how fast it refills.
 *
 * A key's policy may change from one call to the next (a caller moving to another tier): the tokens
 * the bucket is missing (used and not yet refilled) carry over, counted under the policy it was last
 * written with up to the call and refilled at the new rate from then on, so tokens left =
 * max(0, new capacity − missing). An upgrade never takes tokens away; a downgrade keeps the debt
 * (missing tokens beyond the new capacity are kept, not capped, only bounded so that the new rate
 * refills them within 1e9 s).
 */
export interface BucketPolicy {
  /** Maximum number of tokens (the burst). Must be a finite number > 0. */
  capacity: number;
  /** Tokens added per second, continuously. Must be a finite number ≥ 0. */
  refillPerSecond: number;
}

/** The state of a bucket after one operation. */
export interface BucketResult {
  /** consume: the tokens were taken. peek and refund: always true. */
  allowed: boolean;
  /** The number of tokens that was asked for (0 for peek). */
  cost: number;
  /**
   * Tokens left after the operation (may be fractional; whole for integer costs on integer
   * capacities and rates up to 8000/s). Never below 0: after a move to a smaller capacity the
   * bucket may miss more tokens than that capacity, and nothing is left until the excess refills.
   */
  remaining: number;
  /** The policy's capacity. */
  capacity: number;
  /**
   * 0 when allowed; when denied, milliseconds until `cost` tokens exist;
   * -1 when `cost > capacity` (the call can never succeed) or when the bucket does not refill
   * (`refillPerSecond` 0). Whole milliseconds, rounded up.
   */
  retryAfterMs: number;
  /**
   * Milliseconds until the bucket is full again (0 when full; -1 when it never refills).
   * Whole milliseconds, rounded up.
   */
  resetAfterMs: number;
}

/** Per-call options every store accepts. */
export interface BucketCallOptions {
  /**
   * Answer within this many milliseconds or reject with `BucketStoreTimeoutError`; a command that
   * reaches Redis after the deadline has no effect (see `RedisBucketStore`). Must be a finite
   * number > 0. `MemoryBucketStore` answers synchronously, so it always meets the deadline.
   * @default undefined (no deadline)
   */
  timeoutMs?: number;
}

/** Where buckets live. Implementations: `RedisBucketStore`, `MemoryBucketStore`. */
export interface BucketStore {
  /** Takes `cost` tokens if they exist; otherwise takes nothing and writes nothing. */
  consume(key: string, cost: number, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult>;
  /** Gives back `amount` tokens, never beyond `capacity`. */
  refund(key: string, amount: number, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult>;
  /** Reads the bucket without changing it. */
  peek(key: string, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult>;
  /**
   * Which independently failing part of the store holds `key`'s bucket (e.g. the Redis Cluster
   * master serving its slot). The plugin keeps one circuit breaker per partition, so a failing
   * part does not stop the calls to the healthy ones. Called on every request: it must be cheap,
   * synchronous and never throw. Two keys in the same partition must get equal strings; a
   * partition that is replaced (a promoted replica) should get a new string.
   * @default undefined (the whole store is one partition)
   */
  partitionOf?(key: string): string;
}
