import { missingTokens, type BucketState } from './bucket-math.js';

/** A bucket as the table holds it: one heap entry, stale once the table holds another state (or none) for its key. */
export interface TableEntry {
  key: string;
  state: BucketState;
}

/** Stale entries allowed beyond the live ones before the heaps are rebuilt (on top of 1× the live count). */
const SLACK = 32;

/**
 * The buckets a `MemoryBucketStore` holds (key → state), ordered so that the store can drop the
 * one that owes least (`evict`) and the refilled ones (`dropFull`) without scanning.
 *
 * What a bucket owes is its missing tokens at the moment of the eviction, and buckets of different
 * refill rates pass each other as time goes by (one missing 100 tokens at 1,000/s owes less than
 * one missing 5 at 1/h within a tenth of a second). So the buckets are kept in one binary min-heap
 * per refill rate, where the order never changes: by full-again instant for a refilling rate, by
 * missing tokens for rate 0. `evict` compares the top of each heap at that instant, in time linear
 * in the number of distinct rates in use (the policies' tiers, typically a handful).
 *
 * Lazy invalidation: writing or deleting a key leaves its old heap entry in place, and entries that
 * no longer match the table are skipped when they reach a top; once they outnumber the live ones
 * the heaps are rebuilt, so they never hold more than about twice the live buckets. `set`,
 * `delete`: O(log n) amortized; `evict`: O(rates + log n) amortized.
 */
export class BucketTable {
  readonly #states = new Map<string, BucketState>();
  /** One heap per refill rate, ordered by `value`. */
  #heaps = new Map<number, TableEntry[]>();
  #entries = 0;

  /** Number of buckets held. */
  get size(): number {
    return this.#states.size;
  }

  /** Heap entries, live and stale: at most 2 × `size` + 32 after any call. */
  get entries(): number {
    return this.#entries;
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

  /**
   * Drops the bucket that owes least at `nowTicks` (a refilled one owes nothing) and returns it
   * (undefined when the table is empty).
   */
  evict(nowTicks: number): TableEntry | undefined {
    let chosen: { heap: TableEntry[]; entry: TableEntry; missing: number } | undefined;
    for (const heap of this.#heaps.values()) {
      const entry = this.#top(heap);
      if (entry === undefined) continue;
      const missing = missingTokens(entry.state, nowTicks);
      if (chosen === undefined || missing < chosen.missing) chosen = { heap, entry, missing };
      if (missing === 0) break; // none owes less
    }
    if (chosen === undefined) return undefined;
    this.#pop(chosen.heap);
    this.#states.delete(chosen.entry.key);
    return chosen.entry;
  }

  /** Drops every refilling bucket that is full at `nowTicks`; returns how many were dropped. */
  dropFull(nowTicks: number): number {
    let dropped = 0;
    for (const [rate, heap] of this.#heaps) {
      if (rate <= 0) continue;
      for (let entry = this.#top(heap); entry !== undefined; entry = this.#top(heap)) {
        if (entry.state.value > nowTicks) break;
        this.#pop(heap);
        this.#states.delete(entry.key);
        dropped++;
      }
    }
    return dropped;
  }

  /** The live entry of `heap` with the least `value`, after discarding the stale ones above it. */
  #top(heap: TableEntry[]): TableEntry | undefined {
    while (heap.length > 0) {
      const entry = heap[0] as TableEntry;
      if (this.#states.get(entry.key) === entry.state) return entry;
      this.#pop(heap);
    }
    return undefined;
  }

  #push(entry: TableEntry): void {
    let heap = this.#heaps.get(entry.state.rate);
    if (heap === undefined) {
      heap = [];
      this.#heaps.set(entry.state.rate, heap);
    }
    this.#entries++;
    let index = heap.length;
    heap.push(entry);
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const above = heap[parent] as TableEntry;
      if (entry.state.value >= above.state.value) break;
      heap[index] = above;
      index = parent;
    }
    heap[index] = entry;
  }

  #pop(heap: TableEntry[]): void {
    const last = heap.pop();
    if (last === undefined) return;
    this.#entries--;
    if (heap.length === 0) {
      this.#heaps.delete(last.state.rate);
      return;
    }
    siftDown(heap, last, 0);
  }

  /** Rebuilds the heaps from the live buckets once stale entries outnumber them. */
  #compactIfStale(): void {
    if (this.#entries <= 2 * this.#states.size + SLACK) return;
    const heaps = new Map<number, TableEntry[]>();
    for (const [key, state] of this.#states) {
      const heap = heaps.get(state.rate);
      if (heap === undefined) heaps.set(state.rate, [{ key, state }]);
      else heap.push({ key, state });
    }
    for (const heap of heaps.values()) {
      for (let index = (heap.length >> 1) - 1; index >= 0; index--) siftDown(heap, heap[index] as TableEntry, index);
    }
    this.#heaps = heaps;
    this.#entries = this.#states.size;
  }
}

/** Places `entry` at `start` or below in `heap`, moving children with a smaller `value` up. */
function siftDown(heap: TableEntry[], entry: TableEntry, start: number): void {
  const length = heap.length;
  let index = start;
  for (;;) {
    let child = 2 * index + 1;
    if (child >= length) break;
    const right = child + 1;
    if (right < length && (heap[right] as TableEntry).state.value < (heap[child] as TableEntry).state.value)
      child = right;
    const below = heap[child] as TableEntry;
    if (below.state.value >= entry.state.value) break;
    heap[index] = below;
    index = child;
  }
  heap[index] = entry;
}
