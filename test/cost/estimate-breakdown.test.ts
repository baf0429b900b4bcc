import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { costSchema } from './support.js';

// The static estimate's breakdown, its memo under abstract types, and totals at the edge of exact
// numbers. Default weights (IBM spec): 1 per object type instance and composite field, 0 for scalars.
const shop = costSchema(`
  type Query {
    u: U
    empty: Nothing
    book: Book
    exact: Int @cost(weight: "9007199254740991")
    inexact: Int @cost(weight: "9007199254740992")
  }
  union U = T
  type T { l: U, r: U, x: Int }
  interface Nothing { id: ID }
  type Book { title: String }
`);
const { analyzer, estimate } = shop;

/** `{ u { ...F0 } }` where each F(k) selects F(k+1) under two union fields: 2^levels paths after expansion. */
function fanOutThroughUnion(levels: number): string {
  const fragments = Array.from(
    { length: levels },
    (_, k) => `fragment F${k} on T { l { ...F${k + 1} } r { ...F${k + 1} } }`,
  );
  return `{ u { ...F0 } } ${fragments.join(' ')} fragment F${levels} on T { x }`;
}

describe('the memo under an abstract type', () => {
  it('prices each fragment below a union once, within the default work cap of 10,000 selections', () => {
    // 2^15 - 1 union fields after expansion (u, then 2, 4, … 2^14), each a call of 1 and one T of 1;
    // the Query object adds 1. Walked without the memo, they would exceed the cap.
    expect(estimate(fanOutThroughUnion(14))).toEqual({ typeCost: 2 ** 15, fieldCost: 2 ** 15 - 1 });
  });
});

describe('the breakdown', () => {
  it('lists nothing below an interface no type implements', () => {
    const { fields } = analyzer.estimate({ document: parse('{ empty { id } book { title } }'), breakdown: true });
    expect(fields?.map((entry) => entry.path)).toEqual(['empty', 'book', 'book.title']);
  });

  it('is absent from an estimate that did not ask for it', () => {
    const result = analyzer.estimate({ document: parse('{ book { title } }') });
    expect(Object.keys(result).sort()).toEqual(['fieldCost', 'typeCost']);
    const nulled = analyzer.actual({ document: parse('{ book { title } }'), data: null });
    expect(Object.keys(nulled).sort()).toEqual(['fieldCost', 'typeCost']);
  });
});

describe('reported totals', () => {
  it('reports Number.MAX_SAFE_INTEGER exactly, and Infinity above it', () => {
    // The field's weight is the whole fieldCost; the Query object is the typeCost.
    expect(estimate('{ exact }')).toEqual({ typeCost: 1, fieldCost: Number.MAX_SAFE_INTEGER });
    expect(estimate('{ inexact }')).toEqual({ typeCost: 1, fieldCost: Number.POSITIVE_INFINITY });
  });
});
