import { describe, expect, it } from 'vitest';
import { costSchema } from './support.js';

// The worked example of docs/cost-model.md ("Two cost models"), priced both ways. Each number is
// worked out by hand in the table there, term by term.

const sdl = `
  type Query {
    books(first: Int, filter: Filter): [Book!]! @listSize(slicingArguments: ["first"])
    search(text: String!): [Result!]! @listSize(assumedSize: 5)
  }
  input Filter { genres: [String!] @cost(weight: "2") }
  type Book { title: String, summary: String @cost(weight: "4"), author: Author! }
  type Author { name: String }
  type Vendor @cost(weight: "3") { name: String }
  union Result = Book | Vendor
`;
const query = `query Page($n: Int!) {
  books(first: $n, filter: { genres: ["poetry", "essays"] }) { title summary author { name } }
  search(text: "lamp") { ... on Book { title } ... on Vendor { name } }
}`;
const variables = { n: 10 };
const data = {
  books: [
    { title: 'Odes', summary: '…', author: { name: 'Keats' } },
    { title: 'Essays', summary: '…', author: { name: 'Montaigne' } },
  ],
  search: [{ title: 'Lamps' }, { name: 'Lumen & Co' }],
};

describe('docs/cost-model.md: one operation priced by both cost models', () => {
  it("'ibm': 36 + 55 = 91, and 9 + 15 = 24 for the response", () => {
    const ibm = costSchema(sdl);
    expect(ibm.estimate(query, variables)).toEqual({ typeCost: 36, fieldCost: 55 });
    expect(ibm.actual(query, data, variables)).toEqual({ typeCost: 9, fieldCost: 15 });
  });

  it("'apollo': 25 + 47 = 72, and 6 + 15 = 21 for the response", () => {
    const apollo = costSchema(sdl, { costModel: 'apollo' });
    expect(apollo.estimate(query, variables)).toEqual({ typeCost: 25, fieldCost: 47 });
    expect(apollo.actual(query, data, variables)).toEqual({ typeCost: 6, fieldCost: 15 });
  });
});
