import { InMemoryLRUCache } from '@apollo/utils.keyvaluecache';
import type { CostEstimate } from '../cost/types.js';
import type { CostErrorRecord } from './errors.js';

/**
 * Cost estimates kept per (document hash, operation name, variables), bounded in bytes with Apollo's
 * `InMemoryLRUCache`: a client that sends many distinct documents or variables can fill the cache,
 * never grow it. Values are plain data: an estimate's two numbers, or an error's message, code and
 * locations; never an AST node, which would keep the whole document (source text and tokens) alive.
 *
 * Variables are serialized with sorted object keys so `{a, b}` and `{b, a}` share an entry; a request
 * whose variables serialize to more than `MAX_VARIABLES_KEY_LENGTH` characters is not cached (a 1 MB
 * variables object must not become a 1 MB cache key).
 */
export const MAX_VARIABLES_KEY_LENGTH = 2048;

/** What the cache keeps for one key. */
export type CachedEstimate = { readonly estimate: CostEstimate } | { readonly error: CostErrorRecord };

/**
 * Bytes one entry is counted for beyond its strings: the cache's own bookkeeping (its key and value
 * slots, map entry, list links) and the value object. An upper estimate, so the bound holds.
 */
const ENTRY_OVERHEAD_BYTES = 256;

/** Bytes of a string in the heap, counted as two per character (UTF-16). */
function stringBytes(text: string): number {
  return 2 * text.length;
}

function sizeOf(value: CachedEstimate, key: string): number {
  let bytes = ENTRY_OVERHEAD_BYTES + stringBytes(key);
  if ('error' in value) {
    bytes += stringBytes(value.error.message) + stringBytes(value.error.code);
    bytes += 32 * (value.error.locations?.length ?? 0);
  }
  return bytes;
}

export class EstimateCache {
  readonly #cache: InMemoryLRUCache<CachedEstimate> | undefined;

  /** `maxBytes` 0 disables the cache. */
  constructor(maxBytes: number) {
    this.#cache =
      maxBytes > 0 ? new InMemoryLRUCache<CachedEstimate>({ maxSize: maxBytes, sizeCalculation: sizeOf }) : undefined;
  }

  get(key: string): Promise<CachedEstimate | undefined> | undefined {
    return this.#cache?.get(key);
  }

  set(key: string, value: CachedEstimate): void {
    // InMemoryLRUCache's set is synchronous underneath; its promise never rejects.
    void this.#cache?.set(key, value);
  }

  clear(): void {
    this.#cache?.clear();
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
