import type { SizedFieldTree } from './sized-fields.js';

const views = new WeakMap<SizedFieldTree, ApolloSizedFields>();

/**
 * A `@listSize(sizedFields:)` as Apollo Router's demand control applies it (its `SizedFields`),
 * read from the same checked tree as the IBM model's (see `sizedFieldTree`):
 *
 * - at each level, the size goes to every field named where some path below this level ends (a
 *   path's last field, at any depth: `"results { page }"` also sizes a `page` field right here),
 *   except to a name that continues into a deeper path at this level
 *   (`["results", "results { page }"]` sizes `page` below `results`, never `results`);
 * - below a field a path continues through, the rest of the paths apply (`descend`).
 *
 * The router also sizes a list field by the size of a path it lies on (see the `'apollo'` model's
 * estimator); this view answers only which names a level sizes and where the paths continue.
 */
export class ApolloSizedFields {
  /** Names the view in memo keys. */
  readonly id: number;
  readonly #leaves: ReadonlySet<string>;
  readonly #tree: SizedFieldTree;
  readonly #below = new Map<string, ApolloSizedFields | undefined>();

  private constructor(tree: SizedFieldTree) {
    this.id = tree.id;
    this.#tree = tree;
    const leaves = new Set<string>();
    collectLeaves(tree, leaves);
    for (const name of tree.below.keys()) leaves.delete(name);
    this.#leaves = leaves;
  }

  /** The view of a rule's tree (one per tree). */
  static of(tree: SizedFieldTree): ApolloSizedFields {
    let view = views.get(tree);
    if (view === undefined) {
      view = new ApolloSizedFields(tree);
      views.set(tree, view);
    }
    return view;
  }

  /** Whether the size goes to a field of this name at this level. */
  sizes(name: string): boolean {
    return this.#leaves.has(name);
  }

  /** The paths that continue below a field of this name, if any. */
  descend(name: string): ApolloSizedFields | undefined {
    if (this.#below.has(name)) return this.#below.get(name);
    const subtree = this.#tree.below.get(name);
    const view = subtree === undefined ? undefined : ApolloSizedFields.of(subtree);
    this.#below.set(name, view);
    return view;
  }
}

/** Every name some path of `tree` ends at, at any depth. */
function collectLeaves(tree: SizedFieldTree, into: Set<string>): void {
  for (const name of tree.sized) into.add(name);
  for (const subtree of tree.below.values()) collectLeaves(subtree, into);
}
