/**
 * The in-process section's schema: a small bookstore whose `books` is a plain list, so that the
 * measured request is the one of the issue that set the goals,
 * `{ books(first: 10) { id title year author { id name books(first: 3) { title } } } }`:
 * 10 books, each with its author and three of the author's books: 50 objects, which the plugin
 * prices at 72 (its `requestedQueryCost`, equal to the actual cost: every list comes back full).
 */

export const BOOKSTORE_TYPE_DEFS = /* GraphQL */ `
  type Author {
    id: ID!
    name: String!
    books(first: Int!): [Book!]! @listSize(slicingArguments: ["first"])
  }

  type Book {
    id: ID!
    title: String!
    year: Int!
    author: Author!
  }

  type Query {
    books(first: Int!): [Book!]! @listSize(slicingArguments: ["first"])
  }
`;

/** The one operation every in-process request sends. */
export const BOOKSTORE_QUERY = '{ books(first: 10) { id title year author { id name books(first: 3) { title } } } }';

interface Author {
  id: string;
  name: string;
  books: Book[];
}

interface Book {
  id: string;
  title: string;
  year: number;
  author: Author;
}

const AUTHORS: Author[] = Array.from({ length: 8 }, (_, index) => ({
  id: `author-${index + 1}`,
  name: `Author ${index + 1}`,
  books: [],
}));

const BOOKS: Book[] = Array.from({ length: 40 }, (_, index) => {
  const author = AUTHORS[index % AUTHORS.length]!;
  const book = { id: `book-${index + 1}`, title: `Book ${index + 1}`, year: 1950 + index, author };
  author.books.push(book);
  return book;
});

/** Plain synchronous resolvers over the arrays above: the request's cost is the server's, not the data's. */
export const bookstoreResolvers = {
  Query: {
    books: (_: unknown, { first }: { first: number }) => BOOKS.slice(0, first),
  },
  Author: {
    books: (author: Author, { first }: { first: number }) => author.books.slice(0, first),
  },
};

/** What `data` must be, as JSON, in every answer (the same for every variant). */
export const BOOKSTORE_DATA_JSON = JSON.stringify({
  books: BOOKS.slice(0, 10).map((book) => ({
    id: book.id,
    title: book.title,
    year: book.year,
    author: {
      id: book.author.id,
      name: book.author.name,
      books: book.author.books.slice(0, 3).map((other) => ({ title: other.title })),
    },
  })),
});
