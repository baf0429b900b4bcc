import { GraphQLError } from 'graphql';
import type { Author, Book, Catalogue, Review } from './data.js';
import type { Caller } from './callers.js';

/** What every resolver sees: the catalogue and who is asking. */
export interface BookstoreContext {
  catalogue: Catalogue;
  caller: Caller;
}

interface Page {
  first: number;
  after?: string | null;
  genre?: Book['genre'] | null;
}

interface Slice {
  first?: number | null;
  last?: number | null;
}

function badInput(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } });
}

/** `first` / `last` slicing shared by every list field. */
function slice<T>(items: readonly T[], { first, last }: Slice): T[] {
  if (first != null && first < 0) throw badInput(`"first" must be ≥ 0; got ${first}.`);
  if (last != null && last < 0) throw badInput(`"last" must be ≥ 0; got ${last}.`);
  if (first != null) return items.slice(0, first);
  if (last != null) return last === 0 ? [] : items.slice(-last);
  return [...items];
}

function booksOf(catalogue: Catalogue, ids: readonly string[]): Book[] {
  return ids.map((id) => catalogue.book(id)).filter((book): book is Book => book !== undefined);
}

export const resolvers = {
  Query: {
    book: (_: unknown, { id }: { id: string }, { catalogue }: BookstoreContext) => catalogue.book(id) ?? null,
    author: (_: unknown, { id }: { id: string }, { catalogue }: BookstoreContext) => catalogue.author(id) ?? null,
    node: (_: unknown, { id }: { id: string }, { catalogue }: BookstoreContext) =>
      catalogue.book(id) ?? catalogue.author(id) ?? null,
    books: (_: unknown, { first, after, genre }: Page, { catalogue }: BookstoreContext) => {
      if (first < 0 || first > 100) throw badInput(`"first" must be between 0 and 100; got ${first}.`);
      const matching = genre ? catalogue.books.filter((book) => book.genre === genre) : catalogue.books;
      const start = after ? matching.findIndex((book) => book.id === after) + 1 : 0;
      const page = matching.slice(start, start + first);
      return {
        edges: page.map((book) => ({ cursor: book.id, node: book })),
        pageInfo: { hasNextPage: start + first < matching.length, endCursor: page.at(-1)?.id ?? null },
        totalCount: matching.length,
      };
    },
    authors: (_: unknown, args: Slice, { catalogue }: BookstoreContext) => slice(catalogue.authors, args),
    search: (_: unknown, { text, first }: { text: string; first: number }, { catalogue }: BookstoreContext) => {
      const needle = text.toLowerCase();
      const hits = [
        ...catalogue.authors.map((author) => ({ result: author as Book | Author, label: author.name })),
        ...catalogue.books.map((book) => ({ result: book as Book | Author, label: book.title })),
      ].filter(({ label }) => label.toLowerCase().includes(needle));
      // Matches at the start of a word first, then alphabetical.
      const rank = (label: string): number =>
        label
          .toLowerCase()
          .split(' ')
          .some((word) => word.startsWith(needle))
          ? 0
          : 1;
      hits.sort((a, b) => rank(a.label) - rank(b.label) || a.label.localeCompare(b.label));
      return slice(
        hits.map((hit) => hit.result),
        { first },
      );
    },
    bestsellers: (_: unknown, __: unknown, { catalogue }: BookstoreContext) =>
      [...catalogue.books]
        .sort((a, b) => b.reviewIds.length - a.reviewIds.length || a.id.localeCompare(b.id))
        .slice(0, 10),
  },

  Mutation: {
    addReview: (
      _: unknown,
      { bookId, rating, body }: { bookId: string; rating: number; body: string },
      { catalogue, caller }: BookstoreContext,
    ) => {
      if (!Number.isInteger(rating) || rating < 1 || rating > 5) {
        throw badInput(`"rating" must be a whole number from 1 to 5; got ${rating}.`);
      }
      if (!catalogue.book(bookId)) throw badInput(`No book with id "${bookId}".`);
      return catalogue.addReview(bookId, rating, body, caller.name);
    },
  },

  Node: {
    __resolveType: (node: Book | Author) => ('title' in node ? 'Book' : 'Author'),
  },

  SearchResult: {
    __resolveType: (result: Book | Author) => ('title' in result ? 'Book' : 'Author'),
  },

  Author: {
    books: (author: Author, { first }: { first: number }, { catalogue }: BookstoreContext) =>
      slice(
        booksOf(catalogue, author.bookIds).sort((a, b) => b.year - a.year),
        { first },
      ),
  },

  Book: {
    author: (book: Book, _: unknown, { catalogue }: BookstoreContext) => catalogue.author(book.authorId),
    reviews: (book: Book, args: Slice, { catalogue }: BookstoreContext) =>
      slice(
        book.reviewIds.map((id) => catalogue.review(id)).filter((review): review is Review => review !== undefined),
        args,
      ),
    recommendations: (book: Book, { first }: { first: number }, { catalogue }: BookstoreContext) =>
      slice(
        catalogue.books.filter((other) => other.genre === book.genre && other.id !== book.id),
        { first },
      ),
  },

  Review: {
    book: (review: Review, _: unknown, { catalogue }: BookstoreContext) => catalogue.book(review.bookId),
  },
};
