/**
 * The in-process section's schema and its two operations, over a small bookstore whose lists are
 * plain arrays:
 *
 * - `10 books × 3`, the request of the issue that set the goals,
 *   `{ books(first: 10) { id title year author { id name books(first: 3) { title } } } }`:
 *   10 books, each with its author and three of the author's books: 50 objects, about 110
 *   resolver calls, which the plugin prices at 72;
 * - `100 books × 10`,
 *   `{ books(first: 100) { id title year author { id name books(first: 10) { id title year } } } }`:
 *   1,200 objects, 3,701 resolver calls.
 *
 * Every list an operation asks for comes back full (100 books, each of the 8 authors has 12 or 13),
 * so the plugin's estimate equals the actual cost and nothing is refunded.
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
    "tags: filters no book; a variable no pricing reads (the big-variable operation)."
    books(first: Int!, tags: [String!]): [Book!]! @listSize(slicingArguments: ["first"])
  }
`;

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

const BOOKS: Book[] = Array.from({ length: 100 }, (_, index) => {
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

/** One operation the section sends, with the answer every server must give it. */
export interface BookstoreOperation {
  id: 'small' | 'large' | 'variable';
  /** As printed: `10 books × 3`. */
  label: string;
  query: string;
  /** The POST body, `{"query":…}`. */
  body: string;
  /** What `data` must be, as JSON, in every answer (the same for every variant). */
  dataJson: string;
}

/**
 * `books(first: books)` with each book's author and `authorBooks` of the author's books, the inner
 * books with the fields `inner` lists: the query, and its data computed from the arrays above.
 */
function operation(
  id: BookstoreOperation['id'],
  books: number,
  authorBooks: number,
  inner: readonly (keyof Book & ('id' | 'title' | 'year'))[],
): BookstoreOperation {
  const query = `{ books(first: ${books}) { id title year author { id name books(first: ${authorBooks}) { ${inner.join(' ')} } } } }`;
  const data = {
    books: BOOKS.slice(0, books).map((book) => ({
      id: book.id,
      title: book.title,
      year: book.year,
      author: {
        id: book.author.id,
        name: book.author.name,
        books: book.author.books
          .slice(0, authorBooks)
          .map((other) => Object.fromEntries(inner.map((field) => [field, other[field]]))),
      },
    })),
  };
  for (const book of data.books) {
    if (book.author.books.length !== authorBooks)
      throw new Error(`${book.author.id} has fewer than ${authorBooks} books`);
  }
  return {
    id,
    label: `${books} books × ${authorBooks}`,
    query,
    body: JSON.stringify({ query }),
    dataJson: JSON.stringify(data),
  };
}

/** The request: about 110 resolver calls. */
export const SMALL_OPERATION = operation('small', 10, 3, ['title']);

/** A large page: 3,701 resolver calls. */
export const LARGE_OPERATION = operation('large', 100, 10, ['id', 'title', 'year']);

/**
 * `query($tags: [String!]) { books(first: 10, tags: $tags) { id title } }` with a 2.5 MB `tags`
 * variable (125,000 strings) that no slicing argument reads: what a server does with such a
 * request is the server's (parsing the body, coercing the variable), and the budget should add
 * little to it (its pricing reads only the variables that price).
 */
export const VARIABLE_OPERATION: BookstoreOperation = (() => {
  const query = 'query Tagged($tags: [String!]) { books(first: 10, tags: $tags) { id title } }';
  const tags = Array.from({ length: 125_000 }, (_, index) => `tag-${String(index).padStart(13, '0')}`);
  const data = { books: BOOKS.slice(0, 10).map((book) => ({ id: book.id, title: book.title })) };
  return {
    id: 'variable',
    label: '2.5 MB variable',
    query,
    body: JSON.stringify({ query, variables: { tags } }),
    dataJson: JSON.stringify(data),
  };
})();

export const BOOKSTORE_OPERATIONS: readonly BookstoreOperation[] = [
  SMALL_OPERATION,
  LARGE_OPERATION,
  VARIABLE_OPERATION,
];
