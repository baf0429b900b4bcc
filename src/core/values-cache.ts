import { createHash } from 'node:crypto';

/** Entries kept per owner: the least recently used beyond this are dropped. */
export const MAX_ENTRIES_PER_OWNER = 16;

/**
 * What callers that pass their options on every call (`chargeOperation`) build from them, kept per
 * owner object (a schema, a store) and per the options' values, not per options object: options
 * written inline cost nothing more on the next call; at most `MAX_ENTRIES_PER_OWNER` per owner
 * (least recently used dropped), and an owner that is dropped takes its entries along.
 */
export class ValuesCache<T> {
  readonly #byOwner = new WeakMap<object, Map<string, T>>();
  /** Functions in options (estimators) named by identity. */
  readonly #functionIds = new WeakMap<object, number>();
  #nextFunctionId = 0;

  /** The entry for `owner` and the values of `options`, made by `create` the first time. */
  get<O>(owner: object, options: O, create: (options: O) => T): T {
    let entries = this.#byOwner.get(owner);
    if (entries === undefined) {
      entries = new Map();
      this.#byOwner.set(owner, entries);
    }
    const key = this.#valueKey(options);
    let entry = entries.get(key);
    if (entry === undefined) {
      entry = create(options);
      if (entries.size >= MAX_ENTRIES_PER_OWNER) {
        const oldest = entries.keys().next();
        if (oldest.done !== true) entries.delete(oldest.value);
      }
    } else {
      entries.delete(key); // most recently used last
    }
    entries.set(key, entry);
    return entry;
  }

  /** A value as a string: every own property of an object sorted, functions by identity, long strings by hash. */
  #valueKey(value: unknown): string {
    if (typeof value === 'function') return `f${this.#functionId(value)}`;
    if (Array.isArray(value)) return `[${value.map((item) => this.#valueKey(item)).join(',')}]`;
    if (value !== null && typeof value === 'object') {
      const parts: string[] = [];
      for (const name of Object.keys(value).sort()) {
        parts.push(`${name}=${this.#valueKey((value as Record<string, unknown>)[name])}`);
      }
      return `{${parts.join('\u0000')}}`;
    }
    if (typeof value === 'string' && value.length > 64) return `#${createHash('sha256').update(value).digest('hex')}`;
    if (typeof value === 'number') return Object.is(value, -0) ? '0' : String(value);
    return typeof value === 'string' ? JSON.stringify(value) : String(value);
  }

  #functionId(fn: object): number {
    let id = this.#functionIds.get(fn);
    if (id === undefined) {
      id = this.#nextFunctionId++;
      this.#functionIds.set(fn, id);
    }
    return id;
  }
}
