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
   * reaches Redis after the deadline has no effect (see `RedisBucketStore`). Must be a number
   * > 0 and at most 2,147,483,647 (Node's longest timer). `MemoryBucketStore` answers synchronously, so it always meets the deadline.
   * @default undefined (no deadline)
   */
  timeoutMs?: number;
}

/** One bucket of a charge that takes the same cost from several buckets at once. */
export interface BucketLimit {
  /** The bucket's key, as for `consume` (any string; the store maps it to a safe key). */
  readonly key: string;
  readonly policy: BucketPolicy;
  /**
   * Buckets with the same hash tag live in one Redis Cluster slot, so one atomic script call
   * charges them together; buckets in different slots are charged one slot after another (see
   * `consumeAll`). The slot follows from the tag (mapped like a key: user text never picks it;
   * see `bucketKey`). In Redis the tag is part of where the bucket is kept: the same key with
   * another tag, or with none, is another bucket (a limit without a tag is the bucket `consume`
   * uses for that key). So a bucket's tag must not change between calls, and refunds and reads go
   * through `refundAll` / `peekAll` with the same limits. Ignored by stores without slots
   * (`MemoryBucketStore`: a bucket is its key).
   * @default undefined (the bucket's own key decides where it lives)
   */
  readonly hashTag?: string;
}

/** What an all-or-nothing charge of several buckets answered. */
export interface MultiBucketResult {
  /** True when every bucket held the cost and each was charged; false when nothing was taken anywhere. */
  allowed: boolean;
  /**
   * One result per bucket, in the order given, each with `cost` the charge's cost: the bucket after
   * the charge when allowed, the bucket as it stands when denied (each result's `allowed` says
   * whether that bucket alone could pay, its `retryAfterMs` how long until it can). Across Cluster
   * slots "as it stands" is after the give-back for the slots charged before the denial, and as
   * read just after it for the slots after; a bucket that could not be read is reported full.
   */
  results: BucketResult[];
  /**
   * 0 when allowed; when denied, milliseconds until every bucket can pay (the longest of their
   * waits), or -1 when one never can. Whole milliseconds, rounded up.
   */
  retryAfterMs: number;
  /**
   * The index of the bucket that decides: when denied, the one with the longest wait (the one
   * `retryAfterMs` comes from; the first that never can when it is -1); when allowed, the one with
   * the fewest tokens left. The first of equals.
   */
  binding: number;
}

/** Where buckets live. Implementations: `RedisBucketStore`, `MemoryBucketStore`. */
export interface BucketStore {
  /**
   * Takes `cost` tokens if they exist; otherwise takes nothing, and writes nothing unless `policy`
   * is a new one for the bucket (the policy change is then kept: its rate refills from now).
   */
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
  partitionOf?(key: string, hashTag?: string): string;
  /**
   * Takes `cost` tokens from every bucket if each holds them; otherwise takes nothing from any.
   * Atomic where the store can make it so (one Redis node; buckets of one Cluster slot). Buckets in
   * different Cluster slots are charged one slot after another, in the order the limits first name
   * them, and a later denial gives back what the earlier ones took (`consumeInOrder`): a concurrent
   * charge may then be denied spuriously, but no charge is ever admitted that one bucket could not
   * pay. Give the contended buckets (shared by many callers) last.
   *
   * `limits` must name 1 to 64 buckets, each key at most once (otherwise `RangeError`).
   * With `timeoutMs`, a charge that reaches the store after its deadline takes nothing anywhere
   * and rejects with `BucketStoreTimeoutError` (across slots: a slot that misses it gives back the
   * earlier slots' takes); one that was applied but answered late is given back. When a give-back
   * fails (the store unreachable), its buckets stay charged: the caller pays, nothing is admitted.
   * @default undefined (the plugin charges the buckets one by one in that way)
   */
  consumeAll?(limits: readonly BucketLimit[], cost: number, options?: BucketCallOptions): Promise<MultiBucketResult>;
  /**
   * Gives `amount` tokens back to every bucket (never beyond its capacity); one result per bucket,
   * in the order given. Across Cluster slots each slot is one call; a timeout may leave some
   * refunded and others not.
   */
  refundAll?(limits: readonly BucketLimit[], amount: number, options?: BucketCallOptions): Promise<BucketResult[]>;
  /** Reads every bucket without changing any; one result per bucket, in the order given (cost 0). */
  peekAll?(limits: readonly BucketLimit[], options?: BucketCallOptions): Promise<BucketResult[]>;
  /**
   * Takes `amount` tokens from every bucket whether or not it holds them: what a bucket lacks is
   * kept as a debt (reported as 0 tokens left), which it must refill before it admits anything
   * again, bounded so that its rate refills it within 1e9 s. For work found after the fact: the
   * plugin charges with it what an operation did beyond its up-front charge (a list that came back
   * longer than it was priced for). One result per bucket, in the order given, each `allowed`.
   * @default undefined (the plugin then takes with `consume` what each bucket still holds, and the
   * rest of the excess is not charged)
   */
  takeAll?(limits: readonly BucketLimit[], amount: number, options?: BucketCallOptions): Promise<BucketResult[]>;
}
