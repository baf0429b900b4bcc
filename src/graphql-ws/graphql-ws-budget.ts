import {
  execute,
  getOperationAST,
  subscribe,
  type ExecutionArgs,
  type ExecutionResult,
  type OperationDefinitionNode,
} from 'graphql';
import { documentKeyOf } from '../core/document-key.js';
import { consoleLogger, type BudgetLogger } from '../core/logger.js';
import type { BudgetOptions } from '../core/options.js';
import type { BudgetRequest } from '../core/request.js';
import { executeWithBudget } from '../core/execute.js';
import { RequestPath } from '../core/request-path.js';
import { subscribeWithBudget, type BudgetedSubscription } from '../core/subscription.js';

/** The options that only mean something for an HTTP response, left out of `budgetedSubscribe`'s. */
type HttpOnlyOption = 'cacheableResponses' | 'corsExposeHeaders' | 'fieldBreakdown';

/**
 * Options of `budgetedSubscribe`: those of `queryBudgetPlugin` that apply to a subscription (only
 * `identify` is required), whose per-request functions receive graphql-js `ExecutionArgs`
 * (graphql-ws hands `subscribe` its `contextValue`, from the server's `context` option).
 */
export interface BudgetedSubscribeOptions extends Omit<BudgetOptions<ExecutionArgs>, HttpOnlyOption> {
  /** Where faults of `identify`, `policy` and `cost` are logged. @default `console` (without debug lines) */
  logger?: Partial<BudgetLogger> & Pick<BudgetLogger, 'warn' | 'error'>;
}

/** `subscribe` for graphql-ws: what `budgetedSubscribe` returns. */
export type BudgetedSubscribe = (args: ExecutionArgs) => Promise<BudgetedSubscription>;

/** `execute` for graphql-ws: its queries and mutations. */
export type BudgetedExecute = (args: ExecutionArgs) => Promise<ExecutionResult>;

/** graphql-ws's `execute` and `subscribe` options, on one budget: what `graphqlWsBudget` returns. */
export interface GraphqlWsBudget {
  readonly execute: BudgetedExecute;
  readonly subscribe: BudgetedSubscribe;
  /**
   * The server stops (call it from your shutdown, after closing the sockets): what callers still
   * owe the store is paid, as far as it takes it within a few seconds.
   */
  readonly stop: () => Promise<void>;
}

const HTTP_ONLY_OPTIONS: readonly HttpOnlyOption[] = ['cacheableResponses', 'corsExposeHeaders', 'fieldBreakdown'];

/**
 * Every operation over graphql-ws charged against the caller's budget: the `execute` and
 * `subscribe` options of its `useServer`, on one budget (`useServer({ schema, ...graphqlWsBudget({
 * store, identify, policy }) }, wsServer)`). graphql-ws runs every operation that is not a
 * subscription through `execute`: a query or mutation is priced, charged, run and settled as over
 * HTTP (`executeWithBudget`); a subscription is charged when it starts and for each event
 * (`subscribeWithBudget`). Store calls go through the same guard (deadline, circuit breaker,
 * `onStoreError`) and deny cache as the plugin's, and the options are checked as strictly.
 */
export function graphqlWsBudget(options: BudgetedSubscribeOptions): GraphqlWsBudget {
  const path = new RequestPath<ExecutionArgs>(budgetOptionsOf(options), 'graphqlWsBudget');
  const given = options.logger ?? consoleLogger;
  const logger: BudgetLogger = {
    debug: (message) => given.debug?.(message),
    info: (message) => given.info?.(message),
    warn: (message) => given.warn(message),
    error: (message) => given.error(message),
  };
  /** The operation as the request path sees it, or undefined where graphql-js answers it alone. */
  const described = (
    args: ExecutionArgs,
  ): { request: BudgetRequest<ExecutionArgs>; args: ExecutionArgs } | undefined => {
    path.start(logger);
    // The rateLimit field reads the buckets from the context value: every execution needs one.
    const contextValue = typeof args.contextValue === 'object' && args.contextValue !== null ? args.contextValue : {};
    const withContext: ExecutionArgs = contextValue === args.contextValue ? args : { ...args, contextValue };
    const operation = getOperationAST(args.document, args.operationName ?? undefined);
    // No operation to run, or an ambiguous one: graphql-js answers with the error, running nothing.
    if (operation === null || operation === undefined) return undefined;
    return { request: requestOf(withContext, operation, contextValue, logger), args: withContext };
  };
  return {
    async execute(args) {
      const operation = described(args);
      return operation === undefined ? execute(args) : executeWithBudget(path, operation.request, operation.args);
    },
    async subscribe(args) {
      const operation = described(args);
      return operation === undefined ? subscribe(args) : subscribeWithBudget(path, operation.request, operation.args);
    },
    stop: () => path.stop(logger),
  };
}

/**
 * A `subscribe` function for graphql-ws that charges a subscription against the caller's budget:
 * its estimate when it starts, then each event (see `subscribeWithBudget`). graphql-ws runs
 * queries and mutations through its `execute` option, which this leaves as it is: use
 * `graphqlWsBudget` for both, unless the socket carries subscriptions only.
 */
export function budgetedSubscribe(options: BudgetedSubscribeOptions): BudgetedSubscribe {
  return graphqlWsBudget(options).subscribe;
}

function requestOf(
  args: ExecutionArgs,
  operation: OperationDefinitionNode,
  contextValue: object,
  logger: BudgetLogger,
): BudgetRequest<ExecutionArgs> {
  return {
    args,
    document: args.document,
    operation,
    schema: args.schema,
    operationName: operation.name?.value ?? null,
    variables: (args.variableValues ?? undefined) as Readonly<Record<string, unknown>> | undefined,
    documentKey: documentKeyOf(args.document),
    headers: undefined,
    batched: false,
    contextValue,
    logger,
    // No HTTP response: the error is a message on the socket.
    http: () => undefined,
  };
}

/** The request path's options: `logger` left out, and none that only means something over HTTP. */
function budgetOptionsOf(options: BudgetedSubscribeOptions): BudgetOptions<ExecutionArgs> {
  if (options === null || typeof options !== 'object') {
    throw new TypeError('budgetedSubscribe: options must be an object with at least `identify`.');
  }
  const { logger, ...rest } = options;
  for (const name of HTTP_ONLY_OPTIONS) {
    if (name in rest) {
      throw new TypeError(`budgetedSubscribe: \`${name}\` applies to HTTP responses only; remove it.`);
    }
  }
  if (logger !== undefined && (typeof logger?.warn !== 'function' || typeof logger.error !== 'function')) {
    throw new TypeError('budgetedSubscribe: `logger` must have warn and error methods (console has).');
  }
  return rest;
}
