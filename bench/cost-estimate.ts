/**
 * Standalone cost-engine timing: a 1,000-field operation (connections, nested lists, fragments, a
 * union) priced by our `estimate` (cold: first call on a fresh schema, which reads its cost table;
 * warm: the same analyzer again) next to graphql-query-complexity's `getComplexity` with
 * `simpleEstimator` on the same document. CPU time per call, median of alternating rounds.
 *
 *   npx tsx bench/cost-estimate.ts            (NODE_ENV=production unless set)
 */
import './lib/production-env.js';
import { Kind, buildSchema, parse, validate, visit } from 'graphql';
import type { DocumentNode } from 'graphql';
import { getComplexity, simpleEstimator } from 'graphql-query-complexity';
import { costDirectivesTypeDefs, createCostAnalyzer } from '../src/index.js';

const SDL = /* GraphQL */ `
  type Query {
    shop(id: ID!): Shop
    search(text: String!, first: Int = 10): [SearchResult!]! @listSize(slicingArguments: ["first"])
  }
  type Shop {
    id: ID!
    name: String
    products(first: Int, after: String): ProductConnection!
      @listSize(slicingArguments: ["first"], sizedFields: ["edges"])
  }
  type ProductConnection { totalCount: Int @cost(weight: "2"), pageInfo: PageInfo!, edges: [ProductEdge!]! }
  type PageInfo { hasNextPage: Boolean!, endCursor: String }
  type ProductEdge { cursor: String!, node: Product! }
  type Product {
    id: ID!
    title: String
    description: String @cost(weight: "2")
    price: Money
    vendor: Vendor
    tags: [String!]
    reviews(first: Int = 3): [Review!]! @listSize(slicingArguments: ["first"])
  }
  type Money { amount: Int, currency: String }
  type Vendor { id: ID!, name: String, products(first: Int): [Product!] @listSize(slicingArguments: ["first"]) }
  type Review { id: ID!, stars: Int, body: String, author: Vendor }
  union SearchResult = Product | Vendor
`;

const FRAGMENTS = /* GraphQL */ `
  fragment ProductCore on Product { id title price { amount currency } tags }
  fragment ProductMore on Product { description vendor { id name } reviews { id stars body author { id name } } }
`;

function block(index: number): string {
  return /* GraphQL */ `
    shop${index}: shop(id: "${index}") {
      id name
      products(first: $first) {
        totalCount
        pageInfo { hasNextPage endCursor }
        edges { cursor node { ...ProductCore ...ProductMore } }
      }
    }
    found${index}: search(text: "x", first: 5) {
      ... on Product { ...ProductCore }
      ... on Vendor { id name products(first: 2) { ...ProductCore } }
    }`;
}

/** Field selections after fragment expansion. */
function expandedFields(document: DocumentNode): number {
  const fragments = new Map<string, number>();
  const count = (node: DocumentNode | object): number => {
    let fields = 0;
    visit(node as DocumentNode, {
      Field: () => void (fields += 1),
      FragmentSpread: (spread) => void (fields += fragments.get(spread.name.value) ?? 0),
    });
    return fields;
  };
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, count(definition));
  }
  const operation = document.definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  return operation === undefined ? 0 : count(operation);
}

function bigDocument(target: number): { document: DocumentNode; fields: number } {
  for (let blocks = 1; ; blocks += 1) {
    const source = `query Big($first: Int!) {${Array.from({ length: blocks }, (_, i) => block(i)).join('')}\n}\n${FRAGMENTS}`;
    const document = parse(source);
    const fields = expandedFields(document);
    if (fields >= target) return { document, fields };
  }
}

function cpuUs(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] as number;
}

const typeDefs = costDirectivesTypeDefs + SDL;
const schema = buildSchema(typeDefs);
const { document, fields } = bigDocument(1_000);
const errors = validate(schema, document);
if (errors.length > 0) throw errors[0];
const variables = { first: 10 };
const analyzer = createCostAnalyzer(schema);
const estimators = [simpleEstimator({ defaultComplexity: 1 })];

const CALLS = 200;
const ROUNDS = 7;
const variants = {
  'estimate, warm': () => {
    const start = cpuUs();
    for (let i = 0; i < CALLS; i += 1) analyzer.estimate({ document, variables });
    return (cpuUs() - start) / CALLS;
  },
  'estimate, cold (fresh schema: reads the cost table)': () => {
    const schemas = Array.from({ length: 20 }, () => buildSchema(typeDefs));
    const start = cpuUs();
    for (const fresh of schemas) createCostAnalyzer(fresh).estimate({ document, variables });
    return (cpuUs() - start) / schemas.length;
  },
  'graphql-query-complexity getComplexity + simpleEstimator': () => {
    const start = cpuUs();
    for (let i = 0; i < CALLS; i += 1) getComplexity({ schema, query: document, variables, estimators });
    return (cpuUs() - start) / CALLS;
  },
} as const;

type Name = keyof typeof variants;
const names = Object.keys(variants) as Name[];
const samples = new Map<Name, number[]>(names.map((name) => [name, []]));
for (const name of names) variants[name]();
for (let round = 0; round < ROUNDS; round += 1) {
  for (const name of [...names.slice(round % names.length), ...names.slice(0, round % names.length)]) {
    samples.get(name)?.push(variants[name]());
  }
}

const estimate = analyzer.estimate({ document, variables });
console.log(`NODE_ENV=${process.env.NODE_ENV}; ${fields} fields after fragment expansion;`);
console.log(`estimate: typeCost ${estimate.typeCost}, fieldCost ${estimate.fieldCost}; complexity ${getComplexity({ schema, query: document, variables, estimators })}`);
for (const name of names) {
  console.log(`${median(samples.get(name) ?? []).toFixed(0).padStart(8)} µs CPU/call  ${name}`);
}
