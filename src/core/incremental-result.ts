import type { ExecutionResult } from 'graphql';
import type { BudgetResponse } from './request.js';

type Container = Record<string, unknown> | unknown[];

/** A later part of an incremental result: deferred fields (`data`) or streamed list items (`items`) at `path`. */
interface IncrementalPayload {
  readonly data?: Record<string, unknown> | null;
  /** Null when an item failed and nulled the rest of the stream (its error is in `errors`). */
  readonly items?: readonly unknown[] | null;
  readonly path?: readonly (string | number)[];
  readonly errors?: ExecutionResult['errors'];
}

/**
 * An incremental result (`@defer`, `@stream`) as its parts arrive, merged into the one response
 * they make together, so that the settlement prices what the caller received, streamed items and
 * deferred fields included. The parts the server sends are never changed: each object or list on
 * the way to a merged part is copied once (shallowly) and the copy changed from then on, so the
 * work is linear in what arrives.
 */
export class IncrementalResult {
  #data: Record<string, unknown> | null | undefined;
  readonly #errors: NonNullable<BudgetResponse['errors']>[number][] = [];
  /** The containers copied here, which may be changed. */
  readonly #owned = new WeakSet<object>();

  /** Takes one part: the first one (`data`), or a later one (`incremental`). */
  add(part: ExecutionResult & { readonly incremental?: readonly IncrementalPayload[] }): void {
    if (part.errors !== undefined) this.#errors.push(...part.errors);
    if (this.#data === undefined && part.data !== undefined) this.#data = part.data as Record<string, unknown> | null;
    for (const payload of part.incremental ?? []) {
      if (payload.errors !== undefined) this.#errors.push(...payload.errors);
      const path = payload.path ?? [];
      if (Array.isArray(payload.items)) this.#append(path, payload.items);
      else if (payload.data !== undefined && payload.data !== null) this.#assign(path, payload.data);
    }
  }

  /** What has arrived, as the settlement reads it: incomplete, since parts may never arrive. */
  get response(): BudgetResponse {
    return { incomplete: true, data: this.#data, errors: this.#errors };
  }

  /** Deferred fields, merged into the object at `path`. */
  #assign(path: readonly (string | number)[], fields: Record<string, unknown>): void {
    const target = this.#ownedAt(path);
    if (target === undefined || Array.isArray(target)) return;
    for (const key of Object.keys(fields)) {
      const value = fields[key];
      const current = target[key];
      // A deferred fragment may select below a field the first part already holds: merge them.
      if (isObject(current) && isObject(value) && !Array.isArray(value)) {
        this.#assign([...path, key], value);
      } else {
        setOwn(target, key, value);
      }
    }
  }

  /** Streamed items, at `path` (the list's path and the first item's index). */
  #append(path: readonly (string | number)[], items: readonly unknown[]): void {
    const index = path.at(-1);
    if (typeof index !== 'number') return;
    const list = this.#ownedAt(path.slice(0, -1));
    if (!Array.isArray(list)) return;
    for (let offset = 0; offset < items.length; offset++) list[index + offset] = items[offset];
  }

  /** The container at `path`, copied (with those on the way to it) unless it is already this result's own. */
  #ownedAt(path: readonly (string | number)[]): Container | undefined {
    if (!isObject(this.#data)) return undefined;
    let container = this.#own(this.#data) as Container;
    this.#data = container as Record<string, unknown>;
    for (const step of path) {
      const next = (container as Record<string | number, unknown>)[step];
      if (!isObject(next)) return undefined;
      const owned = this.#own(next);
      if (owned !== next) setOwn(container, step, owned);
      container = owned;
    }
    return container;
  }

  #own(container: Container): Container {
    if (this.#owned.has(container)) return container;
    // A spread copies an own `__proto__` key (an alias may be one) as data, unlike Object.assign.
    const copy: Container = Array.isArray(container) ? container.slice() : { ...container };
    this.#owned.add(copy);
    return copy;
  }
}

function isObject(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

/** Sets a property as data, even one named `__proto__` (an alias may be). */
function setOwn(container: Container, key: string | number, value: unknown): void {
  Object.defineProperty(container, key, { value, enumerable: true, writable: true, configurable: true });
}
