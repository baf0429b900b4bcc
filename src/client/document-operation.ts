import type { GateOperation } from './budget-gate.js';

/** A parsed GraphQL document, as graphql-js and @0no-co/graphql.web both give it. */
export interface DocumentLike {
  readonly definitions: readonly unknown[];
}

interface DefinitionLike {
  readonly kind?: unknown;
  readonly operation?: unknown;
  readonly name?: { readonly value?: unknown } | null;
}

/** An operation of a parsed document, with its type (`'query'`, `'mutation'`, `'subscription'`). */
export interface DocumentOperation extends GateOperation {
  readonly type: unknown;
}

/**
 * The operation of a parsed document that a request runs: the one named `name`, else the only one.
 * An operation whose type cannot be told counts as a mutation.
 */
export function documentOperation(document: DocumentLike, name?: string | null): DocumentOperation {
  const operations = (document.definitions as DefinitionLike[]).filter(
    (definition) => definition?.kind === 'OperationDefinition',
  );
  const chosen = name
    ? operations.find((definition) => definition.name?.value === name)
    : operations.length === 1
      ? operations[0]
      : undefined;
  const operationName = typeof chosen?.name?.value === 'string' ? chosen.name.value : (name ?? null);
  return {
    // Its price is remembered by name (names are unique in most applications), else by document.
    key: operationName ?? document,
    name: operationName,
    mutation: chosen?.operation !== 'query',
    type: chosen?.operation,
  };
}
