import type { DocumentNode, ExecutionArgs, ExecutionResult, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import type { BudgetLogger } from '../core/logger.js';
import type { BudgetedSubscription } from '../core/subscription.js';

/*
 * Envelop's plugin types (and GraphQL Yoga's additions), as far as the budget reads them, written
 * out structurally: the package's declarations import nothing from `@envelop/core` or
 * `graphql-yoga`. Their own types are assignable to these; test/envelop/types.test.ts keeps it so.
 */

/**
 * What `identify`, `policy` and the other per-request options of `useQueryBudget` receive: the
 * Envelop context as `context`, and again as `contextValue`, its name in Apollo Server's request
 * context and graphql-js `ExecutionArgs`, so that `({ contextValue }) => contextValue.userId` reads
 * the caller on every server.
 */
export interface EnvelopBudgetRequest<TContext> {
  /** The Envelop context (GraphQL Yoga's holds `request`, the Fetch API `Request`). */
  readonly context: TContext;
  /** The same object as `context`. */
  readonly contextValue: TContext;
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode;
  readonly operationName: string | null;
  /** The raw request variables (not yet coerced). */
  readonly variables: Readonly<Record<string, unknown>> | undefined;
}

/** The arguments of one execution, as Envelop hands them to its hooks. */
export type EnvelopExecutionArgs<TContext> = Omit<ExecutionArgs, 'contextValue'> & { contextValue: TContext };

/** The result of an execution: one result, or a stream of them (`@defer`, `@stream`). */
export type EnvelopExecutionResult = ExecutionResult | AsyncIterable<ExecutionResult>;

/** The Fetch API's `Headers`, as far as they are read and written here. */
export interface FetchHeaders {
  get(name: string): string | null;
  set(name: string, value: string): void;
  has(name: string): boolean;
}

/** An Envelop plugin (`Plugin<TContext>`, also a GraphQL Yoga plugin): what `useQueryBudget` returns. */
export interface EnvelopBudgetPlugin<TContext> {
  onSchemaChange(payload: { readonly schema: GraphQLSchema }): void;
  /** GraphQL Yoga only: the response to a Fetch API request gets that request's budget headers. */
  onResponse(payload: {
    readonly request: { readonly headers: FetchHeaders };
    readonly response: { readonly headers: FetchHeaders };
  }): void;
  /** GraphQL Yoga only (`yoga.dispose()`): what callers still owe the store is paid, within a deadline. */
  onDispose(): Promise<void>;
  /** GraphQL Yoga only: its logger becomes the budget's. */
  onYogaInit(payload: { readonly yoga: { readonly logger: BudgetLogger } }): void;
  onExecute(payload: {
    readonly args: EnvelopExecutionArgs<TContext>;
    /** The execution function so far (graphql-js `execute`, or what an earlier plugin set). */
    readonly executeFn: (args: ExecutionArgs) => unknown;
    setExecuteFn(execute: (args: ExecutionArgs) => Promise<unknown>): void;
    setResultAndStopExecution(result: ExecutionResult): void;
  }): Promise<
    | {
        onExecuteDone(payload: {
          readonly result: EnvelopExecutionResult;
          setResult(result: ExecutionResult): void;
        }): Promise<
          | {
              /** Each part of an incremental result: the first carries `extensions.cost`. */
              onNext(payload: { readonly result: ExecutionResult; setResult(result: ExecutionResult): void }): void;
            }
          | undefined
        >;
      }
    | undefined
  >;
  onSubscribe(payload: {
    readonly args: EnvelopExecutionArgs<TContext>;
    setSubscribeFn(subscribe: (args: ExecutionArgs) => Promise<BudgetedSubscription>): void;
  }): void;
}
