// graphql-tools' schemas built from SDL without the cost directives, annotated in `extensions`:
// a field's through its resolver object (`extensions`), a type's and an argument's through
// `mapSchema`. graphql-tools' own `getDirectivesInExtensions` reads the same shapes.
import { GraphQLObjectType } from 'graphql';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { MapperKind, getDirectivesInExtensions, mapSchema } from '@graphql-tools/utils';
import type { GraphQLSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createCostAnalyzer } from '../../src/cost/analyzer.js';
import { CostSchemaError } from '../../src/cost/errors.js';
import { expectBooksPricedBySlicing } from '../support/code-first-books.js';

const typeDefs = /* GraphQL */ `
  type Query {
    books(first: Int = 10, filter: String): [Book!]!
  }
  type Book {
    title: String!
  }
`;

/** The books schema, its directives in `extensions.directives` written by `write` (name, arguments). */
function booksSchema(write: (directives: Record<string, Record<string, unknown>>) => unknown): GraphQLSchema {
  const schema = makeExecutableSchema({
    typeDefs,
    resolvers: {
      Query: {
        books: {
          resolve: () => [],
          extensions: {
            directives: write({ listSize: { slicingArguments: ['first'] }, cost: { weight: '3' } }),
          },
        },
      },
    },
  });
  return mapSchema(schema, {
    [MapperKind.OBJECT_TYPE]: (type) =>
      type.name === 'Book'
        ? new GraphQLObjectType({ ...type.toConfig(), extensions: { directives: write({ cost: { weight: 2 } }) } })
        : type,
    [MapperKind.ARGUMENT]: (argument, fieldName) =>
      fieldName === 'books' && argument.astNode?.name.value === 'filter'
        ? { ...argument, extensions: { directives: write({ cost: { weight: 4.0 } }) } }
        : argument,
  });
}

describe('@graphql-tools/schema with the cost directives in extensions', () => {
  it('reads an object of directive name → arguments', () => {
    const schema = booksSchema((directives) => directives);
    expect(getDirectivesInExtensions(schema.getQueryType()!.getFields().books!)).toContainEqual({
      name: 'listSize',
      args: { slicingArguments: ['first'] },
    });
    expectBooksPricedBySlicing(schema);
  });

  it('reads a list of { name, args }', () => {
    const schema = booksSchema((directives) => Object.entries(directives).map(([name, args]) => ({ name, args })));
    expectBooksPricedBySlicing(schema);
  });

  it('reads a repeated directive given as a list of arguments', () => {
    const schema = booksSchema((directives) =>
      Object.fromEntries(Object.entries(directives).map(([name, args]) => [name, [args]])),
    );
    expectBooksPricedBySlicing(schema);
  });

  it('refuses a weight that is not a number, naming where it is', () => {
    const schema = booksSchema((directives) => ('cost' in directives ? { cost: { weight: 'heavy' } } : directives));
    expect(() => createCostAnalyzer(schema)).toThrow(CostSchemaError);
    expect(() => createCostAnalyzer(schema)).toThrow('Book: @cost weight "heavy" is not a finite number.');
  });
});
