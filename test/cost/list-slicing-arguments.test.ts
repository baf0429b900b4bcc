import { describe, expect, it } from 'vitest';
import { CostErrorCode } from '../../src/cost/errors.js';
import { costSchema, rejection } from './support.js';

// A slicing argument may be a list: `items(ids: [ID!]!)` returns one item per id, so the list it
// returns is as long as the list given (Apollo Router's demand control reads it the same way).

const sdl = `
  type Query {
    items(ids: [ID!]!): [Item] @listSize(slicingArguments: ["ids"])
    itemsOrSome(ids: [ID!]): [Item] @listSize(slicingArguments: ["ids"], assumedSize: 7, requireOneSlicingArgument: false)
    itemsOrDefault(ids: [ID!]): [Item] @listSize(slicingArguments: ["ids"], requireOneSlicingArgument: false)
    byFilter(filter: Filter!): [Item] @listSize(slicingArguments: ["filter.ids"])
    firstOrIds(first: Int, ids: [ID!]): [Item] @listSize(slicingArguments: ["first", "ids"])
  }
  input Filter { ids: [ID!], name: String }
  type Item { id: ID }
`;

describe('list-typed slicing arguments (IBM model)', () => {
  const { expectCost, estimate } = costSchema(sdl);

  it('load, and size the list by the length of a literal list', () => {
    // typeCost: Query 1 + 3 Items; fieldCost: the items call 1 (a list of IDs weighs 0).
    expectCost('{ items(ids: ["a", "b", "c"]) { id } }').toEqual({ typeCost: 4, fieldCost: 1 });
    expectCost('{ items(ids: []) { id } }').toEqual({ typeCost: 1, fieldCost: 1 });
  });

  it('size the list by the length of a variable', () => {
    // typeCost: Query 1 + 5 Items; fieldCost 1.
    expectCost('query ($ids: [ID!]!) { items(ids: $ids) { id } }', { ids: ['a', 'b', 'c', 'd', 'e'] }).toEqual({
      typeCost: 6,
      fieldCost: 1,
    });
    // A single value for a list variable is coerced to a list of one, as the resolver receives it.
    expectCost('query ($ids: [ID!]!) { items(ids: $ids) { id } }', { ids: 'a' }).toEqual({ typeCost: 2, fieldCost: 1 });
  });

  it('read a list through an input-object path', () => {
    // typeCost: Query 1 + 2 Items; fieldCost: byFilter 1 + the Filter input object 1.
    expectCost('{ byFilter(filter: { ids: ["a", "b"] }) { id } }').toEqual({ typeCost: 3, fieldCost: 2 });
  });

  it('fall back to assumedSize, else defaultListSize, when null or missing', () => {
    // 7 Items (assumedSize) + Query 1; fieldCost 1.
    expectCost('{ itemsOrSome(ids: null) { id } }').toEqual({ typeCost: 8, fieldCost: 1 });
    expectCost('{ itemsOrSome { id } }').toEqual({ typeCost: 8, fieldCost: 1 });
    expectCost('query ($ids: [ID!]) { itemsOrSome(ids: $ids) { id } }', {}).toEqual({ typeCost: 8, fieldCost: 1 });
    // 10 Items (defaultListSize) + Query 1.
    expectCost('{ itemsOrDefault(ids: null) { id } }').toEqual({ typeCost: 11, fieldCost: 1 });
  });

  it('count toward requireOneSlicingArgument like an Int', () => {
    // first: 2 and ids of 4: the largest wins once the rule is off; with it on, two values are refused.
    const refused = rejection(() => estimate('{ firstOrIds(first: 2, ids: ["a", "b", "c", "d"]) { id } }'));
    expect(refused.code).toBe(CostErrorCode.slicingArguments);
    expect(rejection(() => estimate('{ firstOrIds(ids: null) { id } }')).code).toBe(CostErrorCode.slicingArguments);
    expectCost('{ firstOrIds(ids: ["a", "b", "c", "d"]) { id } }').toEqual({ typeCost: 5, fieldCost: 1 });
  });
});
