import { describe, expect, it } from 'vitest';
import type { ActualRequest } from '../../src/cost/types.js';
import { costSchema } from './support.js';

// Which possible type an object under a union is priced as, and what a response value of an
// unexpected shape costs. Type weights: Cheap 1 (the default), Dear 10, Odd 20, Outside 50 (not a
// member of Thing); scalar fields cost 0, composite fields 1 (the IBM spec's default weights).
const shop = costSchema(`
  scalar Name @cost(weight: "2")
  type Query {
    thing: Thing
    things: [Thing] @listSize(assumedSize: 5)
    title: Name
    names: [Name] @listSize(assumedSize: 3)
    book: Book
    maybeBook: Book
    books(first: Int): [Book] @listSize(slicingArguments: ["first"])
  }
  type Mutation { addBook(title: String!): Book @cost(weight: "10") }
  union Thing = Cheap | Dear | Odd
  type Cheap { x: Int, label: String }
  type Dear @cost(weight: "10") { x: Int, y: Int }
  type Odd @cost(weight: "20") { z: Int }
  type Outside @cost(weight: "50") { x: Int }
  type Book { title: Name, author: Author }
  type Author { name: String @cost(weight: "3") }
`);
const { actual } = shop;
/** The Query object itself. */
const ROOT = 1;
/** `thing`'s own call: a composite field of default weight. */
const THING = 1;

const at = (...path: (string | number)[]) => ({ message: 'failed', path });

describe('the possible type an abstract object is priced as', () => {
  it('prices as the __typename key itself when an alias of __typename says otherwise', () => {
    const query = '{ thing { kind: __typename __typename ... on Cheap { x } ... on Dear { x } } }';
    expect(actual(query, { thing: { kind: 'Cheap', __typename: 'Dear', x: 1 } })).toEqual({
      typeCost: ROOT + 10,
      fieldCost: THING,
    });
  });

  it('reads __typename under an alias to choose between types whose selected keys are alike', () => {
    // Cheap and Dear both select exactly { kind, x }: the alias, not the keys, decides.
    const query = '{ thing { kind: __typename ... on Cheap { x } ... on Dear { x } } }';
    expect(actual(query, { thing: { kind: 'Cheap', x: 1 } })).toEqual({ typeCost: ROOT + 1, fieldCost: THING });
    expect(actual(query, { thing: { kind: 'Dear', x: 1 } })).toEqual({ typeCost: ROOT + 10, fieldCost: THING });
  });

  it('skips an alias of __typename missing from the object and reads the next one', () => {
    const query = '{ thing { k1: __typename k2: __typename ... on Cheap { x } ... on Dear { x } } }';
    expect(actual(query, { thing: { k2: 'Cheap', x: 1 } })).toEqual({ typeCost: ROOT + 1, fieldCost: THING });
  });

  it('does not take a response key named __typename that selects another field for the type name', () => {
    // `__typename: label` is Cheap's label; the object's keys are exactly Cheap's selection.
    const query = '{ thing { ... on Cheap { __typename: label x } ... on Dear { x y } } }';
    expect(actual(query, { thing: { __typename: 'Dear', x: 1 } })).toEqual({ typeCost: ROOT + 1, fieldCost: THING });
  });

  it('without __typename, matches only the types whose every selected key is present', () => {
    // Dear would also hold `y` (null at least): { x } is a Cheap.
    const query = '{ thing { ... on Cheap { x } ... on Dear { x y } } }';
    expect(actual(query, { thing: { x: 1 } })).toEqual({ typeCost: ROOT + 1, fieldCost: THING });
    expect(actual(query, { thing: { x: 1, y: 2 } })).toEqual({ typeCost: ROOT + 10, fieldCost: THING });
  });

  it('prices a __typename naming no possible type at the costliest possible type (Odd)', () => {
    const query = '{ thing { kind: __typename ... on Cheap { x } ... on Dear { x } ... on Odd { z } } }';
    // Unknown to the schema: the keys { kind, x } would match Cheap and Dear, but the name says neither.
    expect(actual(query, { thing: { kind: 'Gone', x: 1 } })).toEqual({ typeCost: ROOT + 20, fieldCost: THING });
    // A real object type that is not a member of Thing is not priced as itself (Outside, 50).
    const named = '{ thing { __typename ... on Cheap { x } } }';
    expect(actual(named, { thing: { __typename: 'Outside', x: 1 } })).toEqual({
      typeCost: ROOT + 20,
      fieldCost: THING,
    });
  });
});

describe('values of another shape than the schema says', () => {
  it('charges a weighted scalar its type weight when returned, and nothing when undefined', () => {
    expect(actual('{ title }', { title: 'x' })).toEqual({ typeCost: ROOT + 2, fieldCost: 0 });
    expect(actual('{ title }', { title: undefined })).toEqual({ typeCost: ROOT, fieldCost: 0 });
  });

  it('charges no type weight for a list that is not an array, or an object that is a string', () => {
    // A string has a length, but it is not three Names.
    expect(actual('{ names }', { names: 'abc' })).toEqual({ typeCost: ROOT, fieldCost: 0 });
    expect(actual('{ book { title } }', { book: 'a book' })).toEqual({ typeCost: ROOT, fieldCost: 1 });
  });
});

describe('undefined and out-of-range positions on an error path', () => {
  // One Book with its selection: Book 1 + Author 1 (typeCost), author 1 + name 3 (fieldCost).
  const query = '{ books(first: 3) { author { name } } }';

  it('reads an undefined value or item where an error ends as null', () => {
    // maybeBook's estimate: its call + author + name (fieldCost 5), Book + Author (typeCost 2).
    expect(actual('{ maybeBook { author { name } } }', { maybeBook: undefined }, {}, [at('maybeBook')])).toEqual({
      typeCost: ROOT + 2,
      fieldCost: 1 + 1 + 3,
    });
    expect(actual(query, { books: [undefined] }, {}, [at('books', 0)])).toEqual({
      typeCost: ROOT + 2,
      fieldCost: 1 + 4,
    });
  });

  it('charges nothing for an error at an index past the end of the list', () => {
    const data = { books: [{ author: null }] };
    expect(actual(query, data, {}, [at('books', 1)])).toEqual({ typeCost: ROOT + 1, fieldCost: 1 + 1 });
  });
});

describe('response error paths', () => {
  const query = '{ books(first: 20) { author { name } } }';
  // A null item an error reaches costs one Book with its selection; one no error reaches costs nothing.
  const ONE_BOOK = { typeCost: 2, fieldCost: 4 };
  const nulls = (length: number) => ({ books: Array.from({ length }, () => null) });

  it('skips null entries and entries without a path', () => {
    const errors = [null, { message: 'no path' }, at('books', 1)] as ActualRequest['errors'];
    expect(actual(query, nulls(2), {}, errors)).toEqual({ typeCost: ROOT + ONE_BOOK.typeCost, fieldCost: 1 + 4 });
  });

  it('reads a list index sent as a string only when it is written as JSON writes the number', () => {
    const expected = { typeCost: ROOT + ONE_BOOK.typeCost, fieldCost: 1 + ONE_BOOK.fieldCost };
    expect(actual(query, nulls(11), {}, [{ path: ['books', '10'] }])).toEqual(expected);
    expect(actual(query, nulls(11), {}, [{ path: ['books', '01'] }])).toEqual({ typeCost: ROOT, fieldCost: 1 });
  });

  it('reads a response key ending in digits as a key', () => {
    const aliased = '{ b1: maybeBook { author { name } } }';
    expect(actual(aliased, { b1: null }, {}, [at('b1')])).toEqual({ typeCost: ROOT + 2, fieldCost: 1 + 1 + 3 });
  });

  it('cuts a path at a segment that is neither a string nor a number', () => {
    // As a server might send it: `["books", ["1"]]` names no list item.
    const errors = JSON.parse('[{ "path": ["books", ["1"], "author"] }]') as ActualRequest['errors'];
    expect(actual(query, nulls(2), {}, errors)).toEqual({ typeCost: ROOT, fieldCost: 1 });
  });
});

describe('the actual cost of a mutation', () => {
  it('charges nothing for __typename on the mutation root', () => {
    // addBook at its estimate: Book 1 and one Name 2 (typeCost), its weight 10 (fieldCost).
    const query = 'mutation { __typename addBook(title: "x") { title } }';
    expect(actual(query, { __typename: 'Mutation', addBook: null })).toEqual({ typeCost: 1 + 1 + 2, fieldCost: 10 });
  });
});
