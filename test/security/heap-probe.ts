/**
 * Run under `node --expose-gc --import tsx`: serves `COUNT` distinct ~100 KB documents, each with a
 * variable of the wrong type, through a real Apollo Server (executeHTTPGraphQLRequest), with or
 * without the budget plugin (`argv[2]` is `plugin` or `bare`), and prints the heap growth after GC
 * in bytes as JSON on stdout.
 */
import { ApolloServer, HeaderMap } from '@apollo/server';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { queryBudgetPlugin } from '../../src/plugin/query-budget-plugin.js';
import { itemsResolvers, itemsTypeDefs } from '../support/items-schema.js';

const COUNT = Number(process.env.HEAP_PROBE_COUNT ?? 1000);
const mode = process.argv[2];
if (mode !== 'plugin' && mode !== 'bare') throw new Error('usage: heap-probe.ts plugin|bare');

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

function settledHeap(): number {
  for (let i = 0; i < 4; i++) gc?.();
  return process.memoryUsage().heapUsed;
}

/**
 * A valid ~100 KB document, distinct per index: 100 aliases of `items`, each with a 1,000-character
 * name. (Long names rather than many fields, so that graphql-js validation stays fast.)
 */
function hostileDocument(index: number): string {
  const aliases: string[] = [];
  for (let alias = 0; alias < 100; alias++) {
    const name = `a${index}_${alias}_`.padEnd(1000, 'x');
    aliases.push(`${name}: items(first: $n) { id }`);
  }
  return `query Q($n: Int) { ${aliases.join(' ')} }`;
}

const server = new ApolloServer({
  typeDefs: itemsTypeDefs,
  resolvers: itemsResolvers,
  logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  plugins: mode === 'plugin' ? [queryBudgetPlugin({ identify: () => 'attacker', store: new MemoryBucketStore() })] : [],
});
await server.start();

async function send(query: string): Promise<number> {
  const headers = new HeaderMap([['content-type', 'application/json']]);
  const response = await server.executeHTTPGraphQLRequest({
    httpGraphQLRequest: {
      method: 'POST',
      headers,
      search: '',
      body: { query, variables: { n: 'not a number' } },
    },
    context: async () => ({}),
  });
  return response.status ?? 200;
}

// Warm-up: JIT, the schema's cost table, Apollo's own first allocations.
for (let i = 0; i < 20; i++) await send(hostileDocument(COUNT + i));
const before = settledHeap();
const statuses = new Set<number>();
for (let i = 0; i < COUNT; i++) statuses.add(await send(hostileDocument(i)));
const after = settledHeap();
await server.stop();
process.stdout.write(`${JSON.stringify({ mode, growth: after - before, statuses: [...statuses] })}\n`);
