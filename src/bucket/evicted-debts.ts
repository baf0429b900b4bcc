import { createHash, randomBytes } from 'node:crypto';
import { missingTokens, type BucketState } from './bucket-math.js';

/** Slots of one set: a debt is kept in one of the 16 slots of the set its key hashes to. */
export const WAYS = 16;

/** Memory of one slot (bytes): a 32-bit fingerprint, the rate and the value as doubles. */
export const SLOT_BYTES = 20;

/**
 * What `MemoryBucketStore` remembers of the buckets it evicts: their states, 20 bytes each instead
 * of a table entry's few hundred, so that a caller who floods the store with fresh identities to
 * push out an emptied bucket finds it still owing when it comes back.
 *
 * A fixed number of slots (a power of two, at least `WAYS`), in sets of `WAYS`; a key's set and its
 * 32-bit fingerprint come from SHA-256 of the key under a secret drawn when the ledger is made, so
 * a caller cannot choose identities that land in another's set. A debt put into a full set takes
 * the slot of the debt that owes least at that moment (a refilled one owes nothing), or is dropped
 * when it owes least itself: each set keeps its 16 largest debts. A lookup that matches a
 * fingerprint reads that state (two keys share a set and a fingerprint once in 2^32 × the sets:
 * the second then inherits the first's debt). A debt that has refilled is forgotten when read.
 */
export class EvictedDebts {
  readonly #secret = randomBytes(16);
  readonly #sets: number;
  /** 0: an empty slot. */
  readonly #fingerprints: Uint32Array;
  readonly #rates: Float64Array;
  readonly #values: Float64Array;
  #size = 0;

  /** @param slots rounded up to a power of two, at least `WAYS`. */
  constructor(slots: number) {
    let count = WAYS;
    while (count < slots) count *= 2;
    this.#sets = count / WAYS;
    this.#fingerprints = new Uint32Array(count);
    this.#rates = new Float64Array(count);
    this.#values = new Float64Array(count);
  }

  /** Slots in all. */
  get slots(): number {
    return this.#fingerprints.length;
  }

  /** Debts held (some may have refilled since). */
  get size(): number {
    return this.#size;
  }

  /** The debt remembered for `key`, unless it has refilled by `nowTicks` (then it is forgotten). */
  get(key: string, nowTicks: number): BucketState | undefined {
    if (this.#size === 0) return undefined;
    const slot = this.#find(key);
    if (slot === undefined) return undefined;
    const state = { rate: this.#rates[slot] as number, value: this.#values[slot] as number };
    if (missingTokens(state, nowTicks) > 0) return state;
    this.#clear(slot);
    return undefined;
  }

  /** Forgets `key`'s debt (the store holds the bucket again, or it is full). */
  delete(key: string): void {
    if (this.#size === 0) return;
    const slot = this.#find(key);
    if (slot !== undefined) this.#clear(slot);
  }

  /** Remembers `state` for `key`, in place of the least debt of its set when that one owes less. */
  put(key: string, state: BucketState, nowTicks: number): void {
    const missing = missingTokens(state, nowTicks);
    if (missing <= 0) return;
    const { set, fingerprint } = this.#hash(key);
    const first = set * WAYS;
    let target = -1;
    let least = missing;
    for (let slot = first; slot < first + WAYS; slot++) {
      const held = this.#fingerprints[slot] as number;
      if (held === fingerprint) {
        target = slot;
        break;
      }
      if (held === 0) {
        if (target === -1 || least > 0) {
          target = slot;
          least = 0;
        }
        continue;
      }
      const owed = missingTokens({ rate: this.#rates[slot] as number, value: this.#values[slot] as number }, nowTicks);
      if (owed < least) {
        target = slot;
        least = owed;
      }
    }
    if (target === -1) return; // every debt of the set is larger: this one is forgiven
    if (this.#fingerprints[target] === 0) this.#size++;
    this.#fingerprints[target] = fingerprint;
    this.#rates[target] = state.rate;
    this.#values[target] = state.value;
  }

  #find(key: string): number | undefined {
    const { set, fingerprint } = this.#hash(key);
    const first = set * WAYS;
    for (let slot = first; slot < first + WAYS; slot++) if (this.#fingerprints[slot] === fingerprint) return slot;
    return undefined;
  }

  #clear(slot: number): void {
    this.#fingerprints[slot] = 0;
    this.#size--;
  }

  /** The key's set and its fingerprint (never 0), under this ledger's secret. */
  #hash(key: string): { set: number; fingerprint: number } {
    const digest = createHash('sha256').update(this.#secret).update(key).digest();
    return { set: digest.readUInt32LE(0) % this.#sets, fingerprint: digest.readUInt32LE(4) || 1 };
  }
}
