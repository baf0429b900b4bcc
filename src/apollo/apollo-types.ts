import type {
  DocumentNode,
  FormattedExecutionResult,
  GraphQLError,
  GraphQLFormattedError,
  GraphQLSchema,
  OperationDefinitionNode,
} from 'graphql';
import type { BudgetLogger } from '../core/logger.js';

/*
 * Apollo Server 5's plugin types, as far as the plugin reads them, written out structurally so that
 * the package's declarations import nothing from `@apollo/server` (an optional peer: a GraphQL Yoga
 * project compiles against graphql-budget without it). Apollo's own types are assignable to these;
 * test/apollo/types.test.ts keeps it so.
 */

/** An HTTP head: Apollo's `HTTPGraphQLHead` (its `HeaderMap` is a `Map`). */
export interface ApolloHead {
  status?: number | undefined;
  readonly headers: Map<string, string>;
}

/** A request's headers: Apollo's `HeaderMap`. */
export interface ApolloRequestHeaders {
  get(name: string): string | undefined;
}

/** The GraphQL request as Apollo Server received it (`GraphQLRequest`). */
export interface ApolloGraphQLRequest {
  readonly query?: string | undefined;
  readonly operationName?: string | undefined;
  /** Raw, as the client sent them (not yet coerced). */
  readonly variables?: Readonly<Record<string, unknown>> | undefined;
  readonly extensions?: Readonly<Record<string, unknown>> | undefined;
  readonly http?:
    | {
        readonly method: string;
        readonly headers: ApolloRequestHeaders;
        readonly search: string;
        readonly body: unknown;
      }
    | undefined;
}

/** Apollo's cache control for one response (`CachePolicy`). */
export interface ApolloCachePolicy {
  restrict(hint: { scope?: 'PUBLIC' | 'PRIVATE' }): void;
  policyIfCacheable(): { readonly scope: 'PUBLIC' | 'PRIVATE' } | null;
}

/** A response's body (`GraphQLResponseBody`). */
export type ApolloResponseBody =
  | {
      readonly kind: 'single';
      readonly singleResult: {
        data?: Record<string, unknown> | null | undefined;
        errors?: readonly GraphQLFormattedError[] | undefined;
        extensions?: Record<string, unknown> | undefined;
      };
    }
  | { readonly kind: 'incremental'; readonly initialResult: { extensions?: Record<string, unknown> | undefined } };

/**
 * Apollo Server's request context (`GraphQLRequestContext`): what `identify`, `policy` and the
 * other per-request options of `queryBudgetPlugin` receive, once the operation is resolved.
 */
export interface ApolloRequestContext<TContext> {
  readonly logger: BudgetLogger;
  readonly request: ApolloGraphQLRequest;
  readonly schema: GraphQLSchema;
  /** Your context function's value (Apollo gives each operation a shallow copy of its own). */
  readonly contextValue: TContext;
  readonly queryHash?: string | undefined;
  readonly document?: DocumentNode | undefined;
  readonly source?: string | undefined;
  readonly operationName?: string | null | undefined;
  readonly operation?: OperationDefinitionNode | undefined;
  readonly errors?: readonly GraphQLError[] | undefined;
  readonly overallCachePolicy: ApolloCachePolicy;
  readonly requestIsBatched: boolean;
  readonly response: { readonly http: ApolloHead; readonly body?: ApolloResponseBody | undefined };
}

/** The request context once the operation is resolved (`didResolveOperation`). */
export type ApolloOperationContext<TContext> = ApolloRequestContext<TContext> & {
  readonly document: DocumentNode;
  readonly queryHash: string;
  readonly operationName: string | null;
};

/** The request context when the response is about to be sent (`willSendResponse`). */
export type ApolloResponseContext<TContext> = ApolloRequestContext<TContext> & {
  readonly response: { readonly http: ApolloHead; readonly body: ApolloResponseBody };
};

/** What `responseForOperation` answers with instead of executing (`GraphQLResponse`). */
export interface ApolloResponse<THead extends ApolloHead> {
  readonly http: THead;
  readonly body: { readonly kind: 'single'; readonly singleResult: FormattedExecutionResult };
}

/** The plugin's hooks for one request (`GraphQLRequestListener`). */
export interface ApolloRequestListener<TContext> {
  didResolveOperation(requestContext: ApolloOperationContext<TContext>): Promise<void>;
  responseForOperation<THead extends ApolloHead>(
    requestContext: ApolloRequestContext<TContext> & { readonly response: { readonly http: THead } },
  ): Promise<ApolloResponse<THead> | null>;
  willSendResponse(requestContext: ApolloResponseContext<TContext>): Promise<void>;
}

/**
 * An Apollo Server 5 plugin (`ApolloServerPlugin<TContext>`): what `queryBudgetPlugin` returns, for
 * the server's `plugins` list.
 */
export interface ApolloBudgetPlugin<TContext> {
  serverWillStart(service: { readonly logger: BudgetLogger }): Promise<{
    schemaDidLoadOrUpdate(schemaContext: {
      readonly apiSchema: GraphQLSchema;
      readonly coreSupergraphSdl?: string | undefined;
    }): void;
    /** The server stops: what callers still owe the store is paid, within a deadline. */
    serverWillStop(): Promise<void>;
  }>;
  requestDidStart(): Promise<ApolloRequestListener<TContext>>;
}
