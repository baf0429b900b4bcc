import { parse, validate, type GraphQLSchema } from 'graphql';
import { expect } from 'vitest';
import { estimateCost } from '../../src/cost/analyzer.js';

/**
 * The schema every code-first test builds with its own framework, annotated in that framework's
 * way, and what the cost engine must make of it. As SDL it reads:
 *
 * ```graphql
 * type Query {
 *   books(first: Int = 10, filter: String @cost(weight: "4")): [Book!]! @listSize(slicingArguments: ["first"]) @cost(weight: "3")
 * }
 * type Book @cost(weight: "2") { title: String! }
 * ```
 */
export const BOOKS_SDL = `
type Query {
  books(first: Int = 10, filter: String @cost(weight: "4")): [Book!]! @listSize(slicingArguments: ["first"]) @cost(weight: "3")
}
type Book @cost(weight: "2") { title: String! }
`;

/** The books a client asks for, as an operation. */
export function booksQuery(first: number, filter = false): string {
  return `{ books(first: ${first}${filter ? ', filter: "x"' : ''}) { title } }`;
}

/**
 * Checks that `schema` is priced by its directives: `books(first: n)` costs the root, n books of
 * weight 2 and the field's weight 3 (4 more with `filter`), whatever framework wrote them. Without
 * the directives, every `first` would cost 12 (10 books of weight 1, and the field's 1).
 */
export function expectBooksPricedBySlicing(schema: GraphQLSchema): void {
  const price = (query: string) => {
    const document = parse(query);
    expect(validate(schema, document)).toEqual([]);
    return estimateCost({ schema, document });
  };
  expect(price(booksQuery(5))).toEqual({ typeCost: 1 + 5 * 2, fieldCost: 3 });
  expect(price(booksQuery(20))).toEqual({ typeCost: 1 + 20 * 2, fieldCost: 3 });
  expect(price(booksQuery(20, true))).toEqual({ typeCost: 1 + 20 * 2, fieldCost: 3 + 4 });
  expect(price('{ books { title } }')).toEqual({ typeCost: 1 + 10 * 2, fieldCost: 3 });
}
