import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { pathToFileURL } from 'node:url';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import {
  costDirectivesTypeDefs,
  queryBudgetPlugin,
  rateLimitResolvers,
  rateLimitTypeDefs,
  type BucketStore,
} from '../../src/index.js';
import { callerFromRequest, policyOf } from './callers.js';
import { Catalogue } from './data.js';
import { resolvers, type BookstoreContext } from './resolvers.js';
import { metricsFromEnv } from './metrics.js';
import { storeFromEnv } from './stores.js';

const typeDefs = readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8');

export interface BookstoreServerOptions {
  /** Where the callers' buckets live. */
  store: BucketStore;
  /** @default 4000 */
  port?: number;
  /** Interface to listen on. @default all interfaces */
  host?: string;
}

export interface BookstoreServer {
  /** e.g. `http://localhost:4000/` */
  url: string;
  stop(): Promise<void>;
}

/** Starts the bookstore API with the budget plugin on `store`. */
export async function createBookstoreServer(options: BookstoreServerOptions): Promise<BookstoreServer> {
  const catalogue = new Catalogue();
  const server = new ApolloServer<BookstoreContext>({
    // rateLimitTypeDefs adds GitHub's `rateLimit(dryRun:)` field to Query (docs/rate-limit-field.md).
    typeDefs: [costDirectivesTypeDefs, typeDefs, rateLimitTypeDefs],
    resolvers: { ...resolvers, Query: { ...resolvers.Query, ...rateLimitResolvers.Query } },
    includeStacktraceInErrorResponses: false,
    // Bound a document's size before graphql-js validates it (docs/operations.md, "Hostile documents").
    parseOptions: { maxTokens: 10_000 },
    plugins: [
      queryBudgetPlugin<BookstoreContext>({
        store: options.store,
        // Who pays: the API key's owner, or the client address for anonymous callers (callers.ts).
        identify: ({ contextValue }) => contextValue.caller.id,
        // How much they may spend: their tier's windows, and their organisation's shared budget.
        policy: ({ contextValue }) => policyOf(contextValue.caller),
        // Who may see the per-field cost breakdown (graphql-budget-debug: fields): paying callers.
        fieldBreakdown: ({ contextValue }) => contextValue.caller.tier === 'pro',
      }),
    ],
  });
  const { url } = await startStandaloneServer(server, {
    listen: { port: options.port ?? 4000, ...(options.host === undefined ? {} : { host: options.host }) },
    context: async ({ req }) => ({ catalogue, caller: callerFromRequest(req) }),
  });
  return { url, stop: () => server.stop() };
}

function portFromEnv(value: string | undefined): number {
  if (value === undefined || value === '') return 4000;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new RangeError(`PORT must be a whole number from 0 to 65535; got "${value}".`);
  }
  return port;
}

/** Whether something already listens on `port` (so `npm start` can say so plainly). */
function portIsFree(port: number): Promise<boolean> {
  if (port === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, () => probe.close(() => resolve(true)));
  });
}

async function main(): Promise<void> {
  const port = portFromEnv(process.env.PORT);
  const selected = storeFromEnv(process.env);
  console.log('graphql-budget bookstore example');
  console.log(`Bucket store: ${selected.description}`);
  if (!(await portIsFree(port))) {
    throw new Error(`Port ${port} is already in use: choose another, e.g. PORT=${port + 1} npm start`);
  }
  await selected.ready();
  // Before the plugin is built: it takes its meter from the provider registered now.
  const exporter = await metricsFromEnv(process.env);
  if (exporter) console.log(exporter.line);
  const { url, stop } = await createBookstoreServer({ store: selected.store, port });
  console.log(`Ready at ${url} (API keys and tiers: examples/bookstore/README.md)`);

  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping`);
    void stop()
      .then(() => exporter?.stop())
      .then(() => selected.close())
      .then(() => process.exit(0));
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
