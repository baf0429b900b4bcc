/**
 * Which operation a request runs, and whether it is a query (retried after a refusal) or may not be
 * (a mutation, a subscription, or unknown: not retried unless `retryMutations`): from a parsed
 * document (Apollo Client, urql) and from a fetch request's method, URL and body (budgetFetch).
 * The text check errs one way only: a query it cannot tell counts as a mutation.
 */
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { documentOperation } from '../../src/client/document-operation.js';
import { isQueryText, requestOperation } from '../../src/client/request-operation.js';

describe('documentOperation (a parsed document)', () => {
  it('finds the named operation, or the only one, and tells a query from the rest', () => {
    const document = parse('query A { a } mutation B { b } fragment F on Q { c }');
    expect(documentOperation(document, 'A')).toMatchObject({ key: 'A', name: 'A', mutation: false, type: 'query' });
    expect(documentOperation(document, 'B')).toMatchObject({ name: 'B', mutation: true, type: 'mutation' });
    expect(documentOperation(parse('subscription S { s }'))).toMatchObject({ mutation: true, type: 'subscription' });
    const anonymous = parse('{ a }');
    expect(documentOperation(anonymous)).toMatchObject({ key: anonymous, name: null, mutation: false });
  });

  it('counts an operation it cannot find as a mutation', () => {
    const document = parse('query A { a } query B { b }');
    expect(documentOperation(document).mutation).toBe(true);
    expect(documentOperation(document, 'C').mutation).toBe(true);
    expect(documentOperation({ definitions: [null, 1, { kind: 'OperationDefinition' }] }).mutation).toBe(true);
  });
});

describe('isQueryText (a document as text)', () => {
  it.each([
    ['{ books { title } }', null, true],
    ['query { a }', null, true],
    ['query Books($first: Int = 3) @live { books(first: $first) { title } }', 'Books', true],
    ['mutation AddReview { addReview { id } }', 'AddReview', false],
    ['mutation { addReview { id } }', null, false],
    ['subscription S { s }', null, false],
    ['query A { a } mutation B { b }', 'A', true],
    ['query A { a } mutation B { b }', 'B', false],
    ['query A { a } mutation B { b }', null, false],
    // Words inside strings and comments do not count.
    ['{ search(text: "mutation subscription") { title } } # mutation', null, true],
    ['{ search(text: """a "mutation" here""") { title } }', null, true],
    // What it cannot tell counts as a mutation: a field named `mutation`, a name it cannot match.
    ['{ mutation }', null, false],
    ['query A { a }', 'a.*', false],
    ['query Ab { a }', 'A', false],
  ])('%s (operationName %s) is a query: %s', (document, name, query) => {
    expect(isQueryText(document, name)).toBe(query);
  });
});

describe('requestOperation (a fetch request)', () => {
  const post = (body: unknown) => requestOperation('POST', 'http://x/graphql', JSON.stringify(body));

  it('reads a POST of JSON, a batch, and a persisted operation by its hash', () => {
    expect(post({ query: 'query Q { a }', operationName: 'Q' })).toEqual({
      key: 'Q\nquery Q { a }',
      name: 'Q',
      mutation: false,
    });
    expect(post([{ query: '{ a }' }, { query: 'mutation { b }' }])).toMatchObject({ name: null, mutation: true });
    expect(post([{ query: '{ a }' }, { query: '{ b }' }])).toMatchObject({
      key: 'null\n{ a }\nnull\n{ b }',
      mutation: false,
    });
    // No text to read: not known to be a query.
    const persisted = post({ extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } });
    expect(persisted).toMatchObject({ mutation: true });
    expect(persisted?.key).toContain('abc');
  });

  it('reads a GET from its query string, never a mutation', () => {
    const url = `http://x/graphql?query=${encodeURIComponent('query Q { a }')}&operationName=Q`;
    expect(requestOperation('GET', url, undefined)).toEqual({ key: 'Q\nquery Q { a }', name: 'Q', mutation: false });
    expect(requestOperation('GET', '/graphql?extensions=%7B%7D', undefined)).toMatchObject({ mutation: false });
  });

  it('leaves alone a body that is not JSON text', () => {
    expect(requestOperation('POST', 'http://x/', 'not json')).toBeNull();
    expect(requestOperation('POST', 'http://x/', new Uint8Array([1]))).toBeNull();
    expect(requestOperation('POST', 'http://x/', undefined)).toBeNull();
  });
});
