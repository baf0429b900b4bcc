import { GraphQLError, type GraphQLResolveInfo } from 'graphql';
import { costDirectivesTypeDefs } from '../../../src/cost/directives.js';
import { rateLimitResolvers, rateLimitTypeDefs } from '../../../src/core/rate-limit-field.js';
import { VARIANT_WEIGHTS, type HarnessVariant, type Work } from './work.js';

/**
 * The schema the budget invariant is checked on: every pricing feature the cost engine has, each
 * resolver instrumented. Nested lists sized by slicing arguments (literal, variable, schema and
 * input-field defaults, a nested input path), a `sizedFields` connection, an interface and a union
 * whose members differ in weight (and a vendor named "Book"), weighted fields and arguments, scalar,
 * enum and nested lists, a list without `@listSize`, non-null fields that throw, nullable lists
 * (`Query.books`, `Author.books`) and objects (`Query.book`) that such an error nulls while the
 * rest of the data stays (an error that hides a list, perhaps one longer than priced), a mutation,
 * and the `rateLimit(dryRun:)` field.
 *
 * The resolvers return lists as the README's install example does (`pool.slice(0, first)`, so a
 * negative `first` returns all but the last items), then as long as the request's behaviour says
 * (shorter, longer), and throw, return null or answer late where it says.
 */
export function harnessTypeDefs(variant: HarnessVariant): string {
  return `${costDirectivesTypeDefs}
enum Genre { FICTION SCIENCE HISTORY POETRY }
interface Node { id: ID! }
type Book implements Node @cost(weight: "2") {
  id: ID!
  title: String!
  tags(first: Int!): [String!]! @listSize(slicingArguments: ["first"])
  genres(first: Int = 2): [Genre!]! @listSize(slicingArguments: ["first"])
  similar(first: Int = 2): [Book!]! @cost(weight: "5") @listSize(slicingArguments: ["first"])
  author: Author
  review(id: ID!): Review!
  score(boost: Int @cost(weight: "3")): Int @cost(weight: "4")
}
type Author implements Node @cost(weight: "${VARIANT_WEIGHTS[variant].Author}") {
  id: ID!
  name: String!
  books(page: Page = { size: 2 }): [Book!] @listSize(slicingArguments: ["page.size"])
}
input Page { size: Int = 3, offset: Int = 0 }
type Review { id: ID! stars: Int! }
type Vendor implements Node @cost(weight: "${VARIANT_WEIGHTS[variant].Vendor}") {
  id: ID!
  name: String!
  audit: String @cost(weight: "50")
}
union Result = Book | Vendor
type Edge { cursor: String! node: Book! }
type Shelf { edges: [Edge!]! total: Int! }
type Query {
  books(first: Int!): [Book!] @listSize(slicingArguments: ["first"])
  book(id: ID!): Book
  shelf(first: Int = 3): Shelf! @listSize(slicingArguments: ["first"], sizedFields: ["edges"])
  search(first: Int = 3): [Result!]! @listSize(slicingArguments: ["first"])
  node(id: ID!): Node
  grid(size: Int!): [[Int!]!]! @listSize(slicingArguments: ["size"])
  everything: [Book!]!
}
type Mutation {
  addBooks(count: Int!): [Book!]! @cost(weight: "10") @listSize(slicingArguments: ["count"])
  failBook(id: ID!): Book!
}
${rateLimitTypeDefs}`;
}

/** How the resolvers behave for one request (from the `x-behaviour` header). */
export interface Behaviour {
  /** Added to every list's length after slicing (negative: shorter than asked, positive: longer). */
  readonly delta: number;
  /** Schema coordinates (`Book.title`) whose resolver throws on every `throwEvery`-th call. */
  readonly throwAt: readonly string[];
  readonly throwEvery: number;
  /** Nullable coordinates whose resolver returns null. */
  readonly nullAt: readonly string[];
  /** Resolvers answer on a later turn of the event loop. */
  readonly late: boolean;
}

export const CALM: Behaviour = { delta: 0, throwAt: [], throwEvery: 1, nullAt: [], late: false };

/** Coordinates a behaviour may make throw or return null. */
export const THROWABLE = ['Book.title', 'Book.author', 'Author.name', 'Edge.node', 'Book.similar', 'Query.books'];
export const NULLABLE = ['Book.author', 'Query.node', 'Book.score', 'Vendor.audit'];

/** Items a list resolver can return at most (its pool), before the behaviour's delta. */
export const POOL = 6;

interface Book {
  __kind: 'Book';
  id: string;
  title: string;
}
interface Vendor {
  __kind: 'Vendor';
  id: string;
  name: string;
}

const BOOKS: Book[] = Array.from({ length: POOL }, (_, index) => ({
  __kind: 'Book',
  id: `b${index + 1}`,
  title: `Title ${index + 1}`,
}));
/** Vendors; the first is named like the other member of the union. */
const VENDORS: Vendor[] = ['Book', 'Acme', 'Vendor'].map((name, index) => ({
  __kind: 'Vendor',
  id: `v${index + 1}`,
  name,
}));

/** The request context the harness servers give resolvers: who asked, and what their resolvers did. */
export interface HarnessContext {
  work: Work;
  behaviour: Behaviour;
}

type Resolver = (
  source: unknown,
  args: Record<string, unknown>,
  context: HarnessContext,
  info: GraphQLResolveInfo,
) => unknown;

/**
 * `pool.slice(0, size)` as the README's resolvers do, then lengthened or shortened by the
 * behaviour's delta (never below 0, never beyond the pool plus the delta).
 */
function sliced<T>(pool: readonly T[], size: number, behaviour: Behaviour): T[] {
  const base = pool.slice(0, size);
  const length = Math.max(0, base.length + behaviour.delta);
  return Array.from({ length }, (_, index) => pool[index % pool.length] as T);
}

/**
 * A resolver that records its call and where it lands in the response, throws or returns null
 * where the behaviour says, answers late when it says, and records what it returned and where.
 * `objectType` is the named type for object fields (undefined: scalars, or the runtime type from
 * `__kind` under an interface or union).
 */
function instrumented(coordinate: string, objectType: string | undefined, resolve: Resolver): Resolver {
  return (source, args, context, info) => {
    const { work, behaviour } = context;
    const calls = work.called(coordinate, args, info);
    const answer = (): unknown => {
      if (behaviour.throwAt.includes(coordinate) && calls % behaviour.throwEvery === 0) {
        throw new GraphQLError(`${coordinate} failed (behaviour).`, { extensions: { code: 'HARNESS_FAILURE' } });
      }
      const value = behaviour.nullAt.includes(coordinate) ? null : resolve(source, args, context, info);
      work.returned(value, objectType, info);
      return value;
    };
    if (!behaviour.late) return answer();
    return work.track(new Promise((resolve) => setImmediate(resolve)).then(answer));
  };
}

function slice(work: Work, coordinate: string, value: unknown): number {
  const size = value as number;
  work.slices.push({ coordinate, value: size });
  return size;
}

const bookFields = {
  id: (book: Book) => book.id,
  title: (book: Book) => book.title,
  tags: (_: Book, args: Record<string, unknown>, { work, behaviour }: HarnessContext) =>
    sliced(['new', 'old', 'rare', 'signed', 'used', 'gift'], slice(work, 'Book.tags', args.first), behaviour),
  genres: (_: Book, args: Record<string, unknown>, { work, behaviour }: HarnessContext) =>
    sliced(['FICTION', 'SCIENCE', 'HISTORY', 'POETRY'], slice(work, 'Book.genres', args.first), behaviour),
  similar: (book: Book, args: Record<string, unknown>, { work, behaviour }: HarnessContext) =>
    sliced(
      BOOKS.filter((other) => other !== book),
      slice(work, 'Book.similar', args.first),
      behaviour,
    ),
  author: (book: Book) => ({ id: `a-${book.id}`, name: `Author of ${book.title}` }),
  review: (_: Book, args: Record<string, unknown>) => {
    if (args.id !== 'r1')
      throw new GraphQLError(`No review ${String(args.id)}.`, { extensions: { code: 'NOT_FOUND' } });
    return { id: 'r1', stars: 4 };
  },
  score: () => 7,
};

function bookById(id: unknown): Book | undefined {
  return BOOKS.find((book) => book.id === id);
}

/** The harness resolvers, every one instrumented. */
export function harnessResolvers(): Record<string, unknown> {
  const object = (type: string, fields: Record<string, Resolver>, types: Record<string, string | undefined>) =>
    Object.fromEntries(
      Object.entries(fields).map(([name, resolve]) => [name, instrumented(`${type}.${name}`, types[name], resolve)]),
    );
  return {
    Node: { __resolveType: (value: { __kind: string }) => value.__kind },
    Result: { __resolveType: (value: { __kind: string }) => value.__kind },
    Book: object('Book', bookFields as Record<string, Resolver>, {
      similar: 'Book',
      author: 'Author',
      review: 'Review',
    }),
    Author: object(
      'Author',
      {
        id: (author) => (author as { id: string }).id,
        name: (author) => (author as { name: string }).name,
        books: (_, args, { work, behaviour }) => {
          const page = args.page as { size?: number | null } | null;
          return sliced(BOOKS, slice(work, 'Author.books', page?.size), behaviour);
        },
      },
      { books: 'Book' },
    ),
    Review: object(
      'Review',
      { id: (review) => (review as { id: string }).id, stars: (review) => (review as { stars: number }).stars },
      {},
    ),
    Vendor: object(
      'Vendor',
      {
        id: (vendor) => (vendor as Vendor).id,
        name: (vendor) => (vendor as Vendor).name,
        audit: () => 'audited',
      },
      {},
    ),
    Edge: object(
      'Edge',
      {
        cursor: (edge) => (edge as { cursor: string }).cursor,
        node: (edge) => (edge as { node: Book }).node,
      },
      { node: 'Book' },
    ),
    Shelf: object(
      'Shelf',
      {
        edges: (shelf, _args, { behaviour }) =>
          sliced(
            BOOKS.map((node, index) => ({ cursor: `c${index}`, node })),
            (shelf as { size: number }).size,
            behaviour,
          ),
        total: () => POOL,
      },
      { edges: 'Edge' },
    ),
    Query: {
      ...object(
        'Query',
        {
          books: (_, args, { work, behaviour }) => sliced(BOOKS, slice(work, 'Query.books', args.first), behaviour),
          book: (_, args) => {
            const book = bookById(args.id);
            if (book === undefined) {
              throw new GraphQLError(`No book ${String(args.id)}.`, { extensions: { code: 'NOT_FOUND' } });
            }
            return book;
          },
          shelf: (_, args, { work }) => ({ size: slice(work, 'Query.shelf', args.first) }),
          search: (_, args, { work, behaviour }) => {
            const mixed = BOOKS.flatMap((book, index) => [VENDORS[index % VENDORS.length] as Vendor, book]);
            return sliced(mixed, slice(work, 'Query.search', args.first), behaviour);
          },
          node: (_, args) => bookById(args.id) ?? VENDORS.find((vendor) => vendor.id === args.id) ?? null,
          grid: (_, args, { work, behaviour }) => {
            const size = slice(work, 'Query.grid', args.size);
            return sliced([0, 1, 2, 3, 4, 5], size, behaviour).map(() => sliced([1, 2, 3, 4, 5, 6], size, behaviour));
          },
          everything: () => BOOKS,
        },
        { books: 'Book', book: 'Book', shelf: 'Shelf', everything: 'Book' },
      ),
      rateLimit: instrumented('Query.rateLimit', 'RateLimit', (source, args, context) => {
        context.work.dryRuns.push(args.dryRun === true);
        return rateLimitResolvers.Query.rateLimit(source, args, context);
      }),
    },
    Mutation: object(
      'Mutation',
      {
        addBooks: (_, args, { work, behaviour }) =>
          sliced(BOOKS, slice(work, 'Mutation.addBooks', args.count), behaviour),
        failBook: (_, args) => {
          throw new GraphQLError(`Cannot fail book ${String(args.id)}.`, { extensions: { code: 'NOT_FOUND' } });
        },
      },
      { addBooks: 'Book', failBook: 'Book' },
    ),
  };
}
