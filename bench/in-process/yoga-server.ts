import { costLimitPlugin } from '@escape.tech/graphql-armor-cost-limit';
import { costDirectivesTypeDefs, useQueryBudget } from 'graphql-budget';
import { createSchema, createYoga, type YogaServerOptions } from 'graphql-yoga';
import { UNLIMITED_POLICY } from '../http/variants.js';
import { BOOKSTORE_TYPE_DEFS, bookstoreResolvers, type BookstoreOperation } from './bookstore.js';
import { ARMOR_COST_LIMIT, useQueryComplexity, useRateLimiter } from './peers.js';
import type { Guard, InProcessReply, InProcessServer } from './variant.js';

interface Context {
  caller: string;
}

/**
 * What `guard` adds to the server: the same options as the Apollo Server variants
 * (apollo-server.ts); graphql-armor's cost limit is its Envelop plugin, `costLimitPlugin`.
 */
function plugins(guard: Guard): NonNullable<YogaServerOptions<Record<string, unknown>, Context>['plugins']> {
  switch (guard.kind) {
    case 'bare':
      return [];
    case 'budget':
      return [
        useQueryBudget<Context>({
          store: guard.store,
          identify: ({ contextValue }) => contextValue.caller,
          policy: UNLIMITED_POLICY,
          onStoreError: 'deny',
        }),
      ];
    case 'graphql-query-complexity':
      return [useQueryComplexity()];
    case 'graphql-armor-cost-limit':
      return [costLimitPlugin(ARMOR_COST_LIMIT)];
    case 'rate-limiter-flexible':
      return [useRateLimiter(guard.limiter)];
  }
}

/**
 * A GraphQL Yoga 5 over the in-process bookstore, driven through `yoga.fetch` (what its Node
 * adapter calls, without the socket), guarded by `guard`.
 */
export async function startYogaServer(guard: Guard): Promise<InProcessServer> {
  const yoga = createYoga<Record<string, unknown>, Context>({
    schema: createSchema({ typeDefs: [costDirectivesTypeDefs, BOOKSTORE_TYPE_DEFS], resolvers: bookstoreResolvers }),
    logging: false,
    context: () => ({ caller: 'bench-caller' }),
    plugins: plugins(guard),
  });
  const request = async (operation: BookstoreOperation): Promise<InProcessReply> => {
    const response = await yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer bench-caller' },
      body: operation.body,
    });
    return { status: response.status, headers: response.headers, body: await response.text() };
  };
  return { request, stop: async () => {} };
}
