/**
 * A bounded least-recently-used cache of cost estimates, keyed by (document hash, operation name,
 * variables). Variables are serialized with sorted object keys so `{a, b}` and `{b, a}` share an entry;
 * requests whose variables serialize to more than `MAX_VARIABLES_KEY_LENGTH` characters are not cached
 * (a 1 MB variables object must not become a 1 MB cache key).
 */
export const MAX_VARIABLES_KEY_LENGTH = 2048;

export class EstimateCache<T> {
  readonly #maxEntries: number;
  readonly #entries = new Map<string, T>();

  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): T | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: T): void {
    if (this.#maxEntries === 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
  }

  clear(): void {
    this.#entries.clear();
  }
}

/** The cache key of one estimate, or undefined when the variables are too large to cache. */
export function estimateCacheKey(
  queryHash: string,
  operationName: string | null | undefined,
  variables: Readonly<Record<string, unknown>> | null | undefined,
): string | undefined {
  const serialized = !variables
    ? ''
    : isFlatAndSorted(variables)
      ? JSON.stringify(variables)
      : stableStringify(variables);
  if (serialized === undefined || serialized.length > MAX_VARIABLES_KEY_LENGTH) return undefined;
  return `${queryHash}\u0000${operationName ?? ''}\u0000${serialized}`;
}

/**
 * Whether plain `JSON.stringify` already gives `stableStringify`'s answer: a plain object whose keys
 * are in sorted order and whose values are all strings, numbers, booleans or null (the usual
 * variables of a request).
 */
function isFlatAndSorted(variables: Readonly<Record<string, unknown>>): boolean {
  const prototype = Object.getPrototypeOf(variables) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return false;
  let previous: string | undefined;
  for (const name of Object.keys(variables)) {
    if (previous !== undefined && !(previous < name)) return false;
    const value = variables[name];
    const scalar =
      value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
    if (!scalar) return false;
    previous = name;
  }
  return true;
}

/** JSON with object keys sorted; undefined when the value cannot be serialized (e.g. a cycle). */
export function stableStringify(value: unknown): string | undefined {
  try {
    return JSON.stringify(value, (_key, item: unknown) => {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
      const sorted: Record<string, unknown> = {};
      for (const name of Object.keys(item).sort()) sorted[name] = (item as Record<string, unknown>)[name];
      return sorted;
    });
  } catch {
    return undefined;
  }
}
