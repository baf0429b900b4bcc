import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { costSchema } from './support.js';

// Pricing cases where two parts of one operation share a memo (a fragment, a field group, a cache
// key): each part must still be priced on its own terms.

const shop = costSchema(`
  directive @format(pretty: Boolean @cost(weight: "4"), locale: String @cost(weight: "9")) on FIELD
  type Query {
    conn(first: Int): Conn @listSize(slicingArguments: ["first"], sizedFields: ["edges"])
    search(first: Int): Search @listSize(slicingArguments: ["first"], sizedFields: ["results { page }"])
    tied: Tied
    dearer: Dearer
    book: Book
  }
  type Conn { edges: [Edge] }
  type Edge { node: Book }
  type Book { title: String }
  type Search { results: Results }
  type Results { page: [Book] }
  type Left { l: Int @cost(weight: "3") }
  type Right { r: Int @cost(weight: "3") }
  union Tied = Left | Right
  type Cheap { c: Int @cost(weight: "2") }
  type Dear { d: Int @cost(weight: "3") }
  union Dearer = Cheap | Dear
`);
/** The Query object itself: one composite-type instance per operation. */
const ROOT = 1;

describe('two sizedFields connections in one operation', () => {
  it('each hands its own size to the lists below it, through a shared fragment', () => {
    const fragment = 'fragment E on Conn { edges { node { title } } }';
    // conn: 1 field + 1 Conn; edges: 1 field per Conn, n Edges; node: 1 field + 1 Book per Edge.
    expect(shop.estimate(`{ conn(first: 2) { ...E } } ${fragment}`)).toEqual({
      typeCost: ROOT + 1 + 2 + 2,
      fieldCost: 1 + 1 + 2,
    });
    expect(shop.estimate(`{ conn(first: 50) { ...E } } ${fragment}`)).toEqual({
      typeCost: ROOT + 1 + 50 + 50,
      fieldCost: 1 + 1 + 50,
    });
    // Both in one operation: the sum, whichever comes first.
    const both = { typeCost: ROOT + 5 + 101, fieldCost: 4 + 52 };
    expect(shop.estimate(`{ a: conn(first: 2) { ...E } b: conn(first: 50) { ...E } } ${fragment}`)).toEqual(both);
    expect(shop.estimate(`{ b: conn(first: 50) { ...E } a: conn(first: 2) { ...E } } ${fragment}`)).toEqual(both);
  });

  it('a nested path ("results { page }") keeps each connection\'s size through one fragment', () => {
    const fragment = 'fragment R on Search { results { page { title } } }';
    // search: 1 field + 1 Search; results: 1 field + 1 Results; page: 1 field, n Books.
    expect(shop.estimate(`{ search(first: 2) { ...R } } ${fragment}`)).toEqual({
      typeCost: ROOT + 1 + 1 + 2,
      fieldCost: 3,
    });
    expect(shop.estimate(`{ search(first: 50) { ...R } } ${fragment}`)).toEqual({
      typeCost: ROOT + 1 + 1 + 50,
      fieldCost: 3,
    });
    expect(shop.estimate(`{ x: search(first: 2) { ...R } y: search(first: 50) { ...R } } ${fragment}`)).toEqual({
      typeCost: ROOT + 4 + 52,
      fieldCost: 6,
    });
    expect(shop.estimate(`{ y: search(first: 50) { ...R } x: search(first: 2) { ...R } } ${fragment}`)).toEqual({
      typeCost: ROOT + 4 + 52,
      fieldCost: 6,
    });
  });
});

describe('the breakdown under an abstract type', () => {
  const paths = (query: string) =>
    shop.analyzer.estimate({ document: parse(query), breakdown: true }).fields?.map((entry) => entry.path);

  it('lists the first possible type when two cost the same', () => {
    expect(paths('{ tied { ... on Left { l } ... on Right { r } } }')).toEqual(['tied', 'tied.l']);
    expect(paths('{ tied { ... on Right { r } ... on Left { l } } }')).toEqual(['tied', 'tied.l']);
    expect(shop.estimate('{ tied { ... on Left { l } ... on Right { r } } }')).toEqual({
      typeCost: ROOT + 1,
      fieldCost: 1 + 3,
    });
  });

  it('lists the dearer type, wherever it comes', () => {
    expect(paths('{ dearer { ... on Cheap { c } ... on Dear { d } } }')).toEqual(['dearer', 'dearer.d']);
    expect(paths('{ dearer { ... on Dear { d } ... on Cheap { c } } }')).toEqual(['dearer', 'dearer.d']);
  });
});

describe('one field selected twice with different weighted directive arguments', () => {
  it("pays the dearest selection's directive arguments once, not their sum", () => {
    // book: 1 field + 1 Book. @format(pretty:) weighs 4, @format(locale:) 9.
    expect(shop.estimate('{ book { title } }')).toEqual({ typeCost: ROOT + 1, fieldCost: 1 });
    expect(shop.estimate('{ book @format(pretty: true) { title } }')).toEqual({ typeCost: ROOT + 1, fieldCost: 1 + 4 });
    const twice = { typeCost: ROOT + 1, fieldCost: 1 + 9 };
    expect(shop.estimate('{ book @format(pretty: true) { title } book @format(locale: "fr") { title } }')).toEqual(
      twice,
    );
    expect(shop.estimate('{ book @format(locale: "fr") { title } book @format(pretty: true) { title } }')).toEqual(
      twice,
    );
    expect(shop.estimate('{ book { title } book @format(locale: "fr") { title } }')).toEqual(twice);
    expect(shop.estimate('{ book @format(locale: "fr") { title } book { title } }')).toEqual(twice);
  });
});
