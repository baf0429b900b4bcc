import { buildSchema, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createCostAnalyzer } from '../../src/cost/analyzer.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { costSchema } from './support.js';

// The schemas are built inside each test: the cost table is read when the analyzer is created, and
// that reading is what these tests are about.

/** The breakdown entry of the field at `path`: its own call cost and its return type's weight. */
function entryOf(sdl: string, query: string, path: string) {
  const { analyzer } = costSchema(sdl);
  const fields = analyzer.estimate({ document: parse(query), breakdown: true }).fields ?? [];
  return fields.find((entry) => entry.path === path);
}

describe('the weight of an interface or union', () => {
  const sdl = `
    type Query { pet: Pet, found: Found, lonely: Lonely }
    interface Pet { name: String }
    type Cat implements Pet @cost(weight: "2") { name: String }
    type Dog implements Pet @cost(weight: "5") { name: String }
    union Found = Cat | Dog
    interface Lonely { id: ID }
  `;

  it('is the largest weight of its possible types', () => {
    // Cat 2, Dog 5: the larger is 5, for the interface and the union alike.
    expect(entryOf(sdl, '{ pet { name } }', 'pet')).toEqual({ path: 'pet', fieldCost: 1, typeCost: 5, multiplier: 1 });
    expect(entryOf(sdl, '{ found { ... on Cat { name } } }', 'found')?.typeCost).toBe(5);
  });

  it('is 1, as for an object type, when no type implements the interface', () => {
    expect(entryOf(sdl, '{ lonely { id } }', 'lonely')?.typeCost).toBe(1);
  });
});

describe('what an object field inherits from the interface fields it implements', () => {
  const sdl = `
    type Query { card: Card }
    interface Named { name(style: String @cost(weight: "2")): String @cost(weight: "3") }
    interface Labeled {
      name(style: String @cost(weight: "5"), lang: String @cost(weight: "4")): String @cost(weight: "1")
    }
    interface Tagged { tags(first: Int): [Tag] }
    interface Paged { tags(first: Int): [Tag] @listSize(slicingArguments: ["first"]) }
    type Card implements Named & Labeled & Tagged & Paged {
      name(style: String, lang: String): String
      tags(first: Int): [Tag]
      code(digits: Int): Int
    }
    type Tag { id: ID }
  `;

  it('takes the largest weight of the field and of each argument', () => {
    // card 1 (composite); name max(3, 1) = 3; style max(2, 5) = 5.
    costSchema(sdl)
      .expectCost('{ card { name(style: "x") } }')
      .toEqual({ typeCost: 1 + 1, fieldCost: 1 + 3 + 5 });
    // lang is an argument of Labeled.name only: its 4, not the weight of another argument.
    costSchema(sdl)
      .expectCost('{ card { name(lang: "en") } }')
      .toEqual({ typeCost: 1 + 1, fieldCost: 1 + 3 + 4 });
  });

  it('takes the @listSize of the first interface field that has one', () => {
    // Tagged.tags has none, Paged.tags slices by first: Query 1 + Card 1 + 3 Tags; calls card, tags.
    costSchema(sdl)
      .expectCost('{ card { tags(first: 3) { id } } }')
      .toEqual({ typeCost: 1 + 1 + 3, fieldCost: 2 });
  });

  it('leaves a field no interface declares at the defaults', () => {
    // code and digits: leaf field and scalar argument, 0 each.
    costSchema(sdl).expectCost('{ card { code(digits: 4) } }').toEqual({ typeCost: 2, fieldCost: 1 });
  });
});

describe('Query._entities without a @listSize', () => {
  const sdl = `
    scalar _Any
    union _Entity = Product
    type Product @cost(weight: "2") { id: ID }
    type Query { _entities(representations: [_Any!]!): [_Entity]!, other: Other }
    type Other { _entities(representations: [_Any!]!): [_Entity]! }
  `;
  const query = '{ _entities(representations: [{}, {}, {}]) { ... on Product { id } } }';

  it('returns one entity per representation', () => {
    // Query 1 + 3 Products of weight 2; the call: _entities 1 (composite), representations 0.
    costSchema(sdl)
      .expectCost(query)
      .toEqual({ typeCost: 1 + 3 * 2, fieldCost: 1 });
  });

  it('is sized so only on the query root', () => {
    // Other._entities is an ordinary list: defaultListSize (10) Products.
    costSchema(sdl)
      .expectCost('{ other { _entities(representations: [{}, {}, {}]) { ... on Product { id } } } }')
      .toEqual({ typeCost: 1 + 1 + 10 * 2, fieldCost: 2 });
  });

  it('an own @listSize wins over the representations', () => {
    const sized = sdl.replace(
      '_entities(representations: [_Any!]!): [_Entity]!, other',
      '_entities(representations: [_Any!]!): [_Entity]! @listSize(assumedSize: 4), other',
    );
    costSchema(sized)
      .expectCost(query)
      .toEqual({ typeCost: 1 + 4 * 2, fieldCost: 1 });
  });
});

describe('built-in directives', () => {
  it('are never priced, even redeclared with a weighted argument', () => {
    const { expectCost } = costSchema(`
      directive @include(if: Boolean! @cost(weight: "5")) on FIELD | FRAGMENT_SPREAD | INLINE_FRAGMENT
      directive @tag(level: Int @cost(weight: "5")) on FIELD
      type Query { a: Int }
    `);
    expectCost('{ a @include(if: true) }').toEqual({ typeCost: 1, fieldCost: 0 });
    // The same weight on a directive of the schema's own counts.
    expectCost('{ a @tag(level: 1) }').toEqual({ typeCost: 1, fieldCost: 5 });
  });
});

describe('weights read from a supergraph that does not match the schema everywhere', () => {
  // What the gateway serves.
  const api = `
    type Query {
      item(id: ID): Item
      extra(flag: Boolean): Int
      shape: Shape
      find(filter: Filter): Int
      pet: Pet
      ratio: Float
    }
    type Item { name: String, price(currency: String): Int }
    input Filter { a: Int, b: Int }
    type Shape { x: Int }
    interface Pet { name: String }
    type Cat implements Pet { name: String }
    directive @tag(level: Int) on FIELD
    directive @mark(level: Int) on FIELD
    directive @heavy(level: Int) on FIELD
  `;
  // Where the weights are: Item.price, Query.extra(flag:), Filter.b, @mark(level:) and all of
  // @tag are missing; Shape is a scalar, Pet has a @cost of its own, and no field is a Float.
  const supergraphSdl = `${costDirectivesTypeDefs}
    type Query {
      item(id: ID @cost(weight: "4")): Item @cost(weight: "3")
      extra: Int @cost(weight: "2")
      shape: Shape
      find(filter: Filter): Int
      pet: Pet
    }
    type Item { name: String @cost(weight: "7") }
    input Filter { a: Int @cost(weight: "6") }
    scalar Shape
    interface Pet @cost(weight: "20") { name: String }
    type Cat implements Pet @cost(weight: "3") { name: String }
    directive @mark on FIELD
    directive @heavy(level: Int @cost(weight: "8")) on FIELD
  `;
  const analyzerOf = () => createCostAnalyzer(buildSchema(api), { supergraphSdl });
  const price = (query: string) => {
    const { typeCost, fieldCost } = analyzerOf().estimate({ document: parse(query) });
    return { typeCost, fieldCost };
  };

  it('accepts it: only a missing type that is not a built-in scalar is a problem', () => {
    // Float, used by Query.ratio, is a type of the schema only.
    expect(analyzerOf).not.toThrow();
  });

  it('gives a field or argument the supergraph lacks the default weight', () => {
    // item 3 + id 4 + name 7; price and currency: leaf field and scalar argument, 0.
    expect(price('{ item(id: 1) { name price(currency: "EUR") } }')).toEqual({ typeCost: 2, fieldCost: 3 + 4 + 7 });
    // extra 2; flag 0.
    expect(price('{ extra(flag: true) }')).toEqual({ typeCost: 1, fieldCost: 2 });
  });

  it('gives an input field the supergraph lacks the default weight', () => {
    // find 0 (leaf); filter 1 (an input object); a 6, b 0.
    expect(price('{ find(filter: { a: 1, b: 2 }) }')).toEqual({ typeCost: 1, fieldCost: 1 + 6 });
  });

  it('gives a type the supergraph declares as another kind the defaults', () => {
    // shape 1 (composite), x 0; Query 1 + Shape 1.
    expect(price('{ shape { x } }')).toEqual({ typeCost: 2, fieldCost: 1 });
  });

  it('gives a directive or directive argument the supergraph lacks the default weight', () => {
    expect(price('{ ratio @tag(level: 1) }')).toEqual({ typeCost: 1, fieldCost: 0 });
    expect(price('{ ratio @mark(level: 1) }')).toEqual({ typeCost: 1, fieldCost: 0 });
    expect(price('{ ratio @heavy(level: 1) }')).toEqual({ typeCost: 1, fieldCost: 8 });
  });

  it('weighs an interface as its heaviest implementation, whatever @cost the interface carries', () => {
    const fields = analyzerOf().estimate({ document: parse('{ pet { name } }'), breakdown: true }).fields;
    // Cat, its only implementation, weighs 3; the interface's own @cost (20) is not read.
    expect(fields?.find((entry) => entry.path === 'pet')?.typeCost).toBe(3);
  });
});
