import type { DocumentNode, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import type { BudgetLogger } from './logger.js';

/**
 * One operation as the request path sees it, whatever the server: what an adapter hands the core
 * once the operation is known (Apollo Server's `didResolveOperation`, Envelop's `onExecute`).
 * `TArgs` is what the user's callbacks (`identify`, `policy`, `skip`, `mode`, `maxCost`, `cost`,
 * `exposeCost`, `fieldBreakdown`) receive: Apollo Server's request context, or Envelop's
 * `{ context, document, operationName, variables }`.
 */
export interface BudgetRequest<TArgs> {
  readonly args: TArgs;
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode;
  /**
   * The schema the operation executes against: it is priced and settled with this schema's cost
   * table (undefined: the schema loaded last).
   */
  readonly schema: GraphQLSchema | undefined;
  readonly operationName: string | null;
  /** The raw request variables (not yet coerced). */
  readonly variables: Readonly<Record<string, unknown>> | undefined;
  /** Names the document in estimate-cache keys: Apollo's query hash, or an id per document object. */
  readonly documentKey: string;
  /** The HTTP request's headers, when there is one (the debug header, `Origin`). */
  readonly headers: { get(name: string): string | null | undefined } | undefined;
  /** Whether the operation is one of a batch (one HTTP response for all: no status of its own). */
  readonly batched: boolean;
  /** The execution's context value: where the `rateLimit` field reads the buckets after the charge. */
  readonly contextValue: object;
  readonly logger: BudgetLogger;
  /**
   * The `extensions.http` of an error refusing this operation, in the server's own shape (Apollo
   * Server: `{ status, headers: Map }`, with no status of its own in a batch; GraphQL Yoga:
   * `{ status, headers: Record<string, string> }`).
   */
  readonly http: (status: number, headers: Readonly<Record<string, string>>) => unknown;
}

/** An executed operation's result, as the settlement reads it. */
export interface BudgetResponse {
  /**
   * Whether parts of the result may be missing: delivered incrementally (`@defer`, `@stream`; its
   * parts merged so far), or an execution cut short (cancelled when the client left, or rejected).
   * Nothing is then refunded below its estimate at any place.
   */
  readonly incomplete: boolean;
  /** The result's `data`: null when an error nulled the root, undefined when nothing executed. */
  readonly data: Readonly<Record<string, unknown>> | null | undefined;
  /** The execution's errors, with their paths (the raw ones, before any formatting strips them). */
  readonly errors: ReadonlyArray<{ readonly path?: ReadonlyArray<string | number> | undefined }> | null;
}
