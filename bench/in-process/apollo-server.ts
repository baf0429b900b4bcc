import { ApolloServer, HeaderMap } from '@apollo/server';
import { costDirectivesTypeDefs, queryBudgetPlugin, type BucketStore } from 'graphql-budget';
import { UNLIMITED_POLICY } from '../http/variants.js';
import { BOOKSTORE_TYPE_DEFS, bookstoreResolvers, type BookstoreOperation } from './bookstore.js';
import type { InProcessReply, InProcessServer } from './variant.js';

interface Context {
  caller: string;
}

/**
 * An Apollo Server 5 over the in-process bookstore, driven through `executeHTTPGraphQLRequest`
 * (what every HTTP integration calls, without the socket), with the budget plugin on `store` or
 * bare when `store` is undefined. The plugin has its default options except a budget no run can
 * spend, and `onStoreError: 'deny'` with a 1 s deadline, so that a store failure is a 503 the
 * bench counts, never an uncharged pass; neither changes what a successful request runs.
 */
export async function startApolloServer(store: BucketStore | undefined): Promise<InProcessServer> {
  const server = new ApolloServer<Context>({
    typeDefs: [costDirectivesTypeDefs, BOOKSTORE_TYPE_DEFS],
    resolvers: bookstoreResolvers,
    plugins:
      store === undefined
        ? []
        : [
            queryBudgetPlugin<Context>({
              store,
              identify: ({ contextValue }) => contextValue.caller,
              policy: UNLIMITED_POLICY,
              onStoreError: 'deny',
              tuning: { storeTimeoutMs: 1000 },
            }),
          ],
  });
  await server.start();
  // The request as an HTTP integration hands it over: JSON body already parsed, headers lower-cased.
  const headers = new HeaderMap([
    ['content-type', 'application/json'],
    ['authorization', 'Bearer bench-caller'],
  ]);
  const request = async (operation: BookstoreOperation): Promise<InProcessReply> => {
    const response = await server.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: 'POST', headers, search: '', body: JSON.parse(operation.body) },
      context: async () => ({ caller: 'bench-caller' }),
    });
    let body: string;
    if (response.body.kind === 'complete') body = response.body.string;
    else {
      body = '';
      for await (const chunk of response.body.asyncIterator) body += chunk;
    }
    return { status: response.status ?? 200, headers: response.headers, body };
  };
  return { request, stop: () => server.stop() };
}
