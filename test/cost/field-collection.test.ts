import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createCostAnalyzer } from '../../src/cost/analyzer.js';
import { CostErrorCode } from '../../src/cost/errors.js';
import { costSchema, rejection } from './support.js';

// Collecting the fields of a selection per object type (GraphQL spec "CollectFields"), as the
// estimate sees it. Default weights: 1 per object and per composite field, 0 per scalar field.
const { schema, expectCost } = costSchema(`
  type Query {
    book: Book
    video: Video
    media: [Media] @listSize(assumedSize: 1)
    costly: Int @cost(weight: "10")
  }
  type Book { title: String, author: Author }
  type Author { name: String, rank: Int @cost(weight: "5"), books: [Book] @listSize(assumedSize: 3) }
  interface Item { id: ID }
  type Video implements Item { id: ID @cost(weight: "4") }
  type Audio { id: ID @cost(weight: "7") }
  union Media = Video | Audio
`);

/** The estimate of a document that is not validated first (the analyzer leaves validation to the server). */
function unvalidated(query: string) {
  const { typeCost, fieldCost } = createCostAnalyzer(schema).estimate({ document: parse(query) });
  return { typeCost, fieldCost };
}

describe('merged selection sets of one response key', () => {
  it('collects a group that shares its first selection set with another group in full', () => {
    // `book.author` merges one selection set ({ name } from the fragment); `again.author` merges that
    // one and { rank }. Both Author selections: 1 (type) + 1 (field) each; rank adds fieldCost 5.
    // typeCost: Query 1 + book 1 + author 1 + again 1 + author 1 = 5; fieldCost: 4 fields + rank 5 = 9.
    expectCost(`
      { book { ...A } again: book { ...A author { rank } } }
      fragment A on Book { author { name } }
    `).toEqual({ typeCost: 5, fieldCost: 9 });
  });

  it('keeps two groups of two selection sets apart', () => {
    // first author: { name } + { rank } (fieldCost 1 + 5); second: { name } + { books { title } }, books
    // an assumed 3 Books (typeCost 3, fieldCost 1). typeCost 1 + 2 + 2 + 3 = 8; fieldCost 1 + 6 + 1 + 2 = 10.
    expectCost(`{
      book { author { name } author { rank } }
      again: book { author { name } author { books { title } } }
    }`).toEqual({ typeCost: 8, fieldCost: 10 });
  });
});

describe('fragments', () => {
  it('skips a named fragment whose type condition the runtime type does not satisfy', () => {
    // Video: id 4; Audio: nothing (Audio.id, weight 7, is not selected for it). fieldCost 1 + max(4, 0).
    expectCost('{ media { ...OnVideo } } fragment OnVideo on Video { id }').toEqual({ typeCost: 2, fieldCost: 5 });
  });

  it('applies an inline fragment on an interface to an object type that implements it', () => {
    expectCost('{ video { ... on Item { id } } }').toEqual({ typeCost: 2, fieldCost: 1 + 4 });
  });

  it('skips an inline fragment on an interface for a union member that does not implement it', () => {
    // Audio has an `id` (weight 7) but is no Item: only Video's id (4) counts.
    expectCost('{ media { ... on Item { id } } }').toEqual({ typeCost: 2, fieldCost: 1 + 4 });
  });

  it('applies an inline fragment without a type condition, honouring its @skip', () => {
    expectCost('{ ... { costly } ... @skip(if: true) { book { title } } }').toEqual({ typeCost: 1, fieldCost: 10 });
  });

  it('ignores an unknown fragment or type condition in a document that was not validated', () => {
    expect(unvalidated('{ costly ...Missing }')).toEqual({ typeCost: 1, fieldCost: 10 });
    expect(unvalidated('{ video { ... on Nope { id } } }')).toEqual({ typeCost: 2, fieldCost: 1 });
  });
});

describe('maxNodes counts every selection visited and every field priced', () => {
  const priced =
    (maxNodes: number, query: string, breakdown = false) =>
    () =>
      createCostAnalyzer(schema, { maxNodes }).estimate({ document: parse(query), breakdown });

  it('prices an operation of exactly maxNodes units and rejects one more, naming the limit', () => {
    // Collecting the root visits costly and book (2), pricing them 2 more; Book's title 1 + 1: 6.
    const query = '{ costly book { title } }';
    expect(priced(6, query)()).toEqual({ typeCost: 2, fieldCost: 11 });
    const error = rejection(priced(5, query));
    expect(error.code).toBe(CostErrorCode.limit);
    expect(error.message).toMatch(/more than 5 selections/);
    expect(error.message).toMatch(/after fragment expansion/);
  });

  it('expands a fragment spread twice in one selection once', () => {
    // Visits: ...Q, costly, ...Q again (not expanded) = 3; pricing costly = 1.
    const query = '{ ...Q ...Q } fragment Q on Query { costly }';
    expect(priced(4, query)()).toEqual({ typeCost: 1, fieldCost: 10 });
    expect(rejection(priced(3, query)).code).toBe(CostErrorCode.limit);
  });

  it('collects a selection set reached again for the same type once, even with the breakdown (no price memo)', () => {
    // root: 2 visits + 2 priced; each book: author 1 + 1; each author: ...F and books 2 + 1;
    // books' { title } from F: 1 visit the first time only, 1 priced each time.
    // 4 + 2 × (2 + 3) + 2 + 1 = 17.
    const query = `
      { book { author { ...F } } again: book { author { ...F } } }
      fragment F on Author { books { title } }
    `;
    const estimate = priced(17, query, true)();
    expect(estimate).toMatchObject({ typeCost: 1 + 2 * (2 + 3), fieldCost: 2 * 3 });
    expect(rejection(priced(16, query, true)).code).toBe(CostErrorCode.limit);
  });
});
