import { ApolloServer, type ApolloServerOptions } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { MemoryBucketStore } from '../../../src/bucket/memory-store.js';
import type { BucketPolicy, BucketStore } from '../../../src/bucket/types.js';
import type { QueryBudgetOptions } from '../../../src/plugin/options.js';
import { queryBudgetPlugin } from '../../../src/plugin/query-budget-plugin.js';
import type { GeneratedRequest } from './arbitraries.js';
import {
  CALM,
  harnessResolvers,
  harnessTypeDefs,
  Work,
  type Behaviour,
  type HarnessContext,
  type HarnessVariant,
} from './library.js';

type ApolloServerOptionsResolvers = Extract<
  ApolloServerOptions<HarnessContext & { caller: string }>,
  { typeDefs: unknown }
>['resolvers'];

/** A budget that never refuses by itself and never refills: tokens taken are capacity − remaining. */
export const HARNESS_POLICY: BucketPolicy = { capacity: 1_000_000, refillPerSecond: 0 };

/** What one request got, and what its resolvers did. */
export interface HarnessReply {
  status: number;
  body: {
    data?: unknown;
    errors?: { message: string; extensions?: Record<string, unknown> }[];
    extensions?: { cost?: { requestedQueryCost: number; actualQueryCost: number | null } };
  };
  work: Work;
  /** Tokens the caller's bucket lost (after every late resolver and any late charge). */
  taken: number;
}

export interface HarnessServer {
  send(request: GeneratedRequest, caller: string): Promise<HarnessReply>;
  stop(): Promise<void>;
}

export type HarnessPluginOptions = Omit<QueryBudgetOptions<HarnessContext & { caller: string }>, 'identify'>;

/**
 * A real Apollo Server over HTTP with the budget plugin on the harness schema. Each request names
 * its caller (`x-test-user`) and its resolver behaviour (`x-behaviour`); the context carries a
 * fresh `Work` record, handed back with the reply.
 */
export async function startHarnessServer(
  variant: HarnessVariant,
  options: HarnessPluginOptions = {},
): Promise<HarnessServer> {
  const store: BucketStore = options.store ?? new MemoryBucketStore();
  const works = new Map<string, Work>();
  const server = new ApolloServer<HarnessContext & { caller: string }>({
    typeDefs: harnessTypeDefs(variant),
    resolvers: harnessResolvers() as ApolloServerOptionsResolvers,
    includeStacktraceInErrorResponses: false,
    logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    plugins: [
      queryBudgetPlugin({
        identify: ({ contextValue }) => contextValue.caller,
        policy: HARNESS_POLICY,
        ...options,
        store,
      }),
    ],
  });
  const { url } = await startStandaloneServer(server, {
    listen: { port: 0, host: '127.0.0.1' },
    context: async ({ req }) => {
      const work = new Work();
      const id = String(req.headers['x-case']);
      works.set(id, work);
      const behaviour = JSON.parse(String(req.headers['x-behaviour'] ?? 'null')) as Behaviour | null;
      return { work, behaviour: behaviour ?? CALM, caller: String(req.headers['x-test-user']) };
    },
  });
  let sent = 0;
  return {
    async send(request, caller) {
      sent += 1;
      const id = String(sent);
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-case': id,
          'x-test-user': caller,
          'x-behaviour': JSON.stringify(request.behaviour),
        },
        // JSON.stringify keeps own `__proto__` keys, as the client sent them.
        body: JSON.stringify({ query: request.operation.text, variables: request.variables }),
      });
      const body = (await response.json()) as HarnessReply['body'];
      const work = works.get(id) ?? new Work();
      works.delete(id);
      await work.settled();
      // Late charges (work that finished after the response) are settled on later turns.
      for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
      const bucket = await store.peek(caller, HARNESS_POLICY);
      return { status: response.status, body, work, taken: HARNESS_POLICY.capacity - bucket.remaining };
    },
    stop: () => server.stop(),
  };
}
