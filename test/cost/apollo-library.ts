/** The schema of the `'apollo'` cost model's hand-worked cases (apollo-model and apollo-actual tests). */
export const librarySdl = `
  scalar Money @cost(weight: "3")
  enum Genre @cost(weight: "2") { NOVEL POETRY }

  type Query {
    book(id: ID): Book
    books(first: Int, filter: Filter): [Book] @listSize(slicingArguments: ["first"], requireOneSlicingArgument: false)
    shelves: [Author]
    tags: [String]
    prices: [Money] @listSize(assumedSize: 4)
    costly: Int @cost(weight: "10")
    matrix: [[Book]] @listSize(assumedSize: 3)
    search(filters: [Filter], ids: [ID] @cost(weight: "2")): Int
    discounted(coupon: Boolean @cost(weight: "-20")): Book @cost(weight: "5")
    media: [Media] @listSize(assumedSize: 2)
    item: Item
    byIds(ids: [ID!]!): [Book] @listSize(slicingArguments: ["ids"])
    page(first: Int = 5): Page @listSize(slicingArguments: ["first"], sizedFields: ["items"])
    lists(first: Int = 2): ListsPage! @listSize(slicingArguments: ["first"], sizedFields: ["results { page }"])
    grid(first: Int): Grid @listSize(slicingArguments: ["first"], sizedFields: ["rows { cells }"])
  }
  type Mutation { addBook(title: String!): Book @cost(weight: "10") }
  input Filter { max: Int, heavy: String @cost(weight: "6") }
  type Book {
    title: String
    price: Money
    genre: Genre
    author: Author
    reviews(first: Int): [Review] @listSize(slicingArguments: ["first"])
  }
  type Author { name: String }
  type Review { stars: Int @cost(weight: "2") }
  type Video @cost(weight: "9") { length: Int }
  type Audio { codec: String @cost(weight: "30") }
  union Media = Video | Audio
  interface Item { id: ID @cost(weight: "4") }
  type Pen implements Item { id: ID }
  type Page { items: [Book], total: Int }
  type ListsPage { page: [Book], results: Results }
  type Results { page: [Book] }
  type Grid { rows: [Row] }
  type Row { cells: [Cell] }
  type Cell { v: Int }
`;
