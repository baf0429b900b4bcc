import { buildSchema, isInterfaceType, isObjectType, parse, type GraphQLObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createCostAnalyzer, defaultChargedCost, estimateCost } from '../../src/cost/analyzer.js';
import { CostAnalysisError } from '../../src/cost/errors.js';
import { costSchema } from './support.js';

const library = costSchema(`
  scalar Money @cost(weight: "3")
  enum Genre @cost(weight: "2") { NOVEL POETRY }

  type Query {
    book(id: ID): Book
    books(first: Int, last: Int, filter: Filter @cost(weight: "4")): [Book!]
      @listSize(slicingArguments: ["first", "last"], requireOneSlicingArgument: false)
    bestsellers: [Book] @listSize(assumedSize: 5)
    shelves: [Shelf]
    matrix: [[Book]] @listSize(assumedSize: 3)
    tags: [String]
    search(filter: Filter, ids: [ID] @cost(weight: "2"), filters: [Filter]): Int @cost(weight: "7")
    connection(first: Int = 20, after: String): BookConnection
      @listSize(slicingArguments: ["first"], sizedFields: ["edges", "nodes"])
    filtered(filter: Filter): [Book] @listSize(slicingArguments: ["filter.max"])
    costly: Int @cost(weight: "10")
    discounted(coupon: Boolean @cost(weight: "-20")): Book @cost(weight: "5")
    price: Money
    genres: [Genre] @listSize(assumedSize: 4)
    media: [Media] @listSize(assumedSize: 2)
    item: Item
  }
  type Mutation { addBook(title: String!): Book @cost(weight: "10") }
  input Filter { max: Int, cheap: Boolean @cost(weight: "-1"), nested: Filter, heavy: String @cost(weight: "6") }
  type Book { title: String, price: Money, genre: Genre, author: Author, reviews(first: Int): [Review] @listSize(slicingArguments: ["first"]) }
  type Author { name: String, books: [Book] @listSize(assumedSize: 3) }
  type Review { stars: Int @cost(weight: "2") }
  type Shelf { books: [Book] }
  type BookConnection { edges: [BookEdge], nodes: [Book], pageInfo: PageInfo }
  type BookEdge { cursor: String, node: Book }
  type PageInfo { hasNextPage: Boolean }
  type Video @cost(weight: "9") { length: Int @cost(weight: "1") }
  type Audio { codec: String @cost(weight: "30") }
  union Media = Video | Audio | Book
  interface Item { id: ID @cost(weight: "4") }
  type Pen implements Item { id: ID }
  type Ink implements Item { id: ID @cost(weight: "1") }
`);
const { expectCost, estimate } = library;

describe('default weights (IBM spec "Default weights")', () => {
  it('charges 1 per object (root included) and per composite field, 0 for scalars', () => {
    expectCost('{ book { title author { name } } }').toEqual({ typeCost: 3, fieldCost: 2 });
  });
  it('charges only the root type for a scalar-only operation', () => {
    expectCost('{ tags }').toEqual({ typeCost: 1, fieldCost: 0 });
  });
  it('charges the mutation root type like the query root type', () => {
    expectCost('mutation { addBook(title: "x") { title } }').toEqual({ typeCost: 2, fieldCost: 10 });
  });
  it('makes __typename free', () => {
    expectCost('{ __typename book { __typename } }').toEqual({ typeCost: 2, fieldCost: 1 });
  });
});

describe('@cost weights', () => {
  it('adds a field weight once per call', () => {
    expectCost('{ costly }').toEqual({ typeCost: 1, fieldCost: 10 });
  });
  it('counts a weighted scalar or enum in typeCost for every value', () => {
    expectCost('{ price book { price genre } }').toEqual({ typeCost: 1 + 3 + 1 + 3 + 2, fieldCost: 1 });
    expectCost('{ genres }').toEqual({ typeCost: 1 + 4 * 2, fieldCost: 0 });
  });
  it('adds argument weights when the argument has a value, including nested input fields', () => {
    expectCost('{ search }').toEqual({ typeCost: 1, fieldCost: 7 });
    expectCost('{ search(filter: { max: 1 }) }').toEqual({ typeCost: 1, fieldCost: 7 + 1 });
    expectCost('{ search(filter: { heavy: "x", nested: { cheap: true } }) }').toEqual({
      typeCost: 1,
      fieldCost: 7 + 1 + 6 + 1 - 1,
    });
  });
  it('pays an explicit null argument but not an absent one', () => {
    expectCost('{ search(filter: null) }').toEqual({ typeCost: 1, fieldCost: 8 });
    expectCost('query Q($f: Filter) { search(filter: $f) }', {}).toEqual({ typeCost: 1, fieldCost: 7 });
    expectCost('query Q($f: Filter) { search(filter: $f) }', { f: null }).toEqual({ typeCost: 1, fieldCost: 8 });
  });
  it('pays a list argument weight once, then the input fields of every element', () => {
    expectCost('{ search(ids: ["a", "b", "c"]) }').toEqual({ typeCost: 1, fieldCost: 9 });
    // filters: [Filter] defaults to weight 1 (input-object type), paid once; heavy (6) per element.
    expectCost('{ search(filters: [{ heavy: "a" }, { heavy: "b" }]) }').toEqual({
      typeCost: 1,
      fieldCost: 7 + 1 + 6 + 6,
    });
  });
  it('lets a negative argument offset its own field, clamped at 0, never a sibling', () => {
    expectCost('{ discounted { title } }').toEqual({ typeCost: 2, fieldCost: 5 });
    expectCost('{ discounted(coupon: true) { title } costly }').toEqual({ typeCost: 2, fieldCost: 0 + 10 });
  });
  it('reads the weight as a string, an Int (Apollo Federation) or a Float', () => {
    const schema = buildSchema(`
      directive @cost(weight: Int!) on ARGUMENT_DEFINITION | ENUM | FIELD_DEFINITION | INPUT_FIELD_DEFINITION | OBJECT | SCALAR
      type Query { a: Int @cost(weight: 4) }
    `);
    expect(estimateCost({ schema, document: parse('{ a }') })).toEqual({ typeCost: 1, fieldCost: 4 });
    const floats = buildSchema(`
      directive @cost(weight: Float!) on FIELD_DEFINITION | OBJECT
      type Query @cost(weight: 0.5) { a: Int @cost(weight: 2.5) }
    `);
    expect(estimateCost({ schema: floats, document: parse('{ a }') })).toEqual({ typeCost: 0.5, fieldCost: 2.5 });
  });
  it('reads @cost on type extensions and on fields added by extensions', () => {
    const { expectCost: extended } = costSchema(`
      type Query { a: Thing }
      type Thing { x: Int }
      extend type Thing @cost(weight: "6")
      extend type Query { b: Int @cost(weight: "2") }
    `);
    extended('{ a { x } b }').toEqual({ typeCost: 1 + 6, fieldCost: 1 + 2 });
  });
  it('charges the arguments of directives on a selection to the field', () => {
    const { expectCost: directed } = costSchema(`
      directive @sample(rate: Float @cost(weight: "3")) on FIELD
      type Query { a: Int }
    `);
    directed('{ a @sample(rate: 0.5) }').toEqual({ typeCost: 1, fieldCost: 3 });
    directed('{ a @sample }').toEqual({ typeCost: 1, fieldCost: 0 });
  });
});

describe('list sizes (IBM spec "@listSize")', () => {
  it('multiplies the selection, not the field call, by the slicing argument', () => {
    expectCost('{ books(first: 3) { title author { name } } }').toEqual({ typeCost: 1 + 3 * 2, fieldCost: 1 + 3 });
  });
  it('uses the largest slicing argument supplied', () => {
    expectCost('{ books(first: 3, last: 7) { title } }').toEqual({ typeCost: 8, fieldCost: 1 });
  });
  it('reads slicing arguments from variables and operation defaults', () => {
    expectCost('query Q($n: Int) { books(first: $n) { title } }', { n: 4 }).toEqual({ typeCost: 5, fieldCost: 1 });
    expectCost('query Q($n: Int = 6) { books(first: $n) { title } }', {}).toEqual({ typeCost: 7, fieldCost: 1 });
  });
  it('falls back to defaultListSize (10) when no slicing argument has a value', () => {
    expectCost('{ books { title } }').toEqual({ typeCost: 11, fieldCost: 1 });
    expectCost('{ shelves { books { title } } }').toEqual({ typeCost: 1 + 10 * (1 + 10), fieldCost: 1 + 10 });
  });
  it('treats a negative slicing value as 0 where maxListSize is off (the spec as written)', () => {
    const spec = costSchema(library.sdl, { maxListSize: Infinity });
    spec.expectCost('{ books(first: -1) { title author { name } } }').toEqual({ typeCost: 1, fieldCost: 1 });
  });
  it('uses assumedSize', () => {
    expectCost('{ bestsellers { title } }').toEqual({ typeCost: 6, fieldCost: 1 });
  });
  it('reads a nested slicing argument path', () => {
    expectCost('{ filtered(filter: { max: 2 }) { title } }').toEqual({ typeCost: 3, fieldCost: 1 + 1 });
  });
  it('multiplies every level of a nested list', () => {
    expectCost('{ matrix { title } }').toEqual({ typeCost: 1 + 9, fieldCost: 1 });
  });
  it('applies sizedFields to the connection lists, using the schema default of the slicing argument', () => {
    expectCost('{ connection { edges { node { title } } pageInfo { hasNextPage } } }').toEqual({
      typeCost: 1 + 1 + 20 * 2 + 1,
      fieldCost: 1 + 1 + 20 + 1,
    });
    expectCost('{ connection(first: 2) { nodes { title } edges { cursor } } }').toEqual({
      typeCost: 1 + 1 + 2 + 2,
      fieldCost: 1 + 1 + 1,
    });
  });
  it('gives an un-annotated list an Infinity size when asked, without NaN', () => {
    const { expectCost: unbounded } = costSchema(
      'type Query { tags: [String], items(first: Int): [Item] @listSize(slicingArguments: ["first"]) } type Item { tags: [String], subs: [Item] }',
      {
        defaultListSize: Infinity,
      },
    );
    unbounded('{ tags }').toEqual({ typeCost: 1, fieldCost: 0 });
    unbounded('{ items(first: 0) { subs { tags } } }').toEqual({ typeCost: 1, fieldCost: 1 });
    // subs is unbounded: Infinity objects, but its children cost no field work (Infinity × 0 = 0).
    unbounded('{ items(first: 2) { subs { tags } } }').toEqual({ typeCost: Infinity, fieldCost: 1 + 2 * 1 });
    unbounded('{ items(first: 2) { subs { subs { tags } } } }').toEqual({ typeCost: Infinity, fieldCost: Infinity });
  });
  it('reports a total beyond 2^53 as Infinity', () => {
    const { estimate: big } = costSchema(
      'type Query { l(first: Int): [L] @listSize(slicingArguments: ["first"]) } type L { l(first: Int): [L] @listSize(slicingArguments: ["first"]), x: Int }',
      { maxListSize: Infinity },
    );
    const max = 2 ** 31 - 1;
    expect(big(`{ l(first: ${max}) { l(first: ${max}) { l(first: ${max}) { x } } } }`)).toEqual({
      typeCost: Infinity,
      fieldCost: Infinity,
    });
  });
});

describe('abstract types', () => {
  it('charges a union the costliest possible type', () => {
    expectCost('{ media { __typename } }').toEqual({ typeCost: 1 + 2 * 9, fieldCost: 1 });
    expectCost('{ media { ... on Video { length } ... on Audio { codec } } }').toEqual({
      typeCost: 1 + 2 * 9,
      fieldCost: 1 + 2 * 30,
    });
  });
  it('prices interface fields with the concrete type, inheriting the interface weight', () => {
    expectCost('{ item { id } }').toEqual({ typeCost: 2, fieldCost: 1 + 4 });
    expectCost('{ item { ... on Ink { id } } }').toEqual({ typeCost: 2, fieldCost: 1 + 1 });
  });
});

describe('field collection', () => {
  it('pays a field selected twice once, and an aliased copy again', () => {
    expectCost('{ costly costly book { title } book { author { name } } }').toEqual({ typeCost: 3, fieldCost: 12 });
    expectCost('{ a: costly b: costly }').toEqual({ typeCost: 1, fieldCost: 20 });
  });
  it('merges fields from fragments and inline fragments', () => {
    expectCost('{ book { ...F ... on Book { author { name } } } } fragment F on Book { author { name } }').toEqual({
      typeCost: 3,
      fieldCost: 2,
    });
  });
  it('honours @skip and @include with literals and variables', () => {
    expectCost('{ costly @skip(if: true) book @include(if: false) { title } }').toEqual({ typeCost: 1, fieldCost: 0 });
    expectCost('query Q($on: Boolean!) { costly @include(if: $on) }', { on: true }).toEqual({
      typeCost: 1,
      fieldCost: 10,
    });
    expectCost('query Q($on: Boolean!) { ... @include(if: $on) { costly } }', { on: false }).toEqual({
      typeCost: 1,
      fieldCost: 0,
    });
  });
  it('lets a negative type weight offset its own field only', () => {
    const { expectCost: signed } = costSchema(`
      type Query { a: Cheap, b: Cheap }
      type Cheap @cost(weight: "-5") { x: Int }
    `);
    signed('{ a { x } b { x } }').toEqual({ typeCost: 1, fieldCost: 2 });
  });
});

describe('introspection', () => {
  it('prices __schema and __type like any selection by default (only __typename is free)', () => {
    // Each type and each field the schema has, priced as a response holding them would be.
    const types = Object.values(library.schema.getTypeMap());
    const fields = types
      .filter((type) => isObjectType(type) || isInterfaceType(type))
      .reduce((sum, type) => sum + Object.keys((type as GraphQLObjectType).getFields()).length, 0);
    expectCost('{ __schema { types { fields { type { name } } } } }').toEqual({
      typeCost: 1 + 1 + types.length + 2 * fields,
      fieldCost: 1 + 1 + types.length + fields,
    });
    expectCost('{ __type(name: "Book") { name } __typename }').toEqual({ typeCost: 2, fieldCost: 1 });
  });
  it('makes __schema and __type and everything below them free with introspection: free', () => {
    const analyzer = createCostAnalyzer(library.schema, { introspection: 'free' });
    const { typeCost, fieldCost } = analyzer.estimate({
      document: parse('{ __schema { types { name fields { name } } } __type(name: "Book") { name } }'),
    });
    expect({ typeCost, fieldCost }).toEqual({ typeCost: 1, fieldCost: 0 });
  });
});

describe('breakdown', () => {
  it('lists every field with its own cost and the product of enclosing list sizes', () => {
    const estimate = library.analyzer.estimate({
      document: parse('{ books(first: 3) { title reviews(first: 2) { stars } } costly }'),
      breakdown: true,
    });
    expect(estimate.fields).toEqual([
      { path: 'books', fieldCost: 1, typeCost: 3, multiplier: 1 },
      { path: 'books.title', fieldCost: 0, typeCost: 0, multiplier: 3 },
      { path: 'books.reviews', fieldCost: 1, typeCost: 2, multiplier: 3 },
      { path: 'books.reviews.stars', fieldCost: 2, typeCost: 0, multiplier: 6 },
      { path: 'costly', fieldCost: 10, typeCost: 0, multiplier: 1 },
    ]);
    expect({ typeCost: estimate.typeCost, fieldCost: estimate.fieldCost }).toEqual({
      typeCost: 1 + 3 + 6,
      fieldCost: 1 + 3 + 12 + 10,
    });
  });
  it('lists the fields of the costliest possible type under an abstract type', () => {
    const estimate = library.analyzer.estimate({
      document: parse('{ media { ... on Video { length } ... on Audio { codec } } }'),
      breakdown: true,
    });
    expect(estimate.fields?.map((entry) => entry.path)).toEqual(['media', 'media.codec']);
  });
});

describe('requests', () => {
  it('picks the named operation of a document', () => {
    const query = 'query A { costly } query B { book { title } }';
    expect(estimate(query, {}, 'B')).toEqual({ typeCost: 2, fieldCost: 1 });
  });
  it('rejects an unknown or missing operation name with OPERATION_RESOLUTION_FAILURE', () => {
    const document = parse('query A { costly } query B { costly }');
    expect(() => library.analyzer.estimate({ document })).toThrow(CostAnalysisError);
    expect(() => library.analyzer.estimate({ document: parse('{ costly }'), operationName: 'Nope' })).toThrow(
      expect.objectContaining({ extensions: { code: 'OPERATION_RESOLUTION_FAILURE' } }),
    );
  });
  it('rejects variables that do not coerce with BAD_USER_INPUT, naming the variable', () => {
    const document = parse('query Q($n: Int!) { books(first: $n) { title } }');
    for (const variables of [{ n: 'ten' }, {}, { n: 2 ** 40 }]) {
      expect(() => library.analyzer.estimate({ document, variables })).toThrow(
        expect.objectContaining({ message: expect.stringContaining('$n'), extensions: { code: 'BAD_USER_INPUT' } }),
      );
    }
    expect(() =>
      library.analyzer.estimate({ document, variables: ['x'] as unknown as Record<string, unknown> }),
    ).toThrow(expect.objectContaining({ extensions: { code: 'BAD_USER_INPUT' } }));
  });
});

describe('charged cost and options', () => {
  it('charges typeCost + fieldCost by default', () => {
    expect(defaultChargedCost({ typeCost: 4, fieldCost: 7 })).toBe(11);
  });
  it('estimateCost caches the cost table per schema and takes per-call options', () => {
    const { schema } = library;
    const document = parse('{ books { title } }');
    expect(estimateCost({ schema, document })).toEqual({ typeCost: 11, fieldCost: 1 });
    expect(estimateCost({ schema, document, defaultListSize: 2 })).toEqual({ typeCost: 3, fieldCost: 1 });
  });
  it('rejects invalid options naming them', () => {
    const { schema } = library;
    expect(() => createCostAnalyzer(schema, { defaultListSize: -1 })).toThrow(/defaultListSize/);
    expect(() => createCostAnalyzer(schema, { defaultListSize: NaN })).toThrow(RangeError);
    expect(() => createCostAnalyzer(schema, { maxNodes: 0 })).toThrow(/maxNodes/);
    expect(() => createCostAnalyzer(schema, { maxNodes: 1.5 })).toThrow(RangeError);
    expect(() => createCostAnalyzer(schema, { introspection: 'yes' as never })).toThrow(RangeError);
    expect(() => createCostAnalyzer(schema, { estimators: [] })).toThrow(/estimators/);
    expect(() => createCostAnalyzer({} as never)).toThrow(/GraphQLSchema/);
  });
});

describe('README worked examples', () => {
  it('example 1: the IBM spec users example costs 6 + 11', () => {
    const { expectCost: users } = costSchema(`
      type User { name: String, age: Int @cost(weight: "2.0") }
      type Query { users(max: Int): [User] @listSize(slicingArguments: ["max"]) }
    `);
    users('query Example($max: Int!) { users(max: $max) { name age } }', { max: 5 }).toEqual({
      typeCost: 6,
      fieldCost: 11,
    });
  });

  it('example 2: a connection, a nested list and a union cost 30 + 10', () => {
    const { expectCost: shop, actual } = costSchema(`
      type Query {
        products(first: Int = 10, after: String): ProductConnection!
          @listSize(slicingArguments: ["first"], sizedFields: ["edges"])
        search(text: String!, first: Int = 5): [SearchResult!]! @listSize(slicingArguments: ["first"])
      }
      type ProductConnection { edges: [ProductEdge!]!, pageInfo: PageInfo! }
      type ProductEdge { node: Product! }
      type PageInfo { hasNextPage: Boolean! }
      type Product { title: String, reviews(first: Int): [Review!]! @listSize(slicingArguments: ["first"]) }
      type Review { stars: Int }
      type Vendor @cost(weight: "3") { name: String }
      union SearchResult = Product | Vendor
    `);
    const query = `query Page($n: Int!) {
      products(first: $n) { edges { node { title reviews(first: 2) { stars } } } pageInfo { hasNextPage } }
      search(text: "lamp") { ... on Product { title } ... on Vendor { name } }
    }`;
    shop(query, { n: 3 }).toEqual({ typeCost: 30, fieldCost: 10 });
    const data = {
      products: {
        edges: [{ node: { title: 'Lamp', reviews: [{ stars: 5 }] } }, { node: { title: 'Desk', reviews: [] } }],
        pageInfo: { hasNextPage: false },
      },
      search: [{ title: 'Lamp' }, { name: 'Lumen & Co' }],
    };
    expect(actual(query, data, { n: 3 })).toEqual({
      typeCost: 1 + (1 + 2 * 2 + 1 + 1) + (1 + 3),
      fieldCost: 1 + (1 + 2 * 2) + 1 + 1,
    });
  });
});
