import { Kind, type DocumentNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';

/**
 * Whether the operation is what `introspection: 'free-when-alone'` (or `'free'`) lets through for
 * nothing: a query that selects nothing but introspection, `__typename`, `__schema` and `__type` at
 * its root (directly or through fragments), as schema tools send. A mutation of `__typename` alone
 * still costs its root; so does such a query under `'free'` as far as the engine goes (the IBM
 * spec counts the root object), which is why schema tooling is let through here.
 */
export function isFreeIntrospection(document: DocumentNode, operation: OperationDefinitionNode): boolean {
  return operation.operation === 'query' && isIntrospectionOnly(document, operation);
}

function isIntrospectionOnly(document: DocumentNode, operation: OperationDefinitionNode): boolean {
  // Apollo reuses parsed documents from its document store, so most requests hit this cache.
  let answer = known.get(operation);
  if (answer === undefined) {
    answer = selectsOnlyIntrospection(document, operation);
    known.set(operation, answer);
  }
  return answer;
}

const known = new WeakMap<OperationDefinitionNode, boolean>();

function selectsOnlyIntrospection(document: DocumentNode, operation: OperationDefinitionNode): boolean {
  const fragments = new Map<string, SelectionSetNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition.selectionSet);
  }
  const visited = new Set<string>();
  const onlyIntrospection = (selectionSet: SelectionSetNode): boolean =>
    selectionSet.selections.every((selection) => {
      if (selection.kind === Kind.FIELD) return selection.name.value.startsWith('__');
      if (selection.kind === Kind.INLINE_FRAGMENT) return onlyIntrospection(selection.selectionSet);
      const name = selection.name.value;
      if (visited.has(name)) return true;
      visited.add(name);
      const fragment = fragments.get(name);
      return fragment !== undefined && onlyIntrospection(fragment);
    });
  return onlyIntrospection(operation.selectionSet);
}
