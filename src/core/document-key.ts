import type { DocumentNode } from 'graphql';

const keys = new WeakMap<DocumentNode, string>();
let issued = 0;

/**
 * A name for a parsed document in estimate-cache keys, where the server gives none (Apollo gives
 * the query's hash): one per document object, so a server that reuses parsed documents (GraphQL
 * Yoga's parser cache) finds its estimates again, and two documents never share a name.
 */
export function documentKeyOf(document: DocumentNode): string {
  let key = keys.get(document);
  if (key === undefined) {
    issued += 1;
    key = `#${issued.toString(36)}`;
    keys.set(document, key);
  }
  return key;
}
