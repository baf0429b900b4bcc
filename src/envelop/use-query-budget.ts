import { getOperationAST, type ExecutionArgs, type OperationDefinitionNode } from 'graphql';
import type { BudgetAnnotation } from '../core/annotate.js';
import { annotated, BudgetedOperation } from '../core/budgeted-operation.js';
import { exposeBudgetHeaders } from '../core/cors-headers.js';
import { IncrementalResult } from '../core/incremental-result.js';
import { documentKeyOf } from '../core/document-key.js';
import { consoleLogger, type BudgetLogger } from '../core/logger.js';
import type { BudgetOptions } from '../core/options.js';
import { RequestPath } from '../core/request-path.js';
import type { BudgetRequest, BudgetResponse } from '../core/request.js';
import { subscribeWithBudget } from '../core/subscription.js';
import type { EnvelopBudgetPlugin, EnvelopBudgetRequest, EnvelopExecutionArgs, FetchHeaders } from './envelop-types.js';

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
  // execution's result, and nothing executes); `onExecuteDone` (or a rejected execution, or the end
  // of an incremental result) finishes: settles, annotates and reports; `onResponse` writes the
  // headers under Yoga, where a refusal's status and Retry-After travel in the error's
  // `extensions.http`, which Yoga strips from the body; `onSubscribe` charges a subscription and
  // each of its events.
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
  function pendHeaders(contextValue: object, annotation: BudgetAnnotation | undefined): void {
    const httpRequest = fetchRequestOf(contextValue);
    if (httpRequest === undefined || annotation === undefined || annotation.headers.length === 0) return;
    const headers = pendingHeaders.get(httpRequest) ?? new Map<string, string>();
    for (const [name, value] of annotation.headers) headers.set(name, value);
    pendingHeaders.set(httpRequest, headers);
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

    onDispose: () => path.stop(logger),

    onYogaInit({ yoga }) {
      if (given === undefined && isLogger(yoga.logger)) logger = yoga.logger;
      path.start(logger);
    },

    async onExecute({ args, executeFn, setExecuteFn, setResultAndStopExecution }) {
      const operationNode = getOperationAST(args.document, args.operationName ?? undefined);
      const contextValue: unknown = args.contextValue;
      if (!operationNode || typeof contextValue !== 'object' || contextValue === null) return undefined;
      path.start(logger);
      const operation = new BudgetedOperation(path, requestOf(args, operationNode));
      const verdict = await operation.decide(args.schema);
      if (verdict.kind !== 'execute') {
        const { result, annotation } = await operation.answer(verdict);
        pendHeaders(contextValue, annotation);
        setResultAndStopExecution(result);
        return undefined;
      }
      if (operation.budget === undefined) return undefined;
      setExecuteFn(async (executeArgs) => {
        try {
          return await executeFn(executeArgs);
        } catch (error) {
          // Cut short (the client went away, under Yoga's useExecutionCancellation) or failed: what
          // it did is unknown, so nothing is refunded.
          await operation.finish(CUT_SHORT);
          throw error;
        }
      });
      return {
        async onExecuteDone({ result, setResult }) {
          if (!isAsyncIterable(result)) {
            const response: BudgetResponse = { incomplete: false, data: result.data, errors: result.errors ?? null };
            const annotation = await operation.finish(response);
            pendHeaders(contextValue, annotation);
            setResult(annotated(result, annotation));
            return undefined;
          }
          // Delivered incrementally: settled when the stream ends (or the client leaves it), on what
          // it delivered; the first part says what was charged up front.
          const delivered = new IncrementalResult();
          const upFront = operation.upFront();
          pendHeaders(contextValue, upFront);
          // A client that leaves before the first part is pulled ends no stream: it is settled when it leaves.
          fetchRequestOf(contextValue)?.signal?.addEventListener(
            'abort',
            () => void operation.finish(delivered.response),
            {
              once: true,
            },
          );
          let first = true;
          return {
            onNext({ result: part, setResult: setPart }) {
              delivered.add(part);
              if (!first) return;
              first = false;
              setPart(annotated(part, upFront));
            },
            onEnd() {
              void operation.finish(delivered.response);
            },
          };
        },
      };
    },

    onSubscribe({ args, setSubscribeFn }) {
      const operationNode = getOperationAST(args.document, args.operationName ?? undefined);
      const contextValue: unknown = args.contextValue;
      if (!operationNode || typeof contextValue !== 'object' || contextValue === null) return;
      path.start(logger);
      const request = requestOf(args, operationNode);
      setSubscribeFn((subscribeArgs: ExecutionArgs) => subscribeWithBudget(path, request, subscribeArgs));
    },
  };
}

/** What an execution cut short shows: nothing, every part of it possibly done. */
const CUT_SHORT: BudgetResponse = { incomplete: true, data: undefined, errors: null };

/** The Fetch API request, as far as it is read here. */
interface FetchRequest {
  readonly headers: { get(name: string): string | null };
  readonly signal?: { addEventListener(type: 'abort', listener: () => void, options: { once: boolean }): void };
}

/** GraphQL Yoga's context holds the Fetch API request; other Envelop servers' may not. */
function fetchRequestOf(context: unknown): FetchRequest | undefined {
  if (typeof context !== 'object' || context === null) return undefined;
  const request = (context as { request?: unknown }).request;
  if (typeof request !== 'object' || request === null) return undefined;
  const headers = (request as { headers?: unknown }).headers;
  if (typeof headers !== 'object' || headers === null || typeof (headers as { get?: unknown }).get !== 'function') {
    return undefined;
  }
  return request as FetchRequest;
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
