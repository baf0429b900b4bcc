import { composeServices } from '@apollo/composition';
import { parse } from 'graphql';

/** The Federation 2.9 link of the test subgraphs, with the cost directives. */
export const federationLink =
  '@link(url: "https://specs.apollo.dev/federation/v2.9", import: ["@key", "@cost", "@listSize", "@inaccessible", "@tag", "@shareable"])';

/** Two subgraphs of a small shop: products (with list sizes and weights) and their reviews. */
export const shopSubgraphs = [
  {
    name: 'products',
    typeDefs: `
      extend schema ${federationLink}
      type Query {
        products(first: Int = 5): [Product!]! @listSize(slicingArguments: ["first"])
        product(id: ID!): Product
        search(text: String!, secret: Boolean @inaccessible): [Result!]! @listSize(assumedSize: 4)
        internal: Int @inaccessible
        brands: [Brand!]!
      }
      type Mutation { restock(id: ID!, amount: Int!): Product @cost(weight: 10) }
      interface Priced { price(currency: Currency = EUR): Int }
      type Product implements Priced @key(fields: "id") {
        id: ID!
        name: String! @tag(name: "public")
        price(currency: Currency = EUR): Int @cost(weight: 3)
        legacyCode: String @deprecated(reason: "Use id.")
        related(first: Int = 3): [Product!]! @listSize(slicingArguments: ["first"]) @cost(weight: 2)
      }
      type Brand @shareable { name: String }
      union Result = Product | Brand
      enum Currency { EUR USD BITCOIN @inaccessible }
      input StockFilter { min: Int, hidden: Boolean @inaccessible }
      type Warehouse @inaccessible { id: ID }
    `,
  },
  {
    name: 'reviews',
    typeDefs: `
      extend schema ${federationLink}
      type Product @key(fields: "id") {
        id: ID!
        reviews(first: Int = 2): [Review!]! @listSize(slicingArguments: ["first"])
      }
      type Review @cost(weight: 2) { stars: Int!, body: String }
    `,
  },
];

/**
 * The supergraph SDL of subgraphs, composed by `@apollo/composition` (each served at `urls[name]`,
 * or at an address nothing listens on), and the composition result for its API schema.
 */
export function composeSupergraph(
  subgraphs: readonly { name: string; typeDefs: string }[] = shopSubgraphs,
  urls: Readonly<Record<string, string>> = {},
) {
  const composed = composeServices(
    subgraphs.map((subgraph) => ({
      name: subgraph.name,
      typeDefs: parse(subgraph.typeDefs),
      url: urls[subgraph.name] ?? 'http://127.0.0.1:9',
    })),
  );
  if (composed.errors !== undefined) throw composed.errors[0];
  return composed;
}
