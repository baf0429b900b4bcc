import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloServer, type ApolloServerOptions } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { useSchemaByContext } from '@envelop/core';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import type { ExecutionArgs } from 'graphql';
import { createClient } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { createSchema, createYoga } from 'graphql-yoga';
import WebSocket, { WebSocketServer } from 'ws';
import { MemoryBucketStore } from '../../../src/bucket/memory-store.js';
import type { BucketPolicy, BucketStore } from '../../../src/bucket/types.js';
import type { QueryBudgetOptions } from '../../../src/apollo/query-budget-plugin.js';
import { queryBudgetPlugin } from '../../../src/apollo/query-budget-plugin.js';
import { useQueryBudget, type UseQueryBudgetOptions } from '../../../src/envelop/use-query-budget.js';
import { graphqlWsBudget } from '../../../src/graphql-ws/graphql-ws-budget.js';
import { listen } from '../../support/listen.js';
import { serverKind } from '../../plugin/budget-server.js';
import type { GeneratedRequest } from './arbitraries.js';
import { CALM, harnessResolvers, harnessTypeDefs, type Behaviour, type HarnessContext } from './library.js';
import { mergedMultipart, type ResponsePart } from './multipart.js';
import { Work, type HarnessVariant } from './work.js';

type ApolloServerOptionsResolvers = Extract<
  ApolloServerOptions<HarnessContext & { caller: string }>,
  { typeDefs: unknown }
>['resolvers'];

/** A budget that never refuses by itself and never refills: tokens taken are capacity − remaining. */
export const HARNESS_POLICY: BucketPolicy = { capacity: 1_000_000, refillPerSecond: 0 };

/** What one request got, and what its resolvers did. */
export interface HarnessReply {
  status: number;
  body: ResponsePart;
  work: Work;
  /** Tokens the caller's bucket lost (after every late resolver and any late charge). */
  taken: number;
  /**
   * Whether the result came incrementally (`@defer`, `@stream`: a multipart response); `body` is
   * then its first part, with the data all parts make together and the errors of every part
   * (multipart.ts).
   */
  incremental: boolean;
}

export interface HarnessServer {
  send(request: GeneratedRequest, caller: string): Promise<HarnessReply>;
  stop(): Promise<void>;
}

export type HarnessPluginOptions = Omit<QueryBudgetOptions<HarnessContext & { caller: string }>, 'identify'>;

type Caller = HarnessContext & { caller: string };

/**
 * A real server over HTTP with the budget on the harness schema: Apollo Server 5 and its plugin,
 * or GraphQL Yoga 5 and the Envelop plugin (`BUDGET_SERVER=yoga`; a schema per request, of two). Each request names its caller
 * (`x-test-user`) and its resolver behaviour (`x-behaviour`); the context carries a fresh `Work`
 * record, handed back with the reply.
 */
export async function startHarnessServer(
  variant: HarnessVariant,
  options: HarnessPluginOptions = {},
): Promise<HarnessServer> {
  const store: BucketStore = options.store ?? new MemoryBucketStore();
  const works = new Map<string, Work>();
  const contextOf = (header: (name: string) => string | undefined): Caller => {
    const work = new Work();
    works.set(String(header('x-case')), work);
    const behaviour = JSON.parse(header('x-behaviour') ?? 'null') as Behaviour | null;
    return { work, behaviour: behaviour ?? CALM, caller: String(header('x-test-user')) };
  };
  const budget = {
    // As an API-key lookup does, the decision waits a little: the two requests of a case interleave.
    identify: async ({ contextValue }: { contextValue: Caller }) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return contextValue.caller;
    },
    policy: HARNESS_POLICY,
    // As in production: outside it, a query of introspection alone (`{ __typename }`) is free by
    // choice (introspection: 'free-when-alone'), the one exemption from the invariant; test/plugin/introspection.test.ts.
    introspection: 'priced' as const,
    ...options,
    store,
  };
  const { url, stop } =
    serverKind() === 'yoga'
      ? await startYoga(variant, budget, contextOf)
      : await startApollo(variant, budget, contextOf);
  let sent = 0;
  return {
    async send(request, caller) {
      sent += 1;
      const id = String(sent);
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'multipart/mixed, application/graphql-response+json, application/json',
          'x-case': id,
          'x-test-user': caller,
          'x-behaviour': JSON.stringify(request.behaviour),
        },
        // JSON.stringify keeps own `__proto__` keys, as the client sent them.
        body: JSON.stringify({ query: request.operation.text, variables: request.variables }),
      });
      const incremental = response.headers.get('content-type')?.startsWith('multipart/mixed') === true;
      const text = await response.text();
      const body = incremental ? mergedMultipart(text) : (JSON.parse(text) as ResponsePart);
      const work = works.get(id) ?? new Work();
      works.delete(id);
      await work.settled();
      // Late charges (work that finished after the response) are settled on later turns.
      for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
      const bucket = await store.peek(caller, HARNESS_POLICY);
      return { status: response.status, body, work, taken: HARNESS_POLICY.capacity - bucket.remaining, incremental };
    },
    stop,
  };
}

type Started = { url: string; stop: () => Promise<void> };

async function startApollo(
  variant: HarnessVariant,
  budget: QueryBudgetOptions<Caller>,
  contextOf: (header: (name: string) => string | undefined) => Caller,
): Promise<Started> {
  const server = new ApolloServer<Caller>({
    typeDefs: harnessTypeDefs(variant),
    resolvers: harnessResolvers() as ApolloServerOptionsResolvers,
    includeStacktraceInErrorResponses: false,
    logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    plugins: [queryBudgetPlugin(budget)],
  });
  const { url } = await startStandaloneServer(server, {
    listen: { port: 0, host: '127.0.0.1' },
    context: async ({ req }) =>
      contextOf((name) => {
        const value = req.headers[name];
        return typeof value === 'string' ? value : undefined;
      }),
  });
  return { url, stop: () => server.stop() };
}

async function startYoga(
  variant: HarnessVariant,
  budget: QueryBudgetOptions<Caller>,
  contextOf: (header: (name: string) => string | undefined) => Caller,
): Promise<Started> {
  const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
  // Two schema objects of one SDL, as a server with a schema per tenant has: requests alternate
  // between them (by case number), so that operations of both run at once.
  const schemas = [0, 1].map(() =>
    createSchema({ typeDefs: harnessTypeDefs(variant), resolvers: harnessResolvers() as never }),
  );
  const yoga = createYoga<Record<string, unknown>, Caller>({
    schema: schemas[0] as never,
    maskedErrors: false,
    logging: silent,
    context: ({ request }) => contextOf((name) => request.headers.get(name) ?? undefined),
    plugins: [
      useSchemaByContext(
        (context) => schemas[Number((context as { request: Request }).request.headers.get('x-case')) % 2],
      ),
      useDeferStream(),
      useQueryBudget<Caller>({ ...(budget as unknown as UseQueryBudgetOptions<Caller>), logger: silent }),
    ],
  });
  return listen(yoga);
}

/** What two operations sent at once on one graphql-ws connection got, and what their resolvers did together. */
export interface HarnessSocketReply {
  /** What each request got, in the order sent. */
  results: ResponsePart[];
  /**
   * The name each request's operation was sent under, in the order sent (`Pair0`, `Pair1`): the
   * harness renames them so that `work.shown` can tell one's work from the other's.
   */
  operations: string[];
  /** Both operations' work: they share the connection's one context value. */
  work: Work;
  /** Tokens the caller's bucket lost (after every late resolver and any late charge). */
  taken: number;
}

export interface HarnessSocketServer {
  /** Sends both requests at once on one new connection, as `caller`, with the first's resolver behaviour. */
  sendTogether(requests: readonly GeneratedRequest[], caller: string): Promise<HarnessSocketReply>;
  stop(): Promise<void>;
}

/**
 * graphql-ws with `graphqlWsBudget`, whose context function keeps one context value per
 * connection (`ctx.extra`), as a server that memoises its context does: every operation on a
 * connection shares it, and its `Work`.
 */
export async function startHarnessSocketServer(variant: HarnessVariant): Promise<HarnessSocketServer> {
  const store = new MemoryBucketStore();
  const schema = createSchema({ typeDefs: harnessTypeDefs(variant), resolvers: harnessResolvers() as never });
  const http = createServer();
  const sockets = new WebSocketServer({ server: http });
  const contexts = new Map<string, Caller>();
  const disposable = useServer(
    {
      schema,
      context: (ctx) => {
        const extra = ctx.extra as { context?: Caller };
        if (extra.context === undefined) {
          const { caller, behaviour } = ctx.connectionParams as { caller: string; behaviour: Behaviour };
          extra.context = { work: new Work(), behaviour, caller };
          contexts.set(caller, extra.context);
        }
        return extra.context;
      },
      ...graphqlWsBudget({
        store,
        policy: HARNESS_POLICY,
        identify: ({ contextValue }: ExecutionArgs) => (contextValue as Caller).caller,
        // As on the HTTP servers: a query of introspection alone (`{ __typename }`) is priced too.
        introspection: 'priced',
      }),
    },
    sockets,
  );
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    async sendTogether(requests, caller) {
      const behaviour = requests[0]?.behaviour ?? CALM;
      const client = createClient({
        url,
        webSocketImpl: WebSocket,
        retryAttempts: 0,
        connectionParams: { caller, behaviour },
      });
      try {
        const operations = requests.map((_, index) => `Pair${index}`);
        const results = await Promise.all(
          requests.map(
            (request, index) =>
              new Promise<ResponsePart>((resolve) => {
                let last: ResponsePart = {};
                client.subscribe(
                  { query: named(request.operation.text, operations[index]!), variables: request.variables },
                  {
                    next: (value) => {
                      last = value as typeof last;
                    },
                    // A socket-level error (variables that fail validation): a list of GraphQL errors.
                    error: (error) => resolve({ errors: Array.isArray(error) ? error : [{ message: String(error) }] }),
                    complete: () => resolve(last),
                  },
                );
              }),
          ),
        );
        const work = contexts.get(caller)?.work ?? new Work();
        contexts.delete(caller);
        await work.settled();
        for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
        const bucket = await store.peek(caller, HARNESS_POLICY);
        return { results, operations, work, taken: HARNESS_POLICY.capacity - bucket.remaining };
      } finally {
        await client.dispose();
      }
    },
    async stop() {
      await disposable.dispose();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** The operation `text` (a generated one: `query`/`mutation`, maybe a name, then variables or `{`) under `name`. */
function named(text: string, name: string): string {
  return text.replace(/^(query|mutation)(?: +[_A-Za-z]\w*)?/, `$1 ${name}`);
}
