import { LRUCache } from 'lru-cache';
import type { VariableDefinitionNode } from 'graphql';
import type { CostEstimate } from '../cost/types.js';
import type { ResponsePlan } from '../cost/response-plan.js';
import { variablesKey } from '../cost/variables-key.js';
import type { CostErrorRecord } from './errors.js';

/**
 * Cost estimates kept per (document hash, operation name, declared variables), bounded in bytes with
 * `lru-cache` (what Apollo's `InMemoryLRUCache` wraps, used directly: its reads are synchronous): a client that sends many distinct documents or variables can fill the
 * cache, never grow it. Values are plain data: an estimate's two numbers, or an error's message,
 * code and locations; never an AST node, which would keep the whole document (source text and
 * tokens) alive.
 *
 * A request whose variables that price serialize to more than `MAX_VARIABLES_KEY_LENGTH` characters
 * is not cached (a 1 MB variables object must not become a 1 MB cache key), nor one whose variables
 * are not JSON data; variables that price nothing are not read.
 */
/**
 * What the cache keeps for one key: the estimate, with the operation's compiled response walk where
 * its cost model has one (plain numbers and response keys, counted in bytes), or the error.
 */
export type CachedEstimate =
  | { readonly estimate: CostEstimate; readonly plan?: ResponsePlan | undefined }
  | { readonly error: CostErrorRecord };

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
    bytes += 32 * (value.error.locations?.length ?? 0) + 8 * (value.error.positions?.length ?? 0);
  } else if (value.plan !== undefined) {
    bytes += value.plan.bytes;
  }
  return bytes;
}

export class EstimateCache {
  readonly #cache: LRUCache<string, CachedEstimate> | undefined;

  /** `maxBytes` 0 disables the cache. */
  constructor(maxBytes: number) {
    this.#cache =
      maxBytes > 0 ? new LRUCache<string, CachedEstimate>({ maxSize: maxBytes, sizeCalculation: sizeOf }) : undefined;
  }

  get(key: string): CachedEstimate | undefined {
    return this.#cache?.get(key);
  }

  set(key: string, value: CachedEstimate): void {
    this.#cache?.set(key, value);
  }

  clear(): void {
    this.#cache?.clear();
  }
}

/**
 * The cache key of one estimate, or undefined when the variables cannot be keyed (see
 * `variablesKey`: not JSON data, or too long). Pricing reads the variables that price (`priced`,
 * see `CostAnalyzer.pricedVariables`) and nothing else, so the key holds exactly those, whatever
 * their names; other variables, declared or not, change nothing. `schemaId` names the schema the
 * operation is priced against.
 */
export function estimateCacheKey(
  schemaId: number,
  queryHash: string,
  operationName: string | null | undefined,
  priced: readonly VariableDefinitionNode[],
  variables: Readonly<Record<string, unknown>> | null | undefined,
): string | undefined {
  const key = variablesKey(priced, variables);
  return key === undefined ? undefined : `${schemaId}\u0000${queryHash}\u0000${operationName ?? ''}${key}`;
}
