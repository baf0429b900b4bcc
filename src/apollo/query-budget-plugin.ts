import { BudgetedOperation } from '../core/budgeted-operation.js';
import { exposeBudgetHeaders } from '../core/cors-headers.js';
import type { BudgetOptions } from '../core/options.js';
import { RequestPath } from '../core/request-path.js';
import type { BudgetRequest, BudgetResponse } from '../core/request.js';
import type {
  ApolloBudgetPlugin,
  ApolloOperationContext,
  ApolloRequestContext,
  ApolloResponseContext,
} from './apollo-types.js';

/**
 * The options of `queryBudgetPlugin`: every per-request function (`identify`, `policy`, `skip`,
 * `mode`, `maxCost`, `cost`, `exposeCost`, `fieldBreakdown`) receives Apollo Server's request
 * context, once the operation is resolved.
 */
export type QueryBudgetOptions<TContext extends object = object> = BudgetOptions<ApolloRequestContext<TContext>>;

/**
 * Charges every operation its cost against the caller's token bucket, in Apollo Server 5.
 *
 * ```ts
 * import { ApolloServer } from '@apollo/server';
 * import { queryBudgetPlugin, RedisBucketStore } from 'graphql-budget';
 *
 * const server = new ApolloServer<{ userId: string }>({
 *   typeDefs,
 *   resolvers,
 *   plugins: [
 *     queryBudgetPlugin({
 *       store: new RedisBucketStore(redis),
 *       identify: ({ contextValue }) => contextValue.userId,
 *       policy: { capacity: 1000, refillPerSecond: 50 },
 *     }),
 *   ],
 * });
 * ```
 *
 * A spent budget answers 429 with `Retry-After` and nothing runs; every response carries
 * `extensions.cost` and the `RateLimit` headers; after execution the charge becomes the price of
 * what the response holds. The options are checked here: a wrong or unknown one throws, naming it.
 */
export function queryBudgetPlugin<TContext extends object = object>(
  options: QueryBudgetOptions<TContext>,
): ApolloBudgetPlugin<TContext> {
  // The request path's adapter to Apollo's hooks: `didResolveOperation` decides (a refusal is thrown
  // there, with its HTTP status); `responseForOperation` answers a dry run with its `rateLimit` fields
  // alone; `willSendResponse` settles, annotates the response and reports.
  const path = new RequestPath<ApolloRequestContext<TContext>>(options, 'queryBudgetPlugin');
  const { config } = path;

  return {
    async serverWillStart({ logger }) {
      path.start(logger);
      return {
        schemaDidLoadOrUpdate({ apiSchema, coreSupergraphSdl }) {
          path.load(apiSchema, coreSupergraphSdl, logger);
        },
        serverWillStop: () => path.stop(logger),
      };
    },

    async requestDidStart() {
      let operation: BudgetedOperation<ApolloRequestContext<TContext>> | undefined;
      /** The decision, read by the hooks that run after ours (Apollo runs plugins' hooks concurrently). */
      let decision: ReturnType<BudgetedOperation<ApolloRequestContext<TContext>>['decide']> | undefined;
      return {
        async didResolveOperation(requestContext) {
          if (!requestContext.operation) return;
          operation = new BudgetedOperation(path, budgetRequestOf(requestContext));
          decision = operation.decide();
          const verdict = await decision;
          if (verdict.kind === 'refuse') throw verdict.error;
        },

        async responseForOperation(requestContext) {
          // A dry run answers with its rateLimit fields alone; nothing else executes.
          const verdict = await decision?.catch(() => undefined);
          if (verdict?.kind !== 'answer') return null;
          const { result } = verdict;
          const singleResult = {
            ...(result.errors === undefined ? {} : { errors: result.errors.map((error) => error.toJSON()) }),
            data: result.data,
          };
          // The head is the request's own (Apollo merges the answer's head into it).
          return { http: requestContext.response.http, body: { kind: 'single', singleResult } };
        },

        async willSendResponse(requestContext) {
          const budget = operation?.budget;
          // The response will carry this caller's budget: no shared cache may serve it to another.
          // Restricted here, before the first await: Apollo's cache control computes the
          // Cache-Control header in its own willSendResponse, which runs as soon as ours awaits (and
          // a policy restricted before execution would make it skip the schema's hints altogether).
          if (budget?.expose === true && config.cacheableResponses === 'private') {
            requestContext.overallCachePolicy.restrict({ scope: 'PRIVATE' });
          }
          if (operation === undefined) return;
          // Another plugin may have refused the operation while ours was still deciding.
          await decision?.catch(() => undefined);
          // A response a shared cache may keep goes out without the caller's budget.
          const exposable =
            config.cacheableResponses !== 'unannotated' ||
            requestContext.overallCachePolicy.policyIfCacheable()?.scope !== 'PUBLIC';
          const annotation = await operation.finish(responseOf(requestContext), exposable);
          if (annotation !== undefined) {
            const { body } = requestContext.response;
            if (body.kind === 'single') {
              body.singleResult.extensions = { ...body.singleResult.extensions, cost: annotation.cost };
            } else {
              body.initialResult.extensions = { ...body.initialResult.extensions, cost: annotation.cost };
            }
            for (const [name, value] of annotation.headers) requestContext.response.http.headers.set(name, value);
          }
          if (config.corsExposeHeaders !== false) {
            exposeBudgetHeaders(
              requestContext.request.http?.headers,
              requestContext.response.http.headers,
              config.corsExposeHeaders,
            );
          }
        },
      };
    },
  };
}

/** The operation as the request path sees it. */
function budgetRequestOf<TContext extends object>(
  requestContext: ApolloOperationContext<TContext>,
): BudgetRequest<ApolloRequestContext<TContext>> {
  const operation = requestContext.operation as NonNullable<ApolloOperationContext<TContext>['operation']>;
  return {
    args: requestContext,
    document: requestContext.document,
    operation,
    schema: requestContext.schema,
    operationName: requestContext.operationName ?? null,
    variables: requestContext.request.variables,
    documentKey: requestContext.queryHash,
    headers: requestContext.request.http?.headers,
    batched: requestContext.requestIsBatched,
    contextValue: requestContext.contextValue,
    logger: requestContext.logger,
    // Apollo reads an error's `extensions.http` (status, and headers as a Map); in a batch every
    // member shares one HTTP head, so a refusal there keeps its status.
    http: (status, headers) => ({
      status: requestContext.requestIsBatched ? (requestContext.response.http.status ?? 200) : status,
      headers: new Map(Object.entries(headers)),
    }),
  };
}

/**
 * The executed operation's result. Apollo Server delivers an incremental result's later parts
 * itself; only its first part is seen here, so it is settled as incomplete.
 */
function responseOf<TContext>(requestContext: ApolloResponseContext<TContext>): BudgetResponse {
  const { body } = requestContext.response;
  // The raw errors keep their paths even where a `formatError` strips them from the response.
  if (body.kind !== 'single') return { incomplete: true, data: null, errors: requestContext.errors ?? null };
  const errors = requestContext.errors ?? body.singleResult.errors ?? null;
  return { incomplete: false, data: body.singleResult.data, errors };
}
