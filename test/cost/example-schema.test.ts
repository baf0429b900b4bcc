import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CostAnalysisError, CostErrorCode } from '../../src/cost/errors.js';
import { costSchema } from './support.js';

// The bookstore example's schema, as its server loads it. Its list resolvers return every item when
// no slicing argument has a value (`first: null` included), so each list field must get one.
const sdl = readFileSync(new URL('../../examples/bookstore/schema.graphql', import.meta.url), 'utf8');
const { estimate } = costSchema(sdl);

function rejected(query: string): unknown {
  try {
    estimate(query);
  } catch (error) {
    if (error instanceof CostAnalysisError) return error.extensions.code;
    throw error;
  }
  return 'priced';
}

describe('the bookstore example schema', () => {
  it('rejects a list field asked for every item (no slicing argument, or first: null)', () => {
    for (const query of [
      '{ authors { name } }',
      '{ authors(first: 2, last: 2) { name } }',
      '{ book(id: "book-1") { reviews { rating } } }',
      '{ search(text: "a", first: null) { __typename } }',
      '{ book(id: "book-1") { recommendations(first: null) { title } } }',
      '{ author(id: "author-1") { books(first: null) { title } } }',
    ]) {
      expect(rejected(query), query).toBe(CostErrorCode.slicingArguments);
    }
  });

  it('prices the README examples as the README shows', () => {
    const total = (query: string) => {
      const { typeCost, fieldCost } = estimate(query);
      return typeCost + fieldCost;
    };
    expect(total('{ books(first: 3) { edges { node { title author { name } } } } }')).toBe(19);
    expect(total('{ books(first: 2) { edges { node { title recommendations { title } } } } }')).toBe(56);
    // An omitted slicing argument with a schema default is the one given: search 10, books 10.
    expect(estimate('{ search(text: "atlas") { __typename } author(id: "a") { books { title } } }')).toEqual({
      typeCost: 1 + 10 + 1 + 10,
      fieldCost: 3,
    });
  });
});
