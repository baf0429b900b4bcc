// A Nexus schema annotated through `extensions`, which Nexus copies onto the graphql-js type, field
// and argument it builds.
import { intArg, makeSchema, objectType, stringArg } from 'nexus';
import { describe, it } from 'vitest';
import { expectBooksPricedBySlicing } from '../support/code-first-books.js';

describe('Nexus with the cost directives in extensions', () => {
  it('prices its list by its slicing argument, with its type, field and argument weights', () => {
    const Book = objectType({
      name: 'Book',
      extensions: { directives: { cost: { weight: '2' } } },
      definition(t) {
        t.nonNull.string('title');
      },
    });
    const Query = objectType({
      name: 'Query',
      definition(t) {
        t.nonNull.list.nonNull.field('books', {
          type: Book,
          args: {
            first: intArg({ default: 10 }),
            filter: stringArg({ extensions: { directives: [{ name: 'cost', args: { weight: '4' } }] } }),
          },
          extensions: { directives: { listSize: { slicingArguments: ['first'] }, cost: { weight: '3' } } },
          resolve: () => [],
        });
      },
    });
    const schema = makeSchema({ types: [Query, Book], outputs: false, shouldGenerateArtifacts: false });
    expectBooksPricedBySlicing(schema);
  });
});
