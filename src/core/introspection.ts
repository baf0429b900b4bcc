import { Kind, type DocumentNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';

/**
 * True when the operation selects nothing but introspection: `__typename`, `__schema` and `__type`
 * at its root (directly or through fragments). Such an operation is charged nothing when
 * `introspectionIsFree` is on: the cost engine prices the introspection fields at 0, but the IBM
 * spec still counts the root operation object itself, and schema tooling must keep working for a
 * caller whose budget is empty.
 */
/**
 * Whether the operation is what `introspectionOnlyIsFree` lets through for nothing: a query of
 * introspection alone, as schema tools send (a mutation of `__typename` alone still costs its root).
 */
export function isFreeIntrospection(document: DocumentNode, operation: OperationDefinitionNode): boolean {
  return operation.operation === 'query' && isIntrospectionOnly(document, operation);
}

export function isIntrospectionOnly(document: DocumentNode, operation: OperationDefinitionNode): boolean {
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

/**
 * True when the operation selects an introspection field (`__schema` or `__type`) anywhere: at its
 * root, or below any field that returns the query type again (`viewer: Query!`), directly or
 * through fragments. That is work the execution meter does not see.
 */
export function selectsIntrospection(document: DocumentNode, operation: OperationDefinitionNode): boolean {
  let answer = introspecting.get(operation);
  if (answer === undefined) {
    answer = selectsIntrospectionField(document, operation);
    introspecting.set(operation, answer);
  }
  return answer;
}

const introspecting = new WeakMap<OperationDefinitionNode, boolean>();

function selectsIntrospectionField(document: DocumentNode, operation: OperationDefinitionNode): boolean {
  const fragments = new Map<string, SelectionSetNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition.selectionSet);
  }
  const visited = new Set<string>();
  const anyIntrospection = (selectionSet: SelectionSetNode): boolean =>
    selectionSet.selections.some((selection) => {
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value;
        if (name === '__schema' || name === '__type') return true;
        return selection.selectionSet !== undefined && anyIntrospection(selection.selectionSet);
      }
      if (selection.kind === Kind.INLINE_FRAGMENT) return anyIntrospection(selection.selectionSet);
      const name = selection.name.value;
      if (visited.has(name)) return false;
      visited.add(name);
      const fragment = fragments.get(name);
      return fragment !== undefined && anyIntrospection(fragment);
    });
  return anyIntrospection(operation.selectionSet);
}
