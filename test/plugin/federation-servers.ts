import { ApolloServer, type ApolloServerOptions, type ApolloServerPlugin, type BaseContext } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import type { DocumentNode, GraphQLSchema } from 'graphql';
import type { CostJson } from './budget-server.js';

/** A GraphQL reply as a client saw it. */
export interface FederationReply {
  status: number;
  body: {
    data?: Record<string, unknown> | null;
    errors?: { message: string; extensions?: Record<string, unknown> }[];
    extensions?: { cost?: CostJson };
  };
}

/** A running Apollo Server on a free port of 127.0.0.1. */
export interface RunningServer {
  url: string;
  post(query: string, variables?: Record<string, unknown>): Promise<FederationReply>;
  stop(): Promise<void>;
}

const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

type SubgraphModule = Exclude<Parameters<typeof buildSubgraphSchema>[0], readonly unknown[] | DocumentNode>;

/** A subgraph schema built by `@apollo/subgraph` from SDL and resolvers. */
export function subgraphSchema(typeDefs: string, resolvers: SubgraphModule['resolvers'] = {}): GraphQLSchema {
  return buildSubgraphSchema({ typeDefs: parse(typeDefs), resolvers });
}

/**
 * Serves a schema, or an Apollo Gateway (`@apollo/gateway` types its gateway interface against an
 * older `@apollo/server-gateway-interface`, hence the cast), with Apollo Server over HTTP.
 */
export async function serve(
  config: { schema: GraphQLSchema } | { gateway: object },
  plugins: ApolloServerPlugin[] = [],
): Promise<RunningServer> {
  const server = new ApolloServer({ ...config, logger: silent, plugins } as ApolloServerOptions<BaseContext>);
  const { url } = await startStandaloneServer(server, { listen: { port: 0, host: '127.0.0.1' } });
  return {
    url,
    async post(query, variables) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });
      return { status: response.status, body: (await response.json()) as FederationReply['body'] };
    },
    stop: () => server.stop(),
  };
}
