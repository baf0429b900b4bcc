/**
 * The bookstore's in-memory catalogue: authors, books and reviews, generated from a fixed seed so
 * every run (and every test) sees the same data. Large enough that a query asking for 50 books with
 * their reviews costs visibly more than one asking for a title.
 */

export interface Author {
  id: string;
  name: string;
  bio: string;
  bookIds: string[];
}

export interface Book {
  id: string;
  title: string;
  isbn: string;
  year: number;
  priceCents: number;
  authorId: string;
  genre: Genre;
  reviewIds: string[];
}

export interface Review {
  id: string;
  bookId: string;
  rating: number;
  body: string;
  reviewer: string;
}

export type Genre = 'FICTION' | 'SCIENCE' | 'HISTORY' | 'POETRY' | 'TRAVEL';

export const AUTHOR_COUNT = 60;
export const BOOK_COUNT = 240;

const GENRES: readonly Genre[] = ['FICTION', 'SCIENCE', 'HISTORY', 'POETRY', 'TRAVEL'];
const FIRST = ['Ada', 'Bram', 'Chiara', 'Dmitri', 'Elif', 'Farah', 'Goran', 'Hana', 'Ines', 'Jonas', 'Kwame', 'Lena'];
const LAST = ['Okafor', 'Lindqvist', 'Moreau', 'Tanaka', 'Novak', 'Alves', 'Keller', 'Haddad', 'Ruiz', 'Byrne'];
const ADJECTIVES = [
  'Silent',
  'Crimson',
  'Distant',
  'Hidden',
  'Last',
  'Northern',
  'Paper',
  'Quiet',
  'Salt',
  'Winter',
  'Glass',
  'Iron',
];
const NOUNS = [
  'Harbour',
  'Atlas',
  'Garden',
  'Orchard',
  'Lighthouse',
  'Archive',
  'River',
  'Cartographer',
  'Station',
  'Library',
  'Tide',
  'Comet',
];
const OPINIONS = [
  'A slow start, then impossible to put down.',
  'Beautifully written.',
  'Not for me.',
  'I reread it every summer.',
  'Dense but rewarding.',
  'The ending surprised me.',
];

/** A small deterministic pseudo-random generator (mulberry32), so the catalogue never changes. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Unique titles: 144 adjective-noun pairs, then a second volume of each. */
function titleFor(i: number): string {
  const pairs = ADJECTIVES.length * NOUNS.length;
  const adjective = ADJECTIVES[i % ADJECTIVES.length];
  const noun = NOUNS[Math.floor(i / ADJECTIVES.length) % NOUNS.length];
  return `The ${adjective} ${noun}${i >= pairs ? `, Volume ${Math.floor(i / pairs) + 1}` : ''}`;
}

function generate(): { authors: Author[]; books: Book[]; reviews: Review[] } {
  const random = seeded(2024);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

  const authors: Author[] = Array.from({ length: AUTHOR_COUNT }, (_, i) => {
    const name = `${FIRST[i % FIRST.length]} ${LAST[(i + Math.floor(i / FIRST.length)) % LAST.length]}`;
    return { id: `author-${i + 1}`, name, bio: `${name} writes about ${pick(NOUNS).toLowerCase()}s.`, bookIds: [] };
  });

  const books: Book[] = [];
  const reviews: Review[] = [];
  for (let i = 0; i < BOOK_COUNT; i++) {
    const author = authors[i % AUTHOR_COUNT] as Author;
    const book: Book = {
      id: `book-${i + 1}`,
      title: titleFor(i),
      isbn: `978-0-${String(100000 + i * 37).padStart(6, '0')}-${i % 10}`,
      year: 1950 + Math.floor(random() * 75),
      priceCents: 799 + Math.floor(random() * 40) * 50,
      authorId: author.id,
      genre: GENRES[i % GENRES.length] as Genre,
      reviewIds: [],
    };
    const reviewCount = Math.floor(random() * 12);
    for (let r = 0; r < reviewCount; r++) {
      const review: Review = {
        id: `review-${reviews.length + 1}`,
        bookId: book.id,
        rating: 1 + Math.floor(random() * 5),
        body: pick(OPINIONS),
        reviewer: `${pick(FIRST)} ${pick(LAST)[0]}.`,
      };
      reviews.push(review);
      book.reviewIds.push(review.id);
    }
    author.bookIds.push(book.id);
    books.push(book);
  }
  return { authors, books, reviews };
}

/** The catalogue, with lookups by id. Mutations (adding a review) change it in place. */
export class Catalogue {
  readonly authors: Author[];
  readonly books: Book[];
  readonly reviews: Review[];
  private readonly authorsById = new Map<string, Author>();
  private readonly booksById = new Map<string, Book>();
  private readonly reviewsById = new Map<string, Review>();

  constructor() {
    const { authors, books, reviews } = generate();
    this.authors = authors;
    this.books = books;
    this.reviews = reviews;
    for (const author of authors) this.authorsById.set(author.id, author);
    for (const book of books) this.booksById.set(book.id, book);
    for (const review of reviews) this.reviewsById.set(review.id, review);
  }

  author(id: string): Author | undefined {
    return this.authorsById.get(id);
  }

  book(id: string): Book | undefined {
    return this.booksById.get(id);
  }

  review(id: string): Review | undefined {
    return this.reviewsById.get(id);
  }

  addReview(bookId: string, rating: number, body: string, reviewer: string): Review {
    const book = this.booksById.get(bookId);
    if (!book) throw new RangeError(`No book with id "${bookId}".`);
    const review: Review = { id: `review-${this.reviews.length + 1}`, bookId, rating, body, reviewer };
    this.reviews.push(review);
    this.reviewsById.set(review.id, review);
    book.reviewIds.push(review.id);
    return review;
  }
}
