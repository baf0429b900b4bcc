import { randomUUID } from 'node:crypto';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, inject } from 'vitest';
import { RedisBucketStore } from '../../src/bucket/redis-store.js';
import type { QueryBudgetOptions } from '../../src/plugin/options.js';
import { queryBudgetPlugin } from '../../src/plugin/query-budget-plugin.js';
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

export interface ServerOptions {
  allowBatchedHttpRequests?: boolean;
  /** Apollo's own default is true outside production. @default false */
  includeStacktraceInErrorResponses?: boolean;
  extraPlugins?: ApolloServerPlugin<TestContext>[];
  /** Apollo's own `introspection` option. @default Apollo's: on outside `NODE_ENV=production` */
  introspection?: boolean;
  /** Another schema than the items schema (attack tests bring their own). */
  schema?: { typeDefs: string; resolvers: Record<string, Record<string, unknown>> };
}

/** An Apollo Server 5 on a free port with the budget plugin; identity from `x-test-user`. */
export async function startBudgetServer(
  plugin: PluginOptions,
  serverOptions: ServerOptions = {},
): Promise<BudgetServer> {
  const logs: CapturedLog[] = [];
  const record = (level: CapturedLog['level']) => (message: unknown) =>
    void logs.push({ level, message: String(message) });
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
    stop: () => server.stop(),
  };
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
