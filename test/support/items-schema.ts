import { costDirectivesTypeDefs } from '../../src/cost/directives.js';

/**
 * The schema of the plugin tests and of `app-server.ts`: `items(first:)` is a list sliced by
 * `first`, so the cost of a request is set by `first`; `returned` makes the resolver return fewer
 * items than asked (to exercise refunds); `slowItems(ms:)` waits before answering; `expensive`
 * carries a `@cost` weight.
 */
export const itemsTypeDefs = `${costDirectivesTypeDefs}
type Item {
  id: ID!
}

type Query {
  items(first: Int = 10, returned: Int): [Item!]! @listSize(slicingArguments: ["first"])
  slowItems(first: Int = 1, ms: Int = 0): [Item!]! @listSize(slicingArguments: ["first"])
  expensive: Int @cost(weight: "7")
}
`;

function list(count: number): { id: string }[] {
  return Array.from({ length: Math.max(0, count) }, (_, index) => ({ id: String(index + 1) }));
}

export const itemsResolvers = {
  Query: {
    items: (_: unknown, args: { first: number; returned?: number | null }) => list(args.returned ?? args.first),
    slowItems: async (_: unknown, args: { first: number; ms: number }) => {
      await new Promise((resolve) => setTimeout(resolve, args.ms));
      return list(args.first);
    },
    expensive: () => 7,
  },
};
