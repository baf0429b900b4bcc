import type { SizedFieldTree } from './sized-fields.js';

/** One `@listSize(sizedFields:)` with the size it hands down in this request. */
interface ScopeEntry {
  readonly tree: SizedFieldTree;
  readonly size: number;
}

/**
 * The list sizes that enclosing fields' `@listSize(sizedFields:)` hand to the fields of one
 * selection, for one request (IBM cost spec "@listSize", with Apollo Router's nested paths and
 * repeatable `@listSize`): each entry is one rule's remaining path tree and its size. A field named
 * by several entries takes the largest size. Descending through a field and merging with that
 * field's own rules are cached, so walking every item of a list allocates nothing more.
 */
export class SizeScope {
  /** Names the scope in memo keys: the same key hands the same sizes to the same names. */
  readonly key: string;
  readonly #entries: readonly ScopeEntry[];
  /** Scopes below field names; a name nothing continues below maps to undefined, recomputed (cheaply) each time. */
  readonly #below = new Map<string, SizeScope | undefined>();
  readonly #merged = new Map<SizeScope, SizeScope>();

  constructor(entries: readonly ScopeEntry[]) {
    this.#entries = entries;
    // join() separates with commas.
    this.key = entries.map((entry) => `${entry.tree.id}:${entry.size}`).join();
  }

  /**
   * A scope of `entries`, or undefined when there are none: an empty scope hands no size, and
   * leaving it out lets the memo keys of scoped and unscoped selections coincide.
   */
  static of(entries: readonly ScopeEntry[]): SizeScope | undefined {
    return entries.length === 0 ? undefined : new SizeScope(entries);
  }

  /** The size handed to the list field `name` of this selection, if any entry sizes it. */
  sizeOf(name: string): number | undefined {
    let size: number | undefined;
    for (const entry of this.#entries) {
      if (entry.tree.sized.has(name)) size = size === undefined ? entry.size : Math.max(size, entry.size);
    }
    return size;
  }

  /** The scope that continues below the field `name` (paths such as `"results { page }"`), if any. */
  below(name: string): SizeScope | undefined {
    return this.#below.get(name) ?? this.#descend(name);
  }

  #descend(name: string): SizeScope | undefined {
    const entries: ScopeEntry[] = [];
    for (const entry of this.#entries) {
      const tree = entry.tree.below.get(name);
      if (tree !== undefined) entries.push({ tree, size: entry.size });
    }
    const scope = SizeScope.of(entries);
    this.#below.set(name, scope);
    return scope;
  }

  /** This scope's entries and `other`'s. */
  with(other: SizeScope): SizeScope {
    const merged = this.#merged.get(other) ?? new SizeScope([...this.#entries, ...other.#entries]);
    this.#merged.set(other, merged);
    return merged;
  }
}

/**
 * The scope of the selection below a field `name` that sits in `scope`: what the enclosing rules
 * hand down through that field, and the field's own `sizedFields` (`own`).
 */
export function scopeBelow(
  scope: SizeScope | undefined,
  name: string,
  own: SizeScope | undefined,
): SizeScope | undefined {
  const inherited = scope?.below(name);
  if (inherited === undefined) return own;
  return own === undefined ? inherited : inherited.with(own);
}
