import { getOperationAST, type ExecutionArgs, type ExecutionResult, type OperationDefinitionNode } from 'graphql';
import type { BudgetAnnotation } from '../core/annotate.js';
import type { Budget } from '../core/budget.js';
import { exposeBudgetHeaders } from '../core/cors-headers.js';
import { documentKeyOf } from '../core/document-key.js';
import { consoleLogger, type BudgetLogger } from '../core/logger.js';
import type { BudgetOptions } from '../core/options.js';
import { RequestPath } from '../core/request-path.js';
import type { BudgetRequest, BudgetResponse } from '../core/request.js';
import { subscribeWithBudget } from '../core/subscription.js';
import type {
  EnvelopBudgetPlugin,
  EnvelopBudgetRequest,
  EnvelopExecutionArgs,
  EnvelopExecutionResult,
  FetchHeaders,
} from './envelop-types.js';

/**
 * The options of `useQueryBudget`: those of `queryBudgetPlugin`, whose per-request functions
 * (`identify`, `policy`, `skip`, `mode`, `maxCost`, `cost`, `exposeCost`, `fieldBreakdown`) receive
 * `{ context, contextValue, document, operation, operationName, variables }` (`context` and
 * `contextValue` are the same Envelop context), and a `logger`.
 *
 * `cacheableResponses` has nothing to restrict here (Envelop has no cache-control policy); a
 * response cache in front of the budget must key by caller.
 */
export interface UseQueryBudgetOptions<TContext> extends BudgetOptions<EnvelopBudgetRequest<TContext>> {
  /**
   * Where the budget logs (faults of your functions, store trouble).
   * @default GraphQL Yoga's logger under GraphQL Yoga, otherwise `console` (without debug lines)
   */
  logger?: BudgetLogger;
}

/**
 * Charges every operation its cost against the caller's token bucket, in GraphQL Yoga 5 or any
 * Envelop-based server.
 *
 * ```ts
 * import { createYoga } from 'graphql-yoga';
 * import { RedisBucketStore, useQueryBudget } from 'graphql-budget';
 *
 * const yoga = createYoga({
 *   schema,
 *   plugins: [
 *     useQueryBudget<{ userId: string }>({
 *       store: new RedisBucketStore(redis),
 *       identify: ({ context }) => context.userId,
 *       policy: { capacity: 1000, refillPerSecond: 50 },
 *     }),
 *   ],
 * });
 * ```
 *
 * The same options and answers as `queryBudgetPlugin`: a spent budget answers 429 with
 * `Retry-After` and nothing runs; responses carry `extensions.cost` and, under Yoga, the
 * `RateLimit` headers; subscriptions are charged when they start and per event.
 */
export function useQueryBudget<TContext extends object = object>(
  options: UseQueryBudgetOptions<TContext>,
): EnvelopBudgetPlugin<TContext> {
  // The request path's adapter to Envelop's hooks: `onExecute` decides (a refusal or a dry run is the
  // execution's result, and nothing executes) and registers the execution's meter; `onExecuteDone`
  // (or a rejected execution) settles, annotates and reports; `onResponse` writes the headers under
  // Yoga, where a refusal's status and Retry-After travel in the error's `extensions.http`, which
  // Yoga strips from the body; `onSubscribe` charges a subscription and each of its events.
  if (options === null || typeof options !== 'object') {
    throw new TypeError('useQueryBudget: options must be an object with at least `identify`.');
  }
  const { logger: given, ...budgetOptions } = options;
  if (given !== undefined && !isLogger(given)) {
    throw new TypeError('useQueryBudget: `logger` must have debug, info, warn and error methods (console has).');
  }
  const path = new RequestPath<EnvelopBudgetRequest<TContext>>(budgetOptions, 'useQueryBudget');
  const { config } = path;
  let logger: BudgetLogger = given ?? consoleLogger;

  function requestOf(
    args: EnvelopExecutionArgs<TContext>,
    operation: OperationDefinitionNode,
  ): BudgetRequest<EnvelopBudgetRequest<TContext>> {
    const contextValue = args.contextValue;
    const variables = (args.variableValues ?? undefined) as Readonly<Record<string, unknown>> | undefined;
    const httpRequest = fetchRequestOf(contextValue);
    const operationName = operation.name?.value ?? null;
    return {
      args: { context: contextValue, contextValue, document: args.document, operation, operationName, variables },
      document: args.document,
      operation,
      schema: args.schema,
      operationName,
      variables,
      documentKey: documentKeyOf(args.document),
      headers: httpRequest?.headers,
      batched: false,
      contextValue,
      logger,
      // GraphQL Yoga reads an error's `extensions.http`: its status, and headers as an object.
      http: (status, headers) => (httpRequest === undefined ? undefined : { status, headers }),
    };
  }

  /**
   * Header fields waiting for their response, by GraphQL Yoga's Fetch API request (every operation
   * of a batch writes to its request's one response, as in Apollo Server: the last one wins).
   */
  const pendingHeaders = new WeakMap<object, Map<string, string>>();

  /** The annotation's header fields, kept until the request's response is written (`onResponse`). */
  function pendHeaders(request: BudgetRequest<EnvelopBudgetRequest<TContext>>, annotation: BudgetAnnotation): void {
    const httpRequest = fetchRequestOf(request.contextValue);
    if (httpRequest === undefined || annotation.headers.length === 0) return;
    const headers = pendingHeaders.get(httpRequest) ?? new Map<string, string>();
    for (const [name, value] of annotation.headers) headers.set(name, value);
    pendingHeaders.set(httpRequest, headers);
  }

  /** The result with what the caller is told about their budget (its headers wait for the response). */
  function annotated(
    result: ExecutionResult,
    request: BudgetRequest<EnvelopBudgetRequest<TContext>>,
    annotation: BudgetAnnotation | undefined,
  ): ExecutionResult {
    if (annotation === undefined) return result;
    pendHeaders(request, annotation);
    return { ...result, extensions: { ...result.extensions, cost: annotation.cost } };
  }

  /** Settles, annotates and reports one operation; what the client receives. */
  async function finish(
    budget: Budget,
    request: BudgetRequest<EnvelopBudgetRequest<TContext>>,
    result: ExecutionResult,
    response: BudgetResponse,
    metered: Parameters<RequestPath<EnvelopBudgetRequest<TContext>>['settle']>[3],
  ): Promise<ExecutionResult> {
    const settlement = await path.settle(budget, request, response, metered);
    const out = annotated(result, request, path.annotation(budget, settlement));
    path.report(request, budget, settlement);
    return out;
  }

  return {
    onSchemaChange({ schema }) {
      path.load(schema, undefined, logger);
    },

    onResponse({ request, response }) {
      const headers = pendingHeaders.get(request);
      if (headers === undefined) return;
      pendingHeaders.delete(request);
      for (const [name, value] of headers) response.headers.set(name, value);
      if (config.corsExposeHeaders !== false) {
        exposeBudgetHeaders(request.headers, fetchHeaders(response.headers), config.corsExposeHeaders);
      }
    },

    onYogaInit({ yoga }) {
      if (given === undefined && isLogger(yoga.logger)) logger = yoga.logger;
      path.start(logger);
    },

    async onExecute({ args, executeFn, setExecuteFn, setResultAndStopExecution }) {
      const operation = getOperationAST(args.document, args.operationName ?? undefined);
      const context: unknown = args.contextValue;
      if (operation === null || operation === undefined || typeof context !== 'object' || context === null)
        return undefined;
      path.start(logger);
      const request = requestOf(args, operation);
      const decided = await path.decideOn(args.schema, request);
      if (decided.budget === undefined) {
        if (decided.faulted !== undefined) setResultAndStopExecution({ errors: [decided.faulted] });
        return undefined;
      }
      const { budget } = decided;
      const refusal = path.refusal(budget, request);
      if (refusal !== undefined) {
        // Not executed: settled as nothing done, annotated (the 429 says what is left), reported.
        const response: BudgetResponse = { incremental: false, data: undefined, errors: null };
        setResultAndStopExecution(await finish(budget, request, { errors: [refusal] }, response, undefined));
        return undefined;
      }
      const dryRun = await path.dryRun(budget, request);
      if (dryRun !== undefined) {
        const result = dryRun;
        setResultAndStopExecution(
          await finish(budget, request, result, { incremental: false, data: result.data, errors: null }, undefined),
        );
        return undefined;
      }
      const metered = path.meter(budget, request, args.fieldResolver ?? undefined);
      /** Settled once: after the result, or when the execution rejects (no result, no onExecuteDone). */
      let settled = false;
      setExecuteFn(async (executeArgs) => {
        try {
          return await executeFn(executeArgs);
        } catch (error) {
          if (!settled) {
            settled = true;
            // An execution aborted (the client went away, under Yoga's useExecutionCancellation) or
            // failed: whatever it did is hidden, so it is settled at least at its meter's count.
            const response: BudgetResponse = { incremental: false, data: null, errors: [{}] };
            path.report(request, budget, await path.settle(budget, request, response, metered));
          }
          throw error;
        }
      });
      return {
        async onExecuteDone({
          result,
          setResult,
        }: {
          result: EnvelopExecutionResult;
          setResult(result: ExecutionResult): void;
        }) {
          if (settled) return undefined;
          settled = true;
          if (isAsyncIterable(result)) {
            // Delivered incrementally: charged its estimate, nothing refunded; what its resolvers do
            // beyond the estimate is taken as the meter counts it. The first part tells the caller.
            const settlement = await path.settle(
              budget,
              request,
              { incremental: true, data: undefined, errors: null },
              metered,
            );
            const annotation = path.annotation(budget, settlement);
            path.report(request, budget, settlement);
            if (annotation === undefined) return undefined;
            pendHeaders(request, annotation);
            let told = false;
            return {
              onNext({ result: part, setResult: setPart }) {
                if (told) return;
                told = true;
                setPart({ ...part, extensions: { ...part.extensions, cost: annotation.cost } });
              },
            };
          }
          const response: BudgetResponse = { incremental: false, data: result.data, errors: result.errors ?? null };
          setResult(await finish(budget, request, result, response, metered));
          return undefined;
        },
      };
    },

    onSubscribe({ args, setSubscribeFn }) {
      const operation = getOperationAST(args.document, args.operationName ?? undefined);
      const context: unknown = args.contextValue;
      if (operation === null || operation === undefined || typeof context !== 'object' || context === null) return;
      path.start(logger);
      const request = requestOf(args, operation);
      setSubscribeFn((subscribeArgs: ExecutionArgs) => subscribeWithBudget(path, request, subscribeArgs));
    },
  };
}

/** GraphQL Yoga's context holds the Fetch API request; other Envelop servers' may not. */
function fetchRequestOf(context: unknown): { readonly headers: { get(name: string): string | null } } | undefined {
  if (typeof context !== 'object' || context === null) return undefined;
  const request = (context as { request?: unknown }).request;
  if (typeof request !== 'object' || request === null) return undefined;
  const headers = (request as { headers?: unknown }).headers;
  if (typeof headers !== 'object' || headers === null || typeof (headers as { get?: unknown }).get !== 'function') {
    return undefined;
  }
  return request as { readonly headers: { get(name: string): string | null } };
}

/** Fetch API headers as the CORS step reads and writes them. */
function fetchHeaders(headers: FetchHeaders): Parameters<typeof exposeBudgetHeaders>[1] {
  return {
    get: (name) => headers.get(name) ?? undefined,
    set: (name, value) => headers.set(name, value),
    has: (name) => headers.has(name),
  };
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

function isLogger(value: unknown): value is BudgetLogger {
  if (typeof value !== 'object' || value === null) return false;
  const logger = value as Record<string, unknown>;
  return ['debug', 'info', 'warn', 'error'].every((level) => typeof logger[level] === 'function');
}
