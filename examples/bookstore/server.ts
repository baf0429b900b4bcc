import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { pathToFileURL } from 'node:url';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { parse } from 'graphql';
import { createSchema, createYoga, type Plugin } from 'graphql-yoga';
import {
  clientAddressKey,
  costDirectivesTypeDefs,
  queryBudgetPlugin,
  rateLimitResolvers,
  rateLimitTypeDefs,
  useQueryBudget,
  type BucketStore,
  type BudgetOptions,
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
  /** Which server serves it: Apollo Server 5, or GraphQL Yoga 5 (the same API and budgets). @default 'apollo' */
  server?: 'apollo' | 'yoga';
  /**
   * The proxies in front of it whose `X-Forwarded-For` names anonymous callers
   * (`clientAddressKey`'s `trustedProxies`: addresses, networks or `'loopback'`).
   * @default [] (the socket's peer is the caller)
   */
  trustedProxies?: readonly string[];
}

export interface BookstoreServer {
  /** e.g. `http://localhost:4000/` */
  url: string;
  stop(): Promise<void>;
}

/**
 * The budget, the same on both servers: its functions read only `contextValue`, which both give
 * them (Apollo Server's request context and Envelop's request have it).
 */
function budgetOptions(store: BucketStore): BudgetOptions<{ readonly contextValue: BookstoreContext }> {
  return {
    store,
    // Who pays: the API key's owner, or the client address for anonymous callers (callers.ts).
    identify: ({ contextValue }) => contextValue.caller.id,
    // How much they may spend: their tier's windows, and their organisation's shared budget.
    policy: ({ contextValue }) => policyOf(contextValue.caller),
    // Who may see the per-field cost breakdown (graphql-budget-debug: fields): paying callers.
    fieldBreakdown: ({ contextValue }) => contextValue.caller.tier === 'pro',
  };
}

// rateLimitTypeDefs adds GitHub's `rateLimit(dryRun:)` field to Query (docs/rate-limit-field.md).
const schemaTypeDefs = [costDirectivesTypeDefs, typeDefs, rateLimitTypeDefs];
const schemaResolvers = { ...resolvers, Query: { ...resolvers.Query, ...rateLimitResolvers.Query } };

/** Starts the bookstore API with the budget on `store`. */
export async function createBookstoreServer(options: BookstoreServerOptions): Promise<BookstoreServer> {
  return options.server === 'yoga' ? createYogaServer(options) : createApolloServer(options);
}

async function createApolloServer(options: BookstoreServerOptions): Promise<BookstoreServer> {
  const catalogue = new Catalogue();
  const clientAddress = clientAddressKey({ trustedProxies: options.trustedProxies ?? [] });
  const server = new ApolloServer<BookstoreContext>({
    typeDefs: schemaTypeDefs,
    resolvers: schemaResolvers,
    includeStacktraceInErrorResponses: false,
    // Bound a document's size before graphql-js validates it (docs/operations.md, "Hostile documents").
    parseOptions: { maxTokens: 10_000 },
    plugins: [queryBudgetPlugin<BookstoreContext>(budgetOptions(options.store))],
  });
  const { url } = await startStandaloneServer(server, {
    listen: { port: options.port ?? 4000, ...(options.host === undefined ? {} : { host: options.host }) },
    context: async ({ req }) => ({ catalogue, caller: callerFromRequest(req, clientAddress) }),
  });
  return { url, stop: () => server.stop() };
}

/** Bounds a document's size before graphql-js validates it (docs/operations.md, "Hostile documents"). */
const boundedDocuments: Plugin = {
  onParse: ({ setParseFn }) =>
    setParseFn((source, parseOptions) => parse(source, { ...parseOptions, maxTokens: 10_000 })),
};

async function createYogaServer(options: BookstoreServerOptions): Promise<BookstoreServer> {
  const catalogue = new Catalogue();
  const clientAddress = clientAddressKey({ trustedProxies: options.trustedProxies ?? [] });
  const yoga = createYoga<{ req: IncomingMessage }, BookstoreContext>({
    schema: createSchema({ typeDefs: schemaTypeDefs, resolvers: schemaResolvers as never }),
    // Served at / as the Apollo Server is, so the same requests work on either.
    graphqlEndpoint: '/',
    maskedErrors: false,
    context: ({ req }) => ({ catalogue, caller: callerFromRequest(req, clientAddress) }),
    plugins: [boundedDocuments, useQueryBudget<BookstoreContext>(budgetOptions(options.store))],
  });
  const http = createHttpServer(yoga);
  await new Promise<void>((resolve) => http.listen(options.port ?? 4000, options.host, resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://localhost:${port}/`,
    stop: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
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

/** `TRUSTED_PROXIES=loopback,10.0.0.0/8`: the proxies in front whose `X-Forwarded-For` is read. */
function trustedProxiesFromEnv(value: string | undefined): string[] {
  if (value === undefined || value.trim() === '') return [];
  return value.split(',').map((entry) => entry.trim());
}

/** `--server apollo` (the default) or `--server yoga`: `npm start -- --server yoga`. */
function serverFromArgs(args: readonly string[]): 'apollo' | 'yoga' {
  const index = args.indexOf('--server');
  if (index === -1) return 'apollo';
  const value = args[index + 1];
  if (value !== 'apollo' && value !== 'yoga') {
    throw new RangeError(`--server must be apollo or yoga; got ${value === undefined ? 'nothing' : `"${value}"`}.`);
  }
  return value;
}

async function main(): Promise<void> {
  const port = portFromEnv(process.env.PORT);
  const server = serverFromArgs(process.argv.slice(2));
  const trustedProxies = trustedProxiesFromEnv(process.env.TRUSTED_PROXIES);
  const selected = storeFromEnv(process.env);
  console.log(`graphql-budget bookstore example on ${server === 'yoga' ? 'GraphQL Yoga 5' : 'Apollo Server 5'}`);
  console.log(`Bucket store: ${selected.description}`);
  if (!(await portIsFree(port))) {
    throw new Error(`Port ${port} is already in use: choose another, e.g. PORT=${port + 1} npm start`);
  }
  await selected.ready();
  // Before the plugin is built: it takes its meter from the provider registered now.
  const exporter = await metricsFromEnv(process.env);
  if (exporter) console.log(exporter.line);
  if (trustedProxies.length > 0)
    console.log(`Anonymous callers from X-Forwarded-For behind: ${trustedProxies.join(', ')}`);
  const { url, stop } = await createBookstoreServer({ store: selected.store, port, server, trustedProxies });
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
