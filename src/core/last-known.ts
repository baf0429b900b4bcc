import { LRUCache } from 'lru-cache';
import { bucketKey } from '../bucket/bucket-key.js';
import type { BucketLimit, BucketResult } from '../bucket/types.js';

/** Buckets whose last answer this process remembers, at most (about 120 bytes each). */
export const MAX_KNOWN_BUCKETS = 100_000;

/** What the store last said of one bucket. */
interface Known {
  /** Tokens the bucket missed then (debt included), and the refill that wins them back. */
  readonly missing: number;
  readonly refillPerSecond: number;
  /** When the store answered (ms, `performance.now()`). */
  readonly atMs: number;
  /** Names the in-process bucket that stands in for this one while the store is away. */
  readonly generation: number;
  /** Whether that stand-in started from this answer: the next answer then names a fresh one. */
  standIn: boolean;
}

/** A bucket's identity, whatever store holds it: its key and tag as the stores map them. */
export function bucketIdOf(limit: BucketLimit): string {
  return bucketKey('', limit.key, limit.hashTag);
}

/**
 * What this process last heard from the store about each bucket it charged (at most
 * `MAX_KNOWN_BUCKETS`, least recently used forgotten first), so that the in-process bucket standing
 * in for one during an outage (`onStoreError: 'local'`) starts where the store left it, refilled
 * since, rather than full. A bucket never heard of, or forgotten, starts full.
 */
export class LastKnown {
  readonly #known = new LRUCache<string, Known>({ max: MAX_KNOWN_BUCKETS });
  /** Buckets never heard of whose stand-in has started (it started full). */
  readonly #unknownStandIns = new LRUCache<string, true>({ max: MAX_KNOWN_BUCKETS });
  readonly #now: () => number;
  #generations = 0;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** The store answered for `limit`: `result` is the bucket after the call. */
  record(limit: BucketLimit, result: BucketResult): void {
    const id = bucketIdOf(limit);
    const previous = this.#known.get(id);
    const { refillPerSecond } = limit.policy;
    // Time to full at the refill rate counts the debt too, which `remaining` (never below 0) does not.
    const missing =
      refillPerSecond > 0 && result.resetAfterMs >= 0
        ? (result.resetAfterMs / 1000) * refillPerSecond
        : Math.max(0, result.capacity - result.remaining);
    const generation = previous === undefined || previous.standIn ? ++this.#generations : previous.generation;
    this.#known.set(id, { missing, refillPerSecond, atMs: this.#now(), generation, standIn: false });
  }

  /** Tokens the bucket misses now by what the store last said (refilled since), or 0 when nothing is known. */
  missingNow(limit: BucketLimit): number {
    const known = this.#known.get(bucketIdOf(limit));
    if (known === undefined) return 0;
    const refilled = ((this.#now() - known.atMs) / 1000) * known.refillPerSecond;
    return Math.max(0, known.missing - refilled);
  }

  /**
   * The stand-in bucket's name for `limit`, and whether it is to start from what is known now (its
   * first use since the store's last answer).
   */
  standInFor(limit: BucketLimit): { readonly key: string; readonly fresh: boolean } {
    const id = bucketIdOf(limit);
    const known = this.#known.get(id);
    if (known === undefined) {
      this.#unknownStandIns.set(id, true);
      return { key: `${id}~0`, fresh: false };
    }
    const fresh = !known.standIn;
    known.standIn = true;
    return { key: `${id}~${known.generation}`, fresh };
  }

  /** The name of `limit`'s stand-in bucket if it has started since the store's last answer, else undefined. */
  startedStandIn(limit: BucketLimit): string | undefined {
    const id = bucketIdOf(limit);
    const known = this.#known.get(id);
    if (known === undefined) return this.#unknownStandIns.has(id) ? `${id}~0` : undefined;
    return known.standIn ? `${id}~${known.generation}` : undefined;
  }
}
