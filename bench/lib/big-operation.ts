import { Kind, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';

const FRAGMENTS = /* GraphQL */ `
  fragment BookFields on Book { id title isbn year genre priceCents }
  fragment AuthorFields on Author { id name bio }
  fragment ReviewFields on Review { id rating body reviewer }
`;

/** One aliased block over the bookstore schema: a connection, nested lists, fragments and a union. */
function block(index: number): string {
  return /* GraphQL */ `
    page${index}: books(first: $first) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges {
        cursor
        node {
          ...BookFields
          author { ...AuthorFields books(first: 2) { ...BookFields } }
          reviews(first: 3) { ...ReviewFields }
        }
      }
    }
    found${index}: search(text: "a", first: 5) {
      ... on Book { ...BookFields }
      ... on Author { ...AuthorFields }
    }`;
}

/** Field selections after fragment expansion, i.e. the fields an estimator visits. */
export function countFields(document: DocumentNode): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const count = (set: SelectionSetNode | undefined): number => {
    let total = 0;
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FIELD) total += 1 + count(selection.selectionSet);
      else if (selection.kind === Kind.INLINE_FRAGMENT) total += count(selection.selectionSet);
      else total += count(fragments.get(selection.name.value)?.selectionSet);
    }
    return total;
  };
  let total = 0;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) total += count(definition.selectionSet);
  }
  return total;
}

/** The source of an operation over the bookstore schema with at least `fields` fields after expansion. */
export function bigOperationSource(fields: number, parse: (source: string) => DocumentNode): string {
  let blocks = 1;
  for (;;) {
    const source = `query Big($first: Int = 5) {${Array.from({ length: blocks }, (_, index) => block(index)).join('')}\n}\n${FRAGMENTS}`;
    if (countFields(parse(source)) >= fields) return source;
    blocks++;
  }
}
