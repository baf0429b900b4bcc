/**
 * Run under `node --expose-gc --import tsx`: serves distinct ~100 KB documents through a real Apollo
 * Server (executeHTTPGraphQLRequest), with or without the budget plugin (`argv[2]` is `plugin` or
 * `bare`), and prints the heap growth after GC in bytes as JSON on stdout. `argv[3]` is the traffic:
 * `refused` (the default: `HEAP_PROBE_COUNT` documents, 1,000, each with a variable of the wrong
 * type) or `executed` (60 documents that run, each sent 16 times with another value of a variable
 * the operation does not declare).
 */
import { ApolloServer, HeaderMap } from '@apollo/server';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { queryBudgetPlugin } from '../../src/apollo/query-budget-plugin.js';
import { itemsResolvers, itemsTypeDefs } from '../support/items-schema.js';

const mode = process.argv[2];
const traffic = process.argv[3] ?? 'refused';
if ((mode !== 'plugin' && mode !== 'bare') || (traffic !== 'refused' && traffic !== 'executed')) {
  throw new Error('usage: heap-probe.ts plugin|bare [refused|executed]');
}
const COUNT = traffic === 'executed' ? 60 : Number(process.env.HEAP_PROBE_COUNT ?? 1000);
const REPEATS = traffic === 'executed' ? 16 : 1;

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

/** The heap after collecting garbage, once what is pending on the event loop (timers, immediates) has run. */
async function settledHeap(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    gc?.();
  }
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
  plugins:
    mode === 'plugin'
      ? [
          queryBudgetPlugin({
            identify: () => 'attacker',
            store: new MemoryBucketStore(),
            policy: { capacity: 1e9, refillPerSecond: 0 },
            ...JSON.parse(process.env.PROBE_OPTS ?? '{}'),
          }),
        ]
      : [],
});
await server.start();

async function send(query: string, repeat = 0): Promise<number> {
  const headers = new HeaderMap([['content-type', 'application/json']]);
  const variables = traffic === 'executed' ? { n: 1, unused: repeat } : { n: 'not a number' };
  const response = await server.executeHTTPGraphQLRequest({
    httpGraphQLRequest: {
      method: 'POST',
      headers,
      search: '',
      body: { query, variables },
    },
    context: async () => ({}),
  });
  return response.status ?? 200;
}

// Warm-up: JIT, the schema's cost table, Apollo's own first allocations.
for (let i = 0; i < 20; i++) await send(hostileDocument(COUNT + i));
const before = await settledHeap();
const statuses = new Set<number>();
for (let i = 0; i < COUNT; i++) {
  const document = hostileDocument(i);
  for (let repeat = 0; repeat < REPEATS; repeat++) statuses.add(await send(document, repeat));
}
const after = await settledHeap();
await server.stop();
process.stdout.write(`${JSON.stringify({ mode, growth: after - before, statuses: [...statuses] })}\n`);
