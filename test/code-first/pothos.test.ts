// Pothos with @pothos/plugin-directives, in both of the plugin's output formats: a list of
// `{ name, args }` (its default) and graphql-tools' object of name → arguments.
import SchemaBuilder from '@pothos/core';
import DirectivesPlugin from '@pothos/plugin-directives';
import type { GraphQLSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { expectBooksPricedBySlicing } from '../support/code-first-books.js';

type CostDirectives = {
  cost: { locations: 'OBJECT' | 'FIELD_DEFINITION' | 'ARGUMENT_DEFINITION'; args: { weight: string } };
  listSize: { locations: 'FIELD_DEFINITION'; args: { slicingArguments: string[] } };
};

function booksSchema(useGraphQLToolsUnorderedDirectives: boolean): GraphQLSchema {
  const builder = new SchemaBuilder<{ Directives: CostDirectives; Objects: { Book: { title: string } } }>({
    plugins: [DirectivesPlugin],
    directives: { useGraphQLToolsUnorderedDirectives },
  });
  builder.objectType('Book', {
    directives: { cost: { weight: '2' } },
    fields: (t) => ({ title: t.exposeString('title') }),
  });
  builder.queryType({
    fields: (t) => ({
      books: t.field({
        type: ['Book'],
        args: {
          first: t.arg.int({ defaultValue: 10 }),
          filter: t.arg.string({ directives: [{ name: 'cost', args: { weight: '4' } }] }),
        },
        directives: [
          { name: 'listSize', args: { slicingArguments: ['first'] } },
          { name: 'cost', args: { weight: '3' } },
        ],
        resolve: () => [],
      }),
    }),
  });
  return builder.toSchema();
}

describe('Pothos with @pothos/plugin-directives', () => {
  it('prices its list by its slicing argument, with directives kept as a list of { name, args }', () => {
    const schema = booksSchema(false);
    expect(Array.isArray(schema.getType('Book')?.extensions.directives)).toBe(true);
    expectBooksPricedBySlicing(schema);
  });

  it("prices its list by its slicing argument, with graphql-tools' unordered directives", () => {
    const schema = booksSchema(true);
    expect(schema.getType('Book')?.extensions.directives).toEqual({ cost: { weight: '2' } });
    expectBooksPricedBySlicing(schema);
  });
});
