import { describe, expect, it } from 'vitest';
import { costSchema } from './support.js';

// What a response with errors cost: the work that was done is charged, whether or not an error
// nulled its result afterwards.
const { actual, estimate } = costSchema(`
  type Query {
    expensive: Report @cost(weight: "50")
    book(id: ID!): Book!
    maybeBook(id: ID!): Book
    books(first: Int): [Book] @listSize(slicingArguments: ["first"])
    strictBooks(first: Int): [Book!] @listSize(slicingArguments: ["first"])
    matrix: [[Book]] @listSize(assumedSize: 3)
    conn(first: Int): Conn @listSize(slicingArguments: ["first"], sizedFields: ["edges"])
    media: [Media] @listSize(assumedSize: 2)
    item: Item
  }
  type Mutation {
    addBook(title: String!): Book @cost(weight: "10")
    addBooks(titles: [String!]!): [Book] @cost(weight: "3") @listSize(assumedSize: 5)
    ping: Int @cost(weight: "1")
  }
  type Report { total: Int @cost(weight: "5") }
  type Book { id: ID!, title: String!, author: Author }
  type Author { id: ID!, name: String @cost(weight: "2"), books: [Book] @listSize(assumedSize: 4) }
  type Conn { edges: [Edge], total: Int }
  type Edge { node: Book! }
  union Media = Video | Audio
  type Video @cost(weight: "4") { length: Int @cost(weight: "1") }
  type Audio { codec: String @cost(weight: "30") }
  interface Item { id: ID }
  type Pen implements Item { id: ID, ink: Ink }
  type Ink implements Item { id: ID @cost(weight: "7") }
`);

const at = (...path: (string | number)[]) => ({ message: 'failed', path });

describe('actual cost when the data is null or absent', () => {
  it('charges the whole estimate when an error nulled the root (a failing non-null sibling)', () => {
    const query = '{ expensive { total } x: book(id: "nope") { id } }';
    expect(estimate(query)).toEqual({ typeCost: 3, fieldCost: 56 });
    expect(actual(query, null, {}, [at('x')])).toEqual({ typeCost: 3, fieldCost: 56 });
    expect(actual(query, null)).toEqual({ typeCost: 3, fieldCost: 56 });
  });
  it('charges nothing when no data was returned at all', () => {
    expect(actual('{ expensive { total } }', undefined, {}, [at('expensive')])).toEqual({ typeCost: 0, fieldCost: 0 });
  });
});

describe('actual cost of a subtree an error nulled', () => {
  it('charges a field nulled by an error below it its estimate; a legitimate null its call only', () => {
    const query = '{ maybeBook(id: "1") { title author { name } } }';
    expect(actual(query, { maybeBook: null }, {}, [at('maybeBook', 'title')])).toEqual({ typeCost: 3, fieldCost: 4 });
    expect(actual(query, { maybeBook: null }, {}, [at('maybeBook')])).toEqual({ typeCost: 3, fieldCost: 4 });
    expect(actual(query, { maybeBook: null })).toEqual({ typeCost: 1, fieldCost: 1 });
    const withoutPath = { message: 'not about a field', path: undefined };
    expect(actual(query, { maybeBook: null }, {}, [at('book', 'title'), withoutPath])).toEqual({
      typeCost: 1,
      fieldCost: 1,
    });
  });
  it('charges a nulled field deeper down its estimate there, and the healthy rest as returned', () => {
    const query = '{ maybeBook(id: "1") { title author { id name books { title } } } }';
    const data = { maybeBook: { title: 't', author: null } };
    // author's estimate: Author + 4 books (typeCost 5), its call + name + the books call (fieldCost 4).
    expect(actual(query, data, {}, [at('maybeBook', 'author', 'id')])).toEqual({ typeCost: 1 + 1 + 5, fieldCost: 5 });
    expect(actual(query, data)).toEqual({ typeCost: 2, fieldCost: 2 });
  });
  it('charges a nulled list item one item of the estimate, and refunds the items never returned', () => {
    const query = '{ books(first: 3) { title author { name } } }';
    const data = { books: [{ title: 'a', author: null }, null] };
    expect(estimate(query)).toEqual({ typeCost: 1 + 3 * 2, fieldCost: 1 + 3 * 3 });
    expect(actual(query, data, {}, [at('books', 1, 'title')])).toEqual({ typeCost: 1 + 1 + 2, fieldCost: 1 + 1 + 3 });
    expect(actual(query, data)).toEqual({ typeCost: 2, fieldCost: 2 });
  });
  it('charges a list nulled through a non-null item its estimate', () => {
    const query = '{ strictBooks(first: 3) { title author { name } } }';
    expect(actual(query, { strictBooks: null }, {}, [at('strictBooks', 1, 'title')])).toEqual(estimate(query));
  });
  it('charges a nulled item of a nested list the remaining levels of the estimate', () => {
    const query = '{ matrix { title } }';
    const data = { matrix: [[{ title: 'a' }, null], null, [null]] };
    const errors = [at('matrix', 0, 1, 'title'), at('matrix', 1)];
    // [0][0] returned, [0][1] one book, [1] one row of 3 books, [2][0] a legitimate null.
    expect(actual(query, data, {}, errors)).toEqual({ typeCost: 1 + 1 + 1 + 3, fieldCost: 1 });
    expect(estimate(query)).toEqual({ typeCost: 1 + 9, fieldCost: 1 });
  });
  it('reads error paths by response key, so aliases are told apart', () => {
    const query = '{ a: maybeBook(id: "1") { author { name } } b: maybeBook(id: "2") { author { name } } }';
    const data = { a: null, b: null };
    expect(actual(query, data, {}, [at('a', 'author')])).toEqual({ typeCost: 1 + 2, fieldCost: 4 + 1 });
    expect(actual(query, data, {}, [at('maybeBook', 'author')])).toEqual({ typeCost: 1, fieldCost: 2 });
  });
  it('charges a nulled interface or union value the costliest possible type', () => {
    const media = '{ media { ... on Video { length } ... on Audio { codec } } }';
    // Item 0 nulled: max(Video 4, Audio 1) and max(1, 30); item 1 an Audio.
    expect(actual(media, { media: [null, { codec: 'x' }] }, {}, [at('media', 0)])).toEqual({
      typeCost: 1 + 4 + 1,
      fieldCost: 1 + 30 + 30,
    });
    const item = '{ item { id ... on Pen { ink { id } } } }';
    expect(estimate(item)).toEqual({ typeCost: 1 + 2, fieldCost: 1 + 8 });
    expect(actual(item, { item: null }, {}, [at('item', 'id')])).toEqual({ typeCost: 1 + 2, fieldCost: 1 + 8 });
  });
  it('sizes a nulled list by its parent connection sizedFields, as the estimate does', () => {
    const query = '{ conn(first: 5) { total edges { node { title } } } }';
    expect(estimate(query)).toEqual({ typeCost: 1 + 1 + 5 * 2, fieldCost: 1 + 1 + 5 });
    expect(actual(query, { conn: { total: 9, edges: null } }, {}, [at('conn', 'edges')])).toEqual(estimate(query));
    const data = { conn: { total: 9, edges: [{ node: { title: 'a' } }, null] } };
    expect(actual(query, data, {}, [at('conn', 'edges', 1, 'node', 'title')])).toEqual({
      typeCost: 1 + 1 + 2 + 2,
      fieldCost: 1 + 1 + 1 + 1,
    });
  });
  it('reads list indices sent as strings', () => {
    const query = '{ books(first: 3) { title author { name } } }';
    const errors = [{ path: ['books', '1', 'title'] }];
    expect(actual(query, { books: [null, null] }, {}, errors)).toEqual({ typeCost: 1 + 2, fieldCost: 1 + 3 });
  });
});

describe('actual cost of a mutation', () => {
  it('charges every root field in the data its estimate, whatever it returned', () => {
    const query = 'mutation { addBook(title: "x") { title author { name } } ping }';
    expect(estimate(query)).toEqual({ typeCost: 1 + 2, fieldCost: 13 + 1 });
    expect(actual(query, { addBook: null, ping: null })).toEqual({ typeCost: 3, fieldCost: 14 });
    expect(actual(query, { addBook: { title: 'x', author: null }, ping: 1 })).toEqual({ typeCost: 3, fieldCost: 14 });
    expect(actual(query, null, {}, [at('addBook')])).toEqual({ typeCost: 3, fieldCost: 14 });
  });
  it('does not refund a short list a mutation returned, and charges no root field absent from the data', () => {
    expect(actual('mutation { addBooks(titles: ["a"]) { title } }', { addBooks: [{ title: 'a' }] })).toEqual({
      typeCost: 1 + 5,
      fieldCost: 3,
    });
    expect(actual('mutation { ping addBook(title: "x") { title } }', { ping: 1 })).toEqual({
      typeCost: 1,
      fieldCost: 1,
    });
  });
});
