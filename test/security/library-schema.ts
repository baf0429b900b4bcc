import { GraphQLError } from 'graphql';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';

/**
 * The schema the refund attacks run against: `report` is the expensive resolver an attacker wants
 * for free (weight 50, its runs counted), `book` returns a non-null type and fails for an unknown
 * id, so selecting it nulls its parent (or the whole `data`), and `orderReport` is a mutation with
 * a side effect (counted), as is `orderReports`, which
 * returns `returned` of the `count` reports it is priced for.
 */
export const libraryTypeDefs = `${costDirectivesTypeDefs}
type Report { id: ID! }
type Book { id: ID! title: String }
type Shelf {
  id: ID!
  report: Report @cost(weight: "50")
  book(id: ID!): Book!
}

type Query {
  report: Report @cost(weight: "50")
  book(id: ID!): Book!
  shelf: Shelf
}

type Mutation {
  orderReport: Report @cost(weight: "50")
  orderReports(count: Int!, returned: Int!): [Report!]! @cost(weight: "50") @listSize(slicingArguments: ["count"])
  book(id: ID!): Book!
}
`;

export interface LibraryCounters {
  /** Times an expensive resolver (`report`, `Shelf.report`, `orderReport`) ran. */
  expensiveRuns: number;
}

export function libraryResolvers(counters: LibraryCounters): Record<string, Record<string, unknown>> {
  const report = () => {
    counters.expensiveRuns += 1;
    return { id: `r${counters.expensiveRuns}` };
  };
  const book = (_: unknown, args: { id: string }) => {
    if (args.id === 'known') return { id: 'known', title: 'A known book' };
    throw new GraphQLError(`No book ${args.id}.`, { extensions: { code: 'NOT_FOUND' } });
  };
  return {
    Query: { report, book, shelf: () => ({ id: 's1' }) },
    Shelf: { report, book },
    Mutation: {
      orderReport: report,
      orderReports: (_: unknown, args: { returned: number }) => Array.from({ length: args.returned }, () => report()),
      book,
    },
  };
}
