import { Kind, isCompositeType } from 'graphql';
import type {
  FieldNode,
  FragmentDefinitionNode,
  GraphQLCompositeType,
  GraphQLSchema,
  SelectionNode,
  SelectionSetNode,
} from 'graphql';
import { tooLargeToPrice } from './field-collector.js';

/** One field of a selection set as Apollo Router's demand control walks it. */
export interface ApolloField {
  readonly node: FieldNode;
  /** The type the field is looked up on: the type of the selection set or fragment it is written in. */
  readonly parent: GraphQLCompositeType;
  /** How many times the walk meets this field node (a fragment spread twice counts its fields twice). */
  readonly times: number;
}

/**
 * The fields of selection sets as Apollo Router's demand control walks them, for its estimate and
 * for its actual cost of a response: in document order, fragments expanded where they are spread
 * without looking at their type conditions (every inline fragment and spread counts, so
 * `... on A { x } ... on B { y }` costs `x` and `y`), nothing merged (a field written twice counts
 * twice), a field dropped only by a literal `@skip(if: true)` or `@include(if: false)` (variables
 * are not read there, as in the router), `__typename` left out (it costs nothing).
 *
 * A selection set's fields are gathered once, as field nodes with the number of times the walk
 * meets each, so a fragment reached along many paths costs work in proportion to the document,
 * not to the paths. Every selection visited and every field entry carried up a level counts
 * against `maxNodes`.
 */
export class ApolloSelections {
  readonly #schema: GraphQLSchema;
  readonly #fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  readonly #maxNodes: number;
  readonly #fields = new Map<SelectionSetNode, readonly ApolloField[]>();
  readonly #expanding = new Set<SelectionSetNode>();
  /** Units of work so far (reset by the caller for each response priced). */
  visited = 0;

  constructor(schema: GraphQLSchema, fragments: ReadonlyMap<string, FragmentDefinitionNode>, maxNodes: number) {
    this.#schema = schema;
    this.#fragments = fragments;
    this.#maxNodes = maxNodes;
  }

  /** Counts one unit of work against `maxNodes`. */
  tick(): void {
    this.visited += 1;
    if (this.visited > this.#maxNodes) throw tooLargeToPrice(this.#maxNodes);
  }

  /**
   * The fields the walk meets in `selectionSet`, whose own type is `parent` (a selection set
   * belongs to one field, fragment or operation, so its type never changes).
   */
  fieldsOf(selectionSet: SelectionSetNode, parent: GraphQLCompositeType): readonly ApolloField[] {
    const cached = this.#fields.get(selectionSet);
    if (cached !== undefined) return cached;
    // A fragment that spreads itself (only in a document that skipped validation) adds nothing more.
    if (this.#expanding.has(selectionSet)) return NO_FIELDS;
    this.#expanding.add(selectionSet);
    const gathered = new Map<FieldNode, ApolloField>();
    const add = (field: ApolloField, times: number) => {
      const seen = gathered.get(field.node);
      gathered.set(field.node, { node: field.node, parent: field.parent, times: (seen?.times ?? 0) + times });
    };
    for (const selection of selectionSet.selections) {
      this.tick();
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value !== '__typename' && !literallySkipped(selection)) {
          add({ node: selection, parent, times: 1 }, 1);
        }
        continue;
      }
      const fragment = selection.kind === Kind.FRAGMENT_SPREAD ? this.#fragments.get(selection.name.value) : selection;
      if (fragment === undefined) continue;
      const condition =
        fragment.typeCondition === undefined ? parent : this.#schema.getType(fragment.typeCondition.name.value);
      if (!isCompositeType(condition)) continue;
      for (const field of this.fieldsOf(fragment.selectionSet, condition)) {
        this.tick();
        add(field, field.times);
      }
    }
    this.#expanding.delete(selectionSet);
    const fields = [...gathered.values()];
    this.#fields.set(selectionSet, fields);
    return fields;
  }
}

const NO_FIELDS: readonly ApolloField[] = [];

/** `@skip(if: true)` or `@include(if: false)` written as literals (a variable is not read, as in the router). */
function literallySkipped(selection: SelectionNode): boolean {
  for (const directive of selection.directives ?? []) {
    const name = directive.name.value;
    if (name !== 'skip' && name !== 'include') continue;
    const condition = directive.arguments?.find((argument) => argument.name.value === 'if')?.value;
    if (condition?.kind === Kind.BOOLEAN && condition.value === (name === 'skip')) return true;
  }
  return false;
}
