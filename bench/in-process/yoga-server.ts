import { costDirectivesTypeDefs, useQueryBudget, type BucketStore } from 'graphql-budget';
import { createSchema, createYoga } from 'graphql-yoga';
import { UNLIMITED_POLICY } from '../http/variants.js';
import { BOOKSTORE_TYPE_DEFS, bookstoreResolvers, type BookstoreOperation } from './bookstore.js';
import type { InProcessReply, InProcessServer } from './variant.js';

interface Context {
  caller: string;
}

/**
 * A GraphQL Yoga 5 over the in-process bookstore, driven through `yoga.fetch` (what its Node
 * adapter calls, without the socket), with the budget plugin on `store` or bare when `store` is
 * undefined: the same options as the Apollo Server variants (apollo-server.ts).
 */
export async function startYogaServer(store: BucketStore | undefined): Promise<InProcessServer> {
  const yoga = createYoga<Record<string, unknown>, Context>({
    schema: createSchema({ typeDefs: [costDirectivesTypeDefs, BOOKSTORE_TYPE_DEFS], resolvers: bookstoreResolvers }),
    logging: false,
    context: () => ({ caller: 'bench-caller' }),
    plugins:
      store === undefined
        ? []
        : [
            useQueryBudget<Context>({
              store,
              identify: ({ contextValue }) => contextValue.caller,
              policy: UNLIMITED_POLICY,
              onStoreError: 'deny',
              tuning: { storeTimeoutMs: 1000 },
            }),
          ],
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
