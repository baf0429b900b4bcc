import type { BucketState } from './bucket-math.js';

/** One heap entry; stale once the table holds another state (or none) for its key. */
interface Entry {
  key: string;
  state: BucketState;
}

/**
 * Whether bucket `a` is closer to full than `b`: a refilling bucket before one that never refills;
 * among refilling ones the earlier full-again instant, among the others fewer missing tokens.
 */
function closerToFull(a: BucketState, b: BucketState): boolean {
  if (a.rate > 0 !== b.rate > 0) return a.rate > 0;
  return a.value < b.value;
}

/** Stale entries allowed beyond the live ones before the heap is rebuilt (on top of 1× the live count). */
const SLACK = 32;

/**
 * The buckets a `MemoryBucketStore` holds (key → state), ordered by how close each is to full, so
 * that the store can drop the one closest to full (`evict`) and the refilled ones (`dropFull`)
 * without scanning. A binary min-heap with lazy invalidation: writing or deleting a key leaves its
 * old heap entry in place, and entries that no longer match the table are skipped when they reach
 * the top; once they outnumber the live ones the heap is rebuilt, so it never holds more than about
 * twice the live buckets. `set`, `delete`, `evict`: O(log n) amortized.
 */
export class BucketTable {
  readonly #states = new Map<string, BucketState>();
  #heap: Entry[] = [];

  /** Number of buckets held. */
  get size(): number {
    return this.#states.size;
  }

  /** Heap entries, live and stale: at most 2 × `size` + 32 after any call. */
  get entries(): number {
    return this.#heap.length;
  }

  get(key: string): BucketState | undefined {
    return this.#states.get(key);
  }

  set(key: string, state: BucketState): void {
    this.#states.set(key, state);
    this.#push({ key, state });
    this.#compactIfStale();
  }

  delete(key: string): void {
    if (this.#states.delete(key)) this.#compactIfStale();
  }

  /** Drops the bucket closest to full; returns its key (undefined when empty). */
  evict(): string | undefined {
    const entry = this.#top();
    if (entry === undefined) return undefined;
    this.#pop();
    this.#states.delete(entry.key);
    return entry.key;
  }

  /** Drops every refilling bucket that is full at `nowTicks`; returns how many were dropped. */
  dropFull(nowTicks: number): number {
    let dropped = 0;
    for (let entry = this.#top(); entry !== undefined; entry = this.#top()) {
      if (entry.state.rate <= 0 || entry.state.value > nowTicks) break;
      this.#pop();
      this.#states.delete(entry.key);
      dropped++;
    }
    return dropped;
  }

  /** The live entry closest to full, after discarding the stale ones above it. */
  #top(): Entry | undefined {
    while (this.#heap.length > 0) {
      const entry = this.#heap[0] as Entry;
      if (this.#states.get(entry.key) === entry.state) return entry;
      this.#pop();
    }
    return undefined;
  }

  #push(entry: Entry): void {
    const heap = this.#heap;
    let index = heap.length;
    heap.push(entry);
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const above = heap[parent] as Entry;
      if (!closerToFull(entry.state, above.state)) break;
      heap[index] = above;
      index = parent;
    }
    heap[index] = entry;
  }

  #pop(): void {
    const heap = this.#heap;
    const last = heap.pop();
    if (last === undefined || heap.length === 0) return;
    this.#siftDown(last, 0);
  }

  /** Places `entry` at `index` or below, moving closer children up. */
  #siftDown(entry: Entry, start: number): void {
    const heap = this.#heap;
    const length = heap.length;
    let index = start;
    for (;;) {
      let child = 2 * index + 1;
      if (child >= length) break;
      const right = child + 1;
      if (right < length && closerToFull((heap[right] as Entry).state, (heap[child] as Entry).state)) child = right;
      const below = heap[child] as Entry;
      if (!closerToFull(below.state, entry.state)) break;
      heap[index] = below;
      index = child;
    }
    heap[index] = entry;
  }

  /** Rebuilds the heap from the live buckets once stale entries outnumber them. */
  #compactIfStale(): void {
    if (this.#heap.length <= 2 * this.#states.size + SLACK) return;
    const heap: Entry[] = [];
    for (const [key, state] of this.#states) heap.push({ key, state });
    this.#heap = heap;
    for (let index = (heap.length >> 1) - 1; index >= 0; index--) this.#siftDown(heap[index] as Entry, index);
  }
}
