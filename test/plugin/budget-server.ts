import { randomUUID } from 'node:crypto';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { NoSchemaIntrospectionCustomRule } from 'graphql';
import { createSchema, createYoga, type Plugin } from 'graphql-yoga';
import { Redis } from 'ioredis';
import { listen } from '../support/listen.js';
import { afterAll, afterEach, beforeAll, inject } from 'vitest';
import { RedisBucketStore } from '../../src/bucket/redis-store.js';
import type { QueryBudgetOptions } from '../../src/apollo/query-budget-plugin.js';
import { queryBudgetPlugin } from '../../src/apollo/query-budget-plugin.js';
import { useQueryBudget, type UseQueryBudgetOptions } from '../../src/envelop/use-query-budget.js';
import { itemsResolvers, itemsTypeDefs } from '../support/items-schema.js';

/** Test context: the caller and their tier come from request headers (test fixture only). */
export interface TestContext {
  user: string | undefined;
  tier: string | undefined;
}

export type PluginOptions = Omit<QueryBudgetOptions<TestContext>, 'identify'> &
  Partial<Pick<QueryBudgetOptions<TestContext>, 'identify'>>;

/** One GraphQL reply as the client saw it. */
export interface Reply {
  status: number;
  headers: Headers;
  // The parsed JSON body: a GraphQL response (or an array of them for a batch).
  body: GraphQLBody & GraphQLBody[];
  /** Wall-clock time of the request (ms). */
  ms: number;
}

export interface GraphQLBody {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
  extensions?: { cost?: CostJson };
}

export interface CostJson {
  requestedQueryCost: number;
  actualQueryCost: number | null;
  throttleStatus: { maximumAvailable: number; currentlyAvailable: number; restoreRate: number } | null;
  wouldReject?: string;
  fields?: { path: string; fieldCost: number; typeCost: number; multiplier: number }[];
  budgets?: { name: string; maximumAvailable: number; currentlyAvailable: number | null; restoreRate: number }[];
}

export interface RequestOptions {
  user?: string;
  tier?: string;
  variables?: Record<string, unknown>;
  operationName?: string;
  headers?: Record<string, string>;
}

export interface CapturedLog {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
}

export interface BudgetServer {
  url: string;
  logs: CapturedLog[];
  post(query: string, options?: RequestOptions): Promise<Reply>;
  /** Posts a JSON array of operations (Apollo `allowBatchedHttpRequests`). */
  postBatch(
    operations: { query: string; variables?: Record<string, unknown> }[],
    options?: RequestOptions,
  ): Promise<Reply>;
  stop(): Promise<void>;
}

/**
 * The servers the shared suites run on: Apollo Server 5 (the plugin) and GraphQL Yoga 5 (the
 * Envelop plugin). `BUDGET_SERVER=yoga` runs a file on Yoga (vitest.config.ts's `yoga` project).
 */
export type ServerKind = 'apollo' | 'yoga';

/** The server this run's budget servers are, from `BUDGET_SERVER` (default Apollo Server). */
export function serverKind(): ServerKind {
  return process.env.BUDGET_SERVER === 'yoga' ? 'yoga' : 'apollo';
}

export interface ServerOptions {
  /** @default serverKind() */
  server?: ServerKind;
  allowBatchedHttpRequests?: boolean;
  /** Apollo's own default is true outside production. @default false */
  includeStacktraceInErrorResponses?: boolean;
  extraPlugins?: ApolloServerPlugin<TestContext>[];
  /** Envelop plugins after the budget's, on GraphQL Yoga. */
  extraEnvelopPlugins?: Plugin<TestContext>[];
  /** Apollo's own `introspection` option. @default Apollo's: on outside `NODE_ENV=production` */
  introspection?: boolean;
  /** Another schema than the items schema (attack tests bring their own). */
  schema?: { typeDefs: string; resolvers: Record<string, Record<string, unknown>> };
}

/**
 * A server on a free port with the budget (Apollo Server 5 and its plugin, or GraphQL Yoga 5 and
 * the Envelop plugin: `serverOptions.server`); identity from `x-test-user`.
 */
export async function startBudgetServer(
  plugin: PluginOptions,
  serverOptions: ServerOptions = {},
): Promise<BudgetServer> {
  const logs: CapturedLog[] = [];
  const record = (level: CapturedLog['level']) => (message: unknown) =>
    void logs.push({ level, message: String(message) });
  const { url, stop } =
    (serverOptions.server ?? serverKind()) === 'yoga'
      ? await startYoga(plugin, serverOptions, record)
      : await startApollo(plugin, serverOptions, record);

  const send = async (payload: unknown, options: RequestOptions): Promise<Reply> => {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
    if (options.user !== undefined) headers['x-test-user'] = options.user;
    if (options.tier !== undefined) headers['x-test-tier'] = options.tier;
    const started = performance.now();
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(payload) });
    const body = (await response.json()) as Reply['body'];
    return { status: response.status, headers: response.headers, body, ms: performance.now() - started };
  };

  return {
    url,
    logs,
    post: (query, options = {}) =>
      send({ query, variables: options.variables, operationName: options.operationName }, options),
    postBatch: (operations, options = {}) => send(operations, options),
    stop,
  };
}

type Recorder = (level: CapturedLog['level']) => (message: unknown) => void;

async function startApollo(
  plugin: PluginOptions,
  serverOptions: ServerOptions,
  record: Recorder,
): Promise<{ url: string; stop: () => Promise<void> }> {
  const server = new ApolloServer<TestContext>({
    typeDefs: serverOptions.schema?.typeDefs ?? itemsTypeDefs,
    resolvers: serverOptions.schema?.resolvers ?? itemsResolvers,
    allowBatchedHttpRequests: serverOptions.allowBatchedHttpRequests ?? false,
    ...(serverOptions.introspection === undefined ? {} : { introspection: serverOptions.introspection }),
    includeStacktraceInErrorResponses: serverOptions.includeStacktraceInErrorResponses ?? false,
    logger: { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') },
    plugins: [
      queryBudgetPlugin<TestContext>({ identify: ({ contextValue }) => contextValue.user ?? 'anonymous', ...plugin }),
      ...(serverOptions.extraPlugins ?? []),
    ],
  });
  const { url } = await startStandaloneServer(server, {
    listen: { port: 0, host: '127.0.0.1' },
    context: async ({ req }) => ({
      user: typeof req.headers['x-test-user'] === 'string' ? req.headers['x-test-user'] : undefined,
      tier: typeof req.headers['x-test-tier'] === 'string' ? req.headers['x-test-tier'] : undefined,
    }),
  });
  return { url, stop: () => server.stop() };
}

/**
 * GraphQL Yoga 5 on node:http, configured as the Apollo test server is: resolver errors unmasked,
 * batching and introspection as asked, the budget's log captured. The plugin's options are the
 * same object (the per-request functions read `contextValue` on both servers).
 */
async function startYoga(
  plugin: PluginOptions,
  serverOptions: ServerOptions,
  record: Recorder,
): Promise<{ url: string; stop: () => Promise<void> }> {
  if (serverOptions.extraPlugins !== undefined) throw new Error('extraPlugins are Apollo Server plugins');
  const logger = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
  const options = {
    identify: ({ contextValue }: { contextValue: TestContext }) => contextValue.user ?? 'anonymous',
    ...plugin,
    logger,
  } as unknown as UseQueryBudgetOptions<TestContext>;
  const yoga = createYoga<Record<string, unknown>, TestContext>({
    schema: createSchema({
      typeDefs: serverOptions.schema?.typeDefs ?? itemsTypeDefs,
      resolvers: (serverOptions.schema?.resolvers ?? itemsResolvers) as never,
    }),
    batching: serverOptions.allowBatchedHttpRequests ?? false,
    maskedErrors: false,
    logging: logger,
    context: ({ request }) => ({
      user: request.headers.get('x-test-user') ?? undefined,
      tier: request.headers.get('x-test-tier') ?? undefined,
    }),
    plugins: [
      useQueryBudget<TestContext>(options),
      ...(serverOptions.extraEnvelopPlugins ?? []),
      ...(serverOptions.introspection === false
        ? [
            {
              onValidate: ({ addValidationRule }: { addValidationRule: (rule: unknown) => void }) =>
                addValidationRule(NoSchemaIntrospectionCustomRule),
            },
          ]
        : []),
    ],
  });
  return listen(yoga);
}

/** A Redis client for tests: fails fast instead of queueing while Redis is down. */
export function testRedis(port: number): Redis {
  const client = new Redis({
    port,
    host: '127.0.0.1',
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    connectTimeout: 1000,
    retryStrategy: (attempt) => Math.min(attempt * 20, 100),
  });
  client.on('error', () => {});
  return client;
}

export async function whenReady(client: Redis): Promise<void> {
  if (client.status === 'ready') return;
  await new Promise<void>((resolve) => client.once('ready', () => resolve()));
}

/**
 * A client of the run's shared redis-server (test/support/global-setup.ts) for one test file: ready
 * before the file's tests, disconnected after them.
 */
export function fileRedis(): Redis {
  const client = testRedis(inject('redisPort'));
  beforeAll(() => whenReady(client));
  afterAll(() => client.disconnect());
  return client;
}

/** The budget servers a test file starts: whatever a test pushes here is stopped after that test. */
export function serversStoppedAfterEach(): BudgetServer[] {
  const servers: BudgetServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop()));
  });
  return servers;
}

/** A RedisBucketStore under a key prefix no other test uses. */
export function isolatedStore(client: Redis): RedisBucketStore {
  return new RedisBucketStore(client, { prefix: `t${randomUUID().slice(0, 8)}:` });
}

/** `{ items(first: n) { id } }` costs n + 2: the Query object, n Items, and the `items` field. */
export const itemsQuery = (first: number, returned?: number): string =>
  returned === undefined
    ? `{ items(first: ${first}) { id } }`
    : `{ items(first: ${first}, returned: ${returned}) { id } }`;

/**
 * Sends one request first, so the first timed store call of a test does not also pay for loading
 * the Lua script, the store's first clock sample and a cold JIT (together they can exceed 50 ms).
 */
export async function warmUp(server: BudgetServer): Promise<void> {
  for (let i = 0; i < 3; i++) await server.post(itemsQuery(1), { user: `warm-up-${i}` });
}

export function costOf(reply: Reply): CostJson {
  const cost = reply.body.extensions?.cost;
  if (!cost) throw new Error(`no extensions.cost in ${JSON.stringify(reply.body)}`);
  return cost;
}
