// TypeGraphQL's `@Directive` and `@Extensions` (the decorated classes are in books.ts, compiled
// with legacy decorators and their metadata, as TypeGraphQL requires).
import { describe, it } from 'vitest';
import { expectBooksPricedBySlicing } from '../../support/code-first-books.js';
import { typeGraphQLBooksSchema } from './books.js';

describe('TypeGraphQL with @Directive and @Extensions', () => {
  it('prices its list by its slicing argument, with its type, field and argument weights', () => {
    expectBooksPricedBySlicing(typeGraphQLBooksSchema());
  });
});
