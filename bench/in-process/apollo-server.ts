import { ApolloServer, HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import type { ValidationRule } from 'graphql';
import { costDirectivesTypeDefs, queryBudgetPlugin } from 'graphql-budget';
import { UNLIMITED_POLICY } from '../http/variants.js';
import { BOOKSTORE_TYPE_DEFS, bookstoreResolvers, type BookstoreOperation } from './bookstore.js';
import { ARMOR_COST_LIMIT, queryComplexityPlugin, rateLimiterPlugin } from './peers.js';
import type { Guard, InProcessReply, InProcessServer } from './variant.js';

interface Context {
  caller: string;
}

/**
 * What `guard` adds to the server. The budget plugin has its default options (among them the
 * store's deadline) except a budget no run can spend and `onStoreError: 'deny'`, so that a store
 * call that fails or misses its deadline is a 503 the section counts, never an uncharged pass.
 * graphql-armor's cost limit is its `costLimitRule` as a validation rule, as it is documented for
 * Apollo Server.
 */
function guarded(guard: Guard): { plugins: ApolloServerPlugin<Context>[]; validationRules: ValidationRule[] } {
  switch (guard.kind) {
    case 'bare':
      return { plugins: [], validationRules: [] };
    case 'budget':
      return {
        plugins: [
          queryBudgetPlugin<Context>({
            store: guard.store,
            identify: ({ contextValue }) => contextValue.caller,
            policy: UNLIMITED_POLICY,
            onStoreError: 'deny',
          }),
        ],
        validationRules: [],
      };
    case 'graphql-query-complexity':
      return { plugins: [queryComplexityPlugin()], validationRules: [] };
    case 'graphql-armor-cost-limit':
      return { plugins: [], validationRules: [costLimitRule(ARMOR_COST_LIMIT)] };
    case 'rate-limiter-flexible':
      return { plugins: [rateLimiterPlugin<Context>(guard.limiter)], validationRules: [] };
  }
}

/**
 * An Apollo Server 5 over the in-process bookstore, driven through `executeHTTPGraphQLRequest`
 * (what every HTTP integration calls, without the socket), guarded by `guard`.
 */
export async function startApolloServer(guard: Guard): Promise<InProcessServer> {
  const server = new ApolloServer<Context>({
    typeDefs: [costDirectivesTypeDefs, BOOKSTORE_TYPE_DEFS],
    resolvers: bookstoreResolvers,
    ...guarded(guard),
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
