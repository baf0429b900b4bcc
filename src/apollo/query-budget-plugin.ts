import type { GraphQLFieldResolver } from 'graphql';
import type { Budget } from '../core/budget.js';
import { exposeBudgetHeaders } from '../core/cors-headers.js';
import { meterContext } from '../core/field-meter.js';
import type { MeteredExecution } from '../core/metered-execution.js';
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

type FieldResolver = GraphQLFieldResolver<unknown, unknown>;

/** What Apollo Server names the context property holding its `fieldResolver` option. */
const APOLLO_FIELD_RESOLVER = 'apolloServerUserFieldResolver';

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
 * `extensions.cost` and the `RateLimit` headers; work not done is refunded after execution. The
 * options are checked here: a wrong or unknown one throws, naming it.
 */
export function queryBudgetPlugin<TContext extends object = object>(
  options: QueryBudgetOptions<TContext>,
): ApolloBudgetPlugin<TContext> {
  // The request path's adapter to Apollo's hooks: `didResolveOperation` decides (a refusal is thrown
  // there, with its HTTP status); `responseForOperation` answers a dry run with its `rateLimit` fields
  // alone; `executionDidStart` registers the execution's meter; `willSendResponse` settles, annotates
  // the response and reports.
  const path = new RequestPath<ApolloRequestContext<TContext>>(options, 'queryBudgetPlugin');
  const { config } = path;
  /**
   * The server's `fieldResolver` option, learned from the first execution (null: none). Apollo
   * hands it to a plugin's field hook only, so the first execution has one.
   */
  let serverFieldResolver: FieldResolver | null | undefined;

  return {
    async serverWillStart({ logger }) {
      path.start(logger);
      return {
        schemaDidLoadOrUpdate({ apiSchema, coreSupergraphSdl }) {
          path.load(apiSchema, coreSupergraphSdl, logger);
        },
      };
    },

    async requestDidStart() {
      let request: BudgetRequest<ApolloRequestContext<TContext>> | undefined;
      let decision: Promise<Budget> | undefined;
      /** The decision once made (read without awaiting where another plugin's hook runs right after ours). */
      let decided: Budget | undefined;
      let metered: MeteredExecution | undefined;
      return {
        async didResolveOperation(requestContext) {
          if (!requestContext.operation) return;
          const described = budgetRequestOf(requestContext);
          request = described;
          decision = path.decide(described);
          let budget: Budget;
          try {
            budget = await decision;
            decided = budget;
          } catch (error) {
            const refusal = path.faultOf(error, described);
            if (refusal !== undefined) throw refusal;
            return;
          }
          const refusal = path.refusal(budget, described);
          if (refusal !== undefined) throw refusal;
        },

        async responseForOperation(requestContext) {
          // A dry run answers with its rateLimit fields alone; nothing else executes.
          if (request === undefined) return null;
          const budget = decided ?? (await decision?.catch(() => undefined));
          if (budget?.dryRun === undefined) return null;
          const result = await path.dryRun(budget, request);
          if (result === undefined) return null;
          const singleResult = {
            ...(result.errors === undefined ? {} : { errors: result.errors.map((error) => error.toJSON()) }),
            data: result.data,
          };
          // The head is the request's own (Apollo merges the answer's head into it).
          return { http: requestContext.response.http, body: { kind: 'single', singleResult } };
        },

        async executionDidStart() {
          if (request === undefined) return undefined;
          // Decided by now (didResolveOperation awaited it), unless another plugin's hook threw first.
          const budget = decided ?? (await decision?.catch(() => undefined));
          metered = path.meter(budget, request, serverFieldResolver ?? undefined);
          if (serverFieldResolver !== undefined) return undefined;
          const schema = path.schemaOf(request);
          return {
            willResolveField({ contextValue }) {
              if (serverFieldResolver !== undefined || typeof contextValue !== 'object' || contextValue === null)
                return;
              serverFieldResolver = apolloFieldResolverOf(contextValue) ?? null;
              if (serverFieldResolver !== null && schema !== undefined) {
                meterContext(contextValue, path, undefined, serverFieldResolver, schema);
              }
            },
          };
        },

        async willSendResponse(requestContext) {
          // The response will carry this caller's budget: no shared cache may serve it to another.
          // Restricted here, before the first await: Apollo's cache control computes the
          // Cache-Control header in its own willSendResponse, which runs as soon as ours awaits (and
          // a policy restricted before execution would make it skip the schema's hints altogether).
          if (decided?.expose === true && config.cacheableResponses === 'private') {
            requestContext.overallCachePolicy.restrict({ scope: 'PRIVATE' });
          }
          if (decision === undefined || request === undefined) return;
          // Another plugin may have refused the operation while ours was still deciding.
          const budget = decided ?? (await decision.catch(() => undefined));
          if (budget === undefined) return;
          const settlement = await path.settle(budget, request, responseOf(requestContext), metered);
          if (budget.expose && config.cacheableResponses === 'unannotated') {
            // A response a shared cache may keep goes out without the caller's budget.
            if (requestContext.overallCachePolicy.policyIfCacheable()?.scope === 'PUBLIC') budget.expose = false;
          }
          const annotation = path.annotation(budget, settlement);
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
          path.report(request, budget, settlement);
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

/** The executed operation's result. */
function responseOf<TContext>(requestContext: ApolloResponseContext<TContext>): BudgetResponse {
  const { body } = requestContext.response;
  if (body.kind !== 'single') return { incremental: true, data: undefined, errors: null };
  // The raw errors keep their paths even where a `formatError` strips them from the response.
  const errors = requestContext.errors ?? body.singleResult.errors ?? null;
  return { incremental: false, data: body.singleResult.data, errors };
}

/** Apollo's `fieldResolver` option, from the context value Apollo gave a field hook. */
function apolloFieldResolverOf(contextValue: object): FieldResolver | undefined {
  for (const symbol of Object.getOwnPropertySymbols(contextValue)) {
    if (symbol.description !== APOLLO_FIELD_RESOLVER) continue;
    const resolver = (contextValue as Record<symbol, unknown>)[symbol];
    if (typeof resolver === 'function') return resolver as FieldResolver;
  }
  return undefined;
}
