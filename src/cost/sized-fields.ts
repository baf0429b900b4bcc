import {
  GraphQLError,
  Kind,
  getNamedType,
  getNullableType,
  isInterfaceType,
  isListType,
  isObjectType,
  parse,
} from 'graphql';
import type {
  FieldNode,
  GraphQLInterfaceType,
  GraphQLNamedType,
  GraphQLObjectType,
  OperationDefinitionNode,
  SelectionSetNode,
} from 'graphql';

/**
 * The lists a `@listSize(sizedFields:)` hands its size to, below the type its field returns: the
 * list fields sized at this level, and the fields to descend through to size lists further down.
 * Built once per rule when the schema loads; `id` names the tree in memo keys.
 */
export interface SizedFieldTree {
  readonly id: number;
  readonly sized: ReadonlySet<string>;
  readonly below: ReadonlyMap<string, SizedFieldTree>;
}

interface MutableTree {
  readonly sized: Set<string>;
  readonly below: Map<string, MutableTree>;
}

type FieldsHolder = GraphQLObjectType | GraphQLInterfaceType;

let nextTreeId = 0;

/**
 * Reads `sizedFields` entries below `returned`, the named type the field returns. An entry is a
 * field name (IBM cost spec "@listSize": `["edges", "nodes"]`) or, as in Apollo Router's demand
 * control (2.12), a path in selection syntax: `"results { page }"` sizes the `page` list of the
 * object that `results` returns. Every name must be a field of the type it is read on, every field
 * followed by `{ … }` must return an object or interface, the field a path ends at must return a
 * list, and a selection may end at most one path (Apollo's rule: write `["a { b }", "a { c }"]`
 * rather than `"a { b c }"`). Problems are pushed, each starting with `coordinate`.
 *
 * @returns the tree, or undefined when there are no entries or any is invalid.
 */
export function sizedFieldTree(
  returned: GraphQLNamedType,
  entries: readonly string[],
  coordinate: string,
  problems: string[],
): SizedFieldTree | undefined {
  if (entries.length === 0) return undefined;
  if (!isObjectType(returned) && !isInterfaceType(returned)) {
    problems.push(
      `${coordinate}: @listSize(sizedFields:) needs an object or interface return type, not ${returned.name}.`,
    );
    return undefined;
  }
  const before = problems.length;
  const root: MutableTree = { sized: new Set(), below: new Map() };
  for (const entry of entries) {
    const selectionSet = selectionSetOf(entry);
    if (selectionSet === undefined) {
      problems.push(`${coordinate}: @listSize sized field "${entry}" is not a field name or a path such as "a { b }".`);
      continue;
    }
    addPath(root, returned, selectionSet, { entry, coordinate, problems });
  }
  return problems.length > before ? undefined : frozen(root);
}

/** The entry being read, for its problems. */
interface EntryContext {
  readonly entry: string;
  readonly coordinate: string;
  readonly problems: string[];
}

/** The entry as a selection set of plain fields (no aliases, arguments, directives or fragments), or undefined. */
function selectionSetOf(entry: string): SelectionSetNode | undefined {
  let document: ReturnType<typeof parse>;
  try {
    document = parse(`{${entry}}`);
  } catch (error) {
    if (error instanceof GraphQLError) return undefined;
    throw error;
  }
  // What follows a `}` in the entry parses as more definitions; the first is the `{…}` operation.
  if (document.definitions.length !== 1) return undefined;
  const { selectionSet } = document.definitions[0] as OperationDefinitionNode;
  return isPlain(selectionSet) ? selectionSet : undefined;
}

function isPlain(selectionSet: SelectionSetNode): boolean {
  return selectionSet.selections.every(
    (selection) =>
      selection.kind === Kind.FIELD &&
      selection.alias === undefined &&
      // Stryker disable next-line OptionalChaining: graphql's parser sets arguments to [] when absent
      (selection.arguments?.length ?? 0) === 0 &&
      // Stryker disable next-line OptionalChaining: graphql's parser sets directives to [] when absent
      (selection.directives?.length ?? 0) === 0 &&
      (selection.selectionSet === undefined || isPlain(selection.selectionSet)),
  );
}

function addPath(tree: MutableTree, type: FieldsHolder, selectionSet: SelectionSetNode, context: EntryContext): void {
  const { entry, coordinate, problems } = context;
  const fields = selectionSet.selections as readonly FieldNode[];
  const ends = fields.filter((field) => field.selectionSet === undefined).map((field) => field.name.value);
  if (ends.length > 1) {
    problems.push(
      `${coordinate}: @listSize sized field "${entry}" ends in several lists in one selection (${ends.join(', ')}); ` +
        'write one path per list, e.g. ["a { b }", "a { c }"].',
    );
    return;
  }
  // A plain name keeps the short form of the message; a path names the entry, then the field.
  const subject = (name: string) => (entry.trim() === name ? `"${name}"` : `"${entry}": "${name}"`);
  for (const selection of fields) {
    const name = selection.name.value;
    const field = type.getFields()[name];
    if (field === undefined) {
      problems.push(`${coordinate}: @listSize sized field ${subject(name)} is not a field of ${type.name}.`);
      continue;
    }
    const written = `${type.name}.${name}: ${String(field.type)}`;
    if (selection.selectionSet === undefined) {
      if (isListType(getNullableType(field.type))) tree.sized.add(name);
      else problems.push(`${coordinate}: @listSize sized field ${subject(name)} (${written}) is not a list.`);
      continue;
    }
    const next = getNamedType(field.type);
    if (!isObjectType(next) && !isInterfaceType(next)) {
      problems.push(
        `${coordinate}: @listSize sized field ${subject(name)} (${written}) has no fields to descend into.`,
      );
      continue;
    }
    let below = tree.below.get(name);
    if (below === undefined) {
      below = { sized: new Set(), below: new Map() };
      tree.below.set(name, below);
    }
    addPath(below, next, selection.selectionSet, context);
  }
}

function frozen(tree: MutableTree): SizedFieldTree {
  const below = new Map<string, SizedFieldTree>();
  for (const [name, child] of tree.below) below.set(name, frozen(child));
  // Stryker disable next-line UpdateOperator: counting down gives distinct ids too, and ids are only compared
  return { id: nextTreeId++, sized: tree.sized, below };
}
