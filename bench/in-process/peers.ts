/**
 * The peers the plugin's added CPU is compared with, wired as their users wire them, each with a
 * limit no operation of the section reaches (so every check passes and the operation runs):
 *
 * - graphql-query-complexity: `getComplexity` on every operation once it is resolved, with the
 *   field-extensions estimator and `simpleEstimator` as the fallback, throwing a `GraphQLError`
 *   above a maximum. In Apollo Server, a plugin's `didResolveOperation`; in Envelop (GraphQL
 *   Yoga), `onExecute`, where the document, operation name, variables and schema are known.
 * - graphql-armor's cost limit: its `costLimitRule` as a validation rule in Apollo Server, its
 *   `costLimitPlugin` in Envelop (apollo-server.ts, yoga-server.ts).
 * - rate-limiter-flexible: `RateLimiterRedis.consume(caller, 1)` once the operation is resolved,
 *   on the same ioredis client options as the budget's Redis variants. It prices nothing: it is
 *   what one Redis call per request costs the process, the floor under any limiter that keeps its
 *   budgets in Redis and calls it on every request.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import type { Plugin } from '@envelop/core';
import { GraphQLError, type DocumentNode, type GraphQLSchema } from 'graphql';
import { fieldExtensionsEstimator, getComplexity, simpleEstimator } from 'graphql-query-complexity';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';

const MAXIMUM_COMPLEXITY = 1_000_000;

/** graphql-armor's cost limit (its default, 5,000, is below the large operation's cost in its model). */
export const ARMOR_COST_LIMIT = { maxCost: 1_000_000_000 } as const;

function checkComplexity(
  schema: GraphQLSchema,
  query: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | null | undefined,
): void {
  const complexity = getComplexity({
    schema,
    operationName: operationName ?? undefined,
    query,
    variables: variables ?? undefined,
    estimators: [fieldExtensionsEstimator(), simpleEstimator({ defaultComplexity: 1 })],
  });
  if (complexity > MAXIMUM_COMPLEXITY) {
    throw new GraphQLError(`Query is too complex: ${complexity}. Maximum allowed complexity: ${MAXIMUM_COMPLEXITY}`);
  }
}

/** graphql-query-complexity's check as an Apollo Server plugin. */
export function queryComplexityPlugin(): ApolloServerPlugin {
  return {
    async requestDidStart({ schema }) {
      return {
        async didResolveOperation({ request, document }) {
          checkComplexity(schema, document, request.operationName, request.variables);
        },
      };
    },
  };
}

/** graphql-query-complexity's check as an Envelop plugin, for GraphQL Yoga. */
export function useQueryComplexity(): Plugin {
  return {
    onExecute({ args }) {
      checkComplexity(args.schema, args.document, args.operationName, args.variableValues);
    },
  };
}

/** rate-limiter-flexible's `consume` as an Apollo Server plugin: one point per operation, per caller. */
export function rateLimiterPlugin<TContext extends { caller: string }>(
  limiter: RateLimiterAbstract,
): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ contextValue }) {
          await limiter.consume(contextValue.caller, 1);
        },
      };
    },
  };
}

/** rate-limiter-flexible's `consume` as an Envelop plugin, for GraphQL Yoga. */
export function useRateLimiter(limiter: RateLimiterAbstract): Plugin<{ caller: string }> {
  return {
    async onExecute({ args }) {
      await limiter.consume(args.contextValue.caller, 1);
    },
  };
}
