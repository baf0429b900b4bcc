import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { GraphQLError, buildSchema, parse, validate, type DocumentNode, type ExecutionArgs } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import {
  chargeOperation,
  costDirectivesTypeDefs,
  MemoryBucketStore,
  type BucketPolicy,
  type BucketStore,
} from '../../src/index.js';

/**
 * Subscriptions over graphql-ws never pass through Apollo Server's request pipeline, so the plugin
 * never sees them. This server charges them with `chargeOperation`: once when a client subscribes
 * (`onSubscribe`: a refusal reaches the client as the subscription's error) and once per delivered
 * event (`onNext`: an event the budget cannot pay is replaced by the error).
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

const roots = {
  subscription: {
    async *ticks({ count, intervalMs }: { count: number; intervalMs: number }) {
      for (let n = 1; n <= count; n++) {
        await new Promise((resolve) => setTimeout(resolve, intervalMs));
        yield { ticks: { n } };
      }
    },
  },
};

export interface SubscriptionServerOptions {
  store: BucketStore;
  policy: BucketPolicy;
  /** @default 0 (any free port) */
  port?: number;
}

export interface SubscriptionServer {
  url: string;
  stop(): Promise<void>;
}

/** The caller: the `apiKey` connection parameter when present, else the socket's address. */
function callerOf(
  connectionParams: Readonly<Record<string, unknown>> | undefined,
  address: string | undefined,
): string {
  const apiKey = connectionParams?.apiKey;
  return typeof apiKey === 'string' ? `key:${apiKey}` : `ip:${address ?? 'unknown'}`;
}

export async function startSubscriptionServer(options: SubscriptionServerOptions): Promise<SubscriptionServer> {
  const { store, policy } = options;
  const httpServer: Server = createServer((_request, response) => response.writeHead(404).end());
  const wsServer = new WebSocketServer({ server: httpServer, path: '/graphql' });

  /** Charges one operation to the caller; a refusal is a GraphQLError to hand to the client. */
  async function charge(key: string, document: DocumentNode, args: Partial<ExecutionArgs>): Promise<void> {
    try {
      await chargeOperation({
        schema,
        document,
        variables: args.variableValues ?? null,
        operationName: args.operationName ?? null,
        key,
        policy,
        store,
      });
    } catch (error) {
      if (error instanceof GraphQLError) throw error;
      // The store failed: this server refuses rather than serve uncharged (choose what suits you).
      throw new GraphQLError('The query budget service is unavailable. Retry in 1 s.', {
        extensions: { code: 'BUDGET_UNAVAILABLE', retryAfter: 1 },
      });
    }
  }

  const cleanup = useServer<Record<string, unknown>>(
    {
      schema,
      roots,
      async onSubscribe(ctx, _id, payload): Promise<ExecutionArgs | readonly GraphQLError[]> {
        let document: DocumentNode;
        try {
          document = parse(payload.query);
        } catch (error) {
          return [error as GraphQLError];
        }
        const errors = validate(schema, document);
        if (errors.length > 0) return errors;
        const key = callerOf(ctx.connectionParams, ctx.extra.request.socket.remoteAddress);
        const args = {
          variableValues: payload.variables ?? undefined,
          operationName: payload.operationName ?? undefined,
        };
        try {
          await charge(key, document, args);
        } catch (error) {
          return [error as GraphQLError];
        }
        return { schema, document, rootValue: roots.subscription, contextValue: { key }, ...args };
      },
      async onNext(_ctx, _id, _payload, args) {
        // Each delivered event is charged too; one the budget cannot pay goes out as the error.
        const { key } = args.contextValue as { key: string };
        try {
          await charge(key, args.document, args);
        } catch (error) {
          return { errors: [(error as GraphQLError).toJSON()] };
        }
        return undefined; // paid: the event goes out as it is
      },
    },
    wsServer,
  );

  await new Promise<void>((resolve) => httpServer.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/graphql`,
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
