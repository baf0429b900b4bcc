import { bucketKey } from '../bucket/bucket-key.js';
import type { BucketLimit, BucketPolicy, BucketResult, MultiBucketResult } from '../bucket/types.js';

/** What the store last said about a bucket that refused an operation. */
interface Account {
  readonly policy: BucketPolicy;
  /** Tokens it held then. */
  readonly remaining: number;
  /** When (ms, this process's monotonic clock). */
  readonly at: number;
}

/** A refusal answered from the cache: the buckets it knows about (undefined: not known here). */
export interface LocalDenial {
  readonly results: (BucketResult | undefined)[];
  readonly binding: number;
  readonly retryAfterMs: number;
}

/**
 * Refusals answered in this process, without a store call. An abusive caller who keeps sending after
 * a 429 would otherwise cost a Redis call per request, all on one key and so one shard.
 *
 * After the store refuses an operation, the cache keeps what it said about each bucket that could not
 * pay (tokens left, policy, when). A later operation on such a bucket whose cost cannot fit by that
 * account (the tokens then plus the refill since, never above the capacity) is refused here, with
 * the same wait the store would give, counted down locally; a cheaper one that could fit goes to the
 * store. Keyed by the bucket, so a shared bucket's refusal answers every caller of it.
 *
 * The account only errs on the safe side: tokens that arrive by other ways than refill (a refund of
 * another request, in this process or another) are not in it, so a cached refusal can be slightly
 * conservative (a request refused that the store would just have admitted, until the refill covers
 * it), never admit too much: the cache never admits anything, it only refuses. A policy change for
 * a bucket (another capacity or rate) drops its account. Bounded in entries (LRU), per process.
 */
export class DenyCache {
  readonly #maxEntries: number;
  readonly #now: () => number;
  /** Bucket identity → account; insertion order is least recently used first. */
  readonly #accounts = new Map<string, Account>();

  /** `maxEntries`: buckets remembered at most (least recently used dropped first). */
  constructor(maxEntries: number, now: () => number = () => performance.now()) {
    this.#maxEntries = maxEntries;
    this.#now = now;
  }

  get size(): number {
    return this.#accounts.size;
  }

  /** The store refused: remember every bucket that could not pay. */
  remember(limits: readonly BucketLimit[], answer: MultiBucketResult): void {
    const at = this.#now();
    for (const [index, limit] of limits.entries()) {
      const result = answer.results[index];
      if (result === undefined || result.allowed) continue;
      const id = identity(limit);
      this.#accounts.delete(id);
      this.#accounts.set(id, { policy: limit.policy, remaining: result.remaining, at });
      if (this.#accounts.size > this.#maxEntries) {
        const oldest = this.#accounts.keys().next();
        if (oldest.done !== true) this.#accounts.delete(oldest.value);
      }
    }
  }

  /** The store admitted a charge on these buckets: their accounts are out of date. */
  forget(limits: readonly BucketLimit[]): void {
    if (this.#accounts.size === 0) return;
    for (const limit of limits) this.#accounts.delete(identity(limit));
  }

  /** A refusal of `cost` on `limits` by the remembered accounts, or undefined: ask the store. */
  check(limits: readonly BucketLimit[], cost: number): LocalDenial | undefined {
    if (this.#accounts.size === 0) return undefined;
    const now = this.#now();
    let results: (BucketResult | undefined)[] | undefined;
    let binding = -1;
    let retryAfterMs = 0;
    for (const [index, limit] of limits.entries()) {
      const id = identity(limit);
      const account = this.#accounts.get(id);
      if (account === undefined) continue;
      const { capacity, refillPerSecond } = limit.policy;
      if (account.policy.capacity !== capacity || account.policy.refillPerSecond !== refillPerSecond) {
        this.#accounts.delete(id);
        continue;
      }
      const tokens = Math.min(capacity, account.remaining + (refillPerSecond * (now - account.at)) / 1000);
      if (tokens >= cost) {
        // Enough has refilled by the account: the store decides again from here.
        this.#accounts.delete(id);
        continue;
      }
      this.#accounts.delete(id);
      this.#accounts.set(id, account); // recently used
      const wait = cost > capacity || refillPerSecond <= 0 ? -1 : Math.ceil(((cost - tokens) * 1000) / refillPerSecond);
      const fullIn = refillPerSecond <= 0 ? -1 : Math.ceil(((capacity - tokens) * 1000) / refillPerSecond);
      results ??= limits.map(() => undefined);
      results[index] = { allowed: false, cost, remaining: tokens, capacity, retryAfterMs: wait, resetAfterMs: fullIn };
      // The wait until every bucket can pay: the longest, and -1 (never) beats any.
      if (binding === -1 || (retryAfterMs >= 0 && (wait < 0 || wait > retryAfterMs))) {
        binding = index;
        retryAfterMs = wait;
      }
    }
    return results === undefined ? undefined : { results, binding, retryAfterMs };
  }
}

/**
 * A bucket's identity in the store: its Redis key without a prefix (`bucketKey`): the same key
 * under another tag, or none, is another bucket, and an identity's length does not change the
 * entry's (a long one is kept as its SHA-256).
 */
function identity(limit: BucketLimit): string {
  return bucketKey('', limit.key, limit.hashTag);
}
