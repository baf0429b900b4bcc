import { describe, expect, it } from 'vitest';
import { librarySdl } from './apollo-library.js';
import { costSchema } from './support.js';

// actual() under costModel: 'apollo': Apollo Router's actual cost of a response (each field present
// costs its arguments once, an object its weight and its selection, a scalar or null its @cost
// weight or 0, a list each item so; the root weighs 0), except where the refund guarantees of
// ActualRequest charge more: work an error hid costs its estimate, a mutation that ran its base 10
// and its root fields' estimates, and an aliased field what it returned. Each number is worked out
// by hand; where the router would say otherwise, the comment gives its number too.

const { actual, estimate } = costSchema(librarySdl, { costModel: 'apollo' });

describe("costModel 'apollo': actual cost of a response", () => {
  it('charges what was returned', () => {
    const query = '{ books(first: 3) { title price genre } }';
    // Estimate: 3 × (Book 1 + price 3 + genre 2) = 18. Two books came back: 2 × 6 = 12.
    expect(estimate(query)).toEqual({ typeCost: 18, fieldCost: 0 });
    const data = {
      books: [
        { title: 'a', price: 1, genre: 'NOVEL' },
        { title: 'b', price: 2, genre: 'POETRY' },
      ],
    };
    expect(actual(query, data)).toEqual({ typeCost: 12, fieldCost: 0 });
  });

  it('charges the arguments once per field, not per item', () => {
    const query = '{ books(first: 2, filter: { heavy: "x" }) { title } }';
    // Arguments: Filter 1 + heavy 6 = 7. Estimate 2 × Book 1 + 7 = 9; two books 2 + 7; none 0 + 7.
    expect(estimate(query)).toEqual({ typeCost: 2, fieldCost: 7 });
    expect(actual(query, { books: [{ title: 'a' }, { title: 'b' }] })).toEqual({ typeCost: 2, fieldCost: 7 });
    expect(actual(query, { books: [] })).toEqual({ typeCost: 0, fieldCost: 7 });
  });

  it('charges a legitimate null its weight only', () => {
    // book: Book 1 + author null, which has no @cost of its own or on Author: 0.
    expect(actual('{ book { title author { name } } }', { book: { title: 'x', author: null } })).toEqual({
      typeCost: 1,
      fieldCost: 0,
    });
    // prices [1, null, 3]: Money weighs 3 for each value, null included (as in the router): 9.
    expect(actual('{ prices }', { prices: [1, null, 3] })).toEqual({ typeCost: 9, fieldCost: 0 });
  });

  it('charges the work an error hid at its estimate (the router charges such a null its weight or 0)', () => {
    const query = '{ book { title author { name } } }';
    // author nulled by an error: Book 1 + author's estimate (Author 1) = 2; the router says 1.
    expect(actual(query, { book: { title: 'x', author: null } }, undefined, [{ path: ['book', 'author'] }])).toEqual({
      typeCost: 2,
      fieldCost: 0,
    });
    // data: null is the whole estimate (2); no data at all (nothing ran) is 0.
    expect(actual(query, null)).toEqual({ typeCost: 2, fieldCost: 0 });
    expect(actual(query, undefined)).toEqual({ typeCost: 0, fieldCost: 0 });
  });

  it('charges a list item an error nulled one value of the estimate', () => {
    const query = '{ books(first: 3) { title } }';
    // [{…}, null]: 1 + 0 without an error; with one at books.1, 1 + one Book 1 = 2.
    expect(actual(query, { books: [{ title: 'a' }, null] })).toEqual({ typeCost: 1, fieldCost: 0 });
    expect(actual(query, { books: [{ title: 'a' }, null] }, undefined, [{ path: ['books', 1] }])).toEqual({
      typeCost: 2,
      fieldCost: 0,
    });
    // matrix [[{…}], null] with an error at matrix.1: the inner list [{…}] 1, and the nulled inner
    // list the whole list size of Books, 3 × 1: 4.
    expect(
      actual('{ matrix { title } }', { matrix: [[{ title: 'a' }], null] }, undefined, [{ path: ['matrix', 1] }]),
    ).toEqual({
      typeCost: 4,
      fieldCost: 0,
    });
  });

  it('charges a mutation its base 10 and the estimate of each root field that ran (the router: what it returned)', () => {
    const query = 'mutation { addBook(title: "x") { title } }';
    // 10 + addBook's estimate (own 10) = 20, whatever it returned; the router says 10 for both.
    expect(actual(query, { addBook: { title: 'x' } })).toEqual({ typeCost: 0, fieldCost: 20 });
    expect(actual(query, { addBook: null })).toEqual({ typeCost: 0, fieldCost: 20 });
    expect(actual(query, {})).toEqual({ typeCost: 0, fieldCost: 10 });
  });

  it('walks every fragment, as the estimate does', () => {
    // [{ length }, { codec }]: Media 1 + length 0, then Media 1 + codec 30.
    expect(
      actual('{ media { ... on Video { length } ... on Audio { codec } } }', {
        media: [{ length: 3 }, { codec: 'x' }],
      }),
    ).toEqual({ typeCost: 2, fieldCost: 30 });
    // A field written twice is paid twice, in the estimate and in the response: 10 + 10.
    expect(actual('{ costly costly }', { costly: 1 })).toEqual({ typeCost: 0, fieldCost: 20 });
  });

  it('reads a field under its response key (the router reads it by name: an aliased field would cost 0)', () => {
    // a: books(first: 2), two books returned: 2 × Book 1.
    expect(actual('{ a: books(first: 2) { title } }', { a: [{ title: 'x' }, { title: 'y' }] })).toEqual({
      typeCost: 2,
      fieldCost: 0,
    });
  });

  it('does not charge @join__field(requires:) selections, which only the estimate pays', () => {
    const { actual: shipsActual, estimate: shipsEstimate } = costSchema(
      `
        directive @join__field(requires: String) on FIELD_DEFINITION
        type Query { ships: [Ship] @listSize(assumedSize: 2) }
        type Ship { owner: Owner, fee: Int @join__field(requires: "owner { rating }") @cost(weight: "3") }
        type Owner { rating: Int @cost(weight: "4") }
      `,
      { costModel: 'apollo' },
    );
    // Estimate 2 × (Ship 1 + fee 3 + owner 1 + rating 4) = 18; the response: 2 × (Ship 1 + fee 3) = 8.
    expect(shipsEstimate('{ ships { fee } }')).toEqual({ typeCost: 4, fieldCost: 14 });
    expect(shipsActual('{ ships { fee } }', { ships: [{ fee: 1 }, { fee: 2 }] })).toEqual({
      typeCost: 2,
      fieldCost: 6,
    });
  });

  it('measures a long response whatever maxNodes is (the response bounds that walk, not the document)', () => {
    const books = Array.from({ length: 20_000 }, (_, index) => ({ title: String(index) }));
    // 20,000 × Book 1 (twice what was asked for), beyond maxNodes (10,000), which caps the work on the document only.
    expect(actual('{ books(first: 10000) { title } }', { books })).toEqual({ typeCost: 20_000, fieldCost: 0 });
  });

  it('walks a fragment fan-out in work linear in the document', () => {
    const fragments = ['fragment F0 on Query { costly }'];
    for (let level = 1; level <= 20; level++) {
      fragments.push(`fragment F${level} on Query { ...F${level - 1} ...F${level - 1} }`);
    }
    // costly met 2²⁰ times, 10 each, without 2²⁰ steps of work.
    expect(actual(`${fragments.join('\n')} { ...F20 }`, { costly: 1 })).toEqual({
      typeCost: 0,
      fieldCost: 2 ** 20 * 10,
    });
  });

  it('prices each response of the same request on its own', () => {
    const query = '{ books(first: 3) { title } }';
    expect(actual(query, { books: [{ title: 'a' }] })).toEqual({ typeCost: 1, fieldCost: 0 });
    expect(actual(query, { books: [{ title: 'a' }, { title: 'b' }, { title: 'c' }] })).toEqual({
      typeCost: 3,
      fieldCost: 0,
    });
  });
});
