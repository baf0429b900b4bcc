import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { buildSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import {
  clientAddressKey,
  graphqlWsBudget,
  costDirectivesTypeDefs,
  MemoryBucketStore,
  type BucketPolicy,
  type BucketStore,
} from '../../src/index.js';

/**
 * Operations over graphql-ws never pass through Apollo Server's request pipeline, so the plugin
 * never sees them. This server charges them with `graphqlWsBudget`, graphql-ws's `execute` and
 * `subscribe` options: a query or mutation as over HTTP, a subscription when it starts, and each
 * event before it is resolved. The first event
 * the budget cannot pay ends the subscription: the client receives the `RATE_LIMITED` error, then
 * completion, and the source produces nothing more.
 */
export const typeDefs = `${costDirectivesTypeDefs}
type Query { hello: String }
type Tick { n: Int! }
type Subscription {
  "Counts from 1 to count, one event every intervalMs."
  ticks(count: Int!, intervalMs: Int = 10): Tick! @cost(weight: "5")
}
`;

export const schema = buildSchema(typeDefs);

export interface SubscriptionServerOptions {
  store: BucketStore;
  policy: BucketPolicy;
  /** @default 0 (any free port) */
  port?: number;
}

export interface SubscriptionServer {
  url: string;
  /** Events the `ticks` source has produced so far. */
  readonly produced: number;
  stop(): Promise<void>;
}

/** An anonymous caller's key: their network (an IPv6 address by its /64). */
const clientAddress = clientAddressKey();

/** The caller: the `apiKey` connection parameter when present, else the socket's network. */
function callerOf(
  connectionParams: Readonly<Record<string, unknown>> | undefined,
  address: string | undefined,
): string {
  const apiKey = connectionParams?.apiKey;
  return typeof apiKey === 'string' ? `key:${apiKey}` : `ip:${clientAddress(address)}`;
}

export async function startSubscriptionServer(options: SubscriptionServerOptions): Promise<SubscriptionServer> {
  const { store, policy } = options;
  const httpServer: Server = createServer((_request, response) => response.writeHead(404).end());
  const wsServer = new WebSocketServer({ server: httpServer, path: '/graphql' });
  let produced = 0;
  const roots = {
    subscription: {
      async *ticks({ count, intervalMs }: { count: number; intervalMs: number }) {
        for (let n = 1; n <= count; n++) {
          await new Promise((resolve) => setTimeout(resolve, intervalMs));
          produced += 1;
          yield { ticks: { n } };
        }
      },
    },
  };

  const cleanup = useServer(
    {
      schema,
      roots,
      // Who pays: decided when the socket connects, from what the server can verify.
      context: (ctx) => ({ key: callerOf(ctx.connectionParams, ctx.extra.request.socket.remoteAddress) }),
      // Queries and mutations sent on the socket go to `execute`, subscriptions to `subscribe`: both charged.
      ...graphqlWsBudget({
        store,
        policy,
        identify: ({ contextValue }) => (contextValue as { key: string }).key,
      }),
    },
    wsServer,
  );

  await new Promise<void>((resolve) => httpServer.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/graphql`,
    get produced() {
      return produced;
    },
    async stop() {
      await cleanup.dispose();
      await new Promise<void>((resolve) => wsServer.close(() => resolve()));
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

async function main(): Promise<void> {
  const policy = { capacity: 60, refillPerSecond: 2 };
  const server = await startSubscriptionServer({
    store: new MemoryBucketStore(),
    policy,
    port: Number(process.env.PORT ?? 4001),
  });
  console.log(`Subscriptions at ${server.url}: 60 tokens per caller, refilling 2 per second.`);
  console.log('Subscribe costs 7 (Subscription 1 + Tick 1 + ticks 5); so does each event.');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
