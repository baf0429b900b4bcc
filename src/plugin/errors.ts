import { GraphQLError, getLocation, type ASTNode } from 'graphql';
import type { HeaderMap } from '@apollo/server';
import { CostAnalysisError } from '../cost/errors.js';

/** The `extensions.code` of every error the budget plugin returns. */
export const BudgetErrorCode = {
  /** HTTP 429: the caller's budget does not hold the operation's cost right now. */
  RATE_LIMITED: 'RATE_LIMITED',
  /** HTTP 400: the operation costs more than any budget allows (Apollo Router's code). */
  COST_ESTIMATED_TOO_EXPENSIVE: 'COST_ESTIMATED_TOO_EXPENSIVE',
  /**
   * HTTP 400: the cost of the operation could not be computed. The cost engine's own errors keep
   * their codes (`COST_ANALYSIS_LIMIT` above `maxNodes`, `BAD_USER_INPUT` for invalid variables).
   */
  COST_ANALYSIS_FAILED: 'COST_ANALYSIS_FAILED',
  /** HTTP 503: the bucket store is unavailable and `onStoreError` is `'deny'`. */
  BUDGET_UNAVAILABLE: 'BUDGET_UNAVAILABLE',
  /**
   * HTTP 500: the budget could not be decided because server code failed (`identify`, `policy` or
   * `cost` threw or returned something unusable, or an internal error). The message is generic;
   * the cause is logged server-side. Apollo Server's own code for the same class of error.
   */
  INTERNAL_SERVER_ERROR: 'INTERNAL_SERVER_ERROR',
  /**
   * HTTP 400: `rateLimit(dryRun: true)` below the operation's root (under a field that returns the
   * query type again): a dry run answers with `rateLimit` alone at the root, so it cannot be one.
   */
  DRY_RUN_NOT_AT_ROOT: 'DRY_RUN_NOT_AT_ROOT',
} as const;

export type BudgetErrorCode = (typeof BudgetErrorCode)[keyof typeof BudgetErrorCode];

/** Where an error puts its HTTP status and headers (Apollo reads `extensions.http`). */
export interface ErrorHttp {
  status: number;
  headers: HeaderMap;
}

/**
 * A budget error is an answer, not a fault: it carries no stack, so Apollo's
 * `includeStacktraceInErrorResponses` (on by default outside production) never sends the plugin's
 * internals to a client.
 */
function budgetError(
  message: string,
  code: string,
  http: ErrorHttp | undefined,
  extra: Record<string, unknown> = {},
): GraphQLError {
  const extensions = http === undefined ? { code, ...extra } : { code, ...extra, http };
  return withoutStack(new GraphQLError(message, { extensions }));
}

function withoutStack(error: GraphQLError): GraphQLError {
  error.stack = undefined;
  return error;
}

/** Whole seconds, rounded up, never 0: a client waiting that long will find the tokens. */
export function retryAfterSeconds(retryAfterMs: number): number {
  return Math.max(1, Math.ceil(retryAfterMs / 1000));
}

export function rateLimitedError(input: {
  cost: number;
  remaining: number;
  capacity: number;
  refillPerSecond: number;
  retryAfterMs: number;
  /** The refusing bucket's name, when the operation is charged against several. */
  bucket?: string | undefined;
  /** Left out where there is no HTTP response to shape (a subscription). */
  http?: ErrorHttp;
}): GraphQLError {
  const retry =
    Number.isFinite(input.retryAfterMs) && input.retryAfterMs >= 0 ? retryAfterSeconds(input.retryAfterMs) : null;
  const budget =
    input.bucket === undefined
      ? `your ${input.capacity} budget tokens`
      : `the ${input.capacity} tokens of the "${input.bucket}" budget`;
  const when =
    retry !== null
      ? `Retry in ${retry} s.`
      : input.bucket === undefined
        ? 'Your budget does not refill.'
        : `The "${input.bucket}" budget does not refill.`;
  return budgetError(
    `This operation costs ${input.cost} but only ${Math.floor(input.remaining)} of ${budget} are ` +
      `left (refilling ${input.refillPerSecond} per second). ${when}`,
    BudgetErrorCode.RATE_LIMITED,
    input.http,
    retry === null ? {} : { retryAfter: retry },
  );
}

/** A dry run over the caller's local dry-run limit (`dryRunLimit`): nothing was read or charged. */
export function dryRunLimitedError(input: {
  capacity: number;
  refillPerSecond: number;
  retryAfterMs: number;
  http: ErrorHttp;
}): GraphQLError {
  const retry = input.retryAfterMs >= 0 ? retryAfterSeconds(input.retryAfterMs) : null;
  return budgetError(
    `Too many dry runs: at most ${input.capacity} at once, refilling ${input.refillPerSecond} per second. ` +
      (retry === null ? 'Dry runs are not refilled.' : `Retry in ${retry} s.`),
    BudgetErrorCode.RATE_LIMITED,
    input.http,
    retry === null ? {} : { retryAfter: retry },
  );
}

/** A `rateLimit(dryRun: true)` below the root, which no dry run can answer: HTTP 400. */
export function nestedDryRunError(node: ASTNode, http: ErrorHttp): GraphQLError {
  const error = budgetError(
    'rateLimit(dryRun: true) must be selected at the root of the operation: a dry run answers with rateLimit ' +
      'alone there, and nothing else runs. Move it to the root, or ask with dryRun: false.',
    BudgetErrorCode.DRY_RUN_NOT_AT_ROOT,
    http,
  );
  (error as { locations: unknown }).locations =
    node.loc === undefined ? undefined : [getLocation(node.loc.source, node.loc.start)];
  return error;
}

export function tooExpensiveError(input: { estimatedCost: number; maxCost: number; http?: ErrorHttp }): GraphQLError {
  return budgetError(
    `This operation's estimated cost ${input.estimatedCost} exceeds the maximum ${input.maxCost} allowed for one operation. ` +
      'Ask for fewer items (smaller list arguments such as `first`) or split the operation.',
    BudgetErrorCode.COST_ESTIMATED_TOO_EXPENSIVE,
    input.http,
    { estimatedCost: input.estimatedCost, maxCost: input.maxCost },
  );
}

/**
 * A cost-engine error as plain data: what a client is told, without the AST nodes (and so without
 * the document) that the original error points at. This is what the estimate cache keeps.
 */
export interface CostErrorRecord {
  readonly message: string;
  readonly code: string;
  readonly locations: readonly { readonly line: number; readonly column: number }[] | undefined;
}

/** The record of a cost-engine error (`CostAnalysisError`), or undefined for any other error. */
export function costErrorRecord(cause: unknown): CostErrorRecord | undefined {
  if (!(cause instanceof CostAnalysisError)) return undefined;
  const locations = cause.locations?.map(({ line, column }) => ({ line, column }));
  return { message: cause.message, code: cause.code, locations };
}

/**
 * The cost engine could not price the operation (work cap, invalid variables, a missing slicing
 * argument): HTTP 400, its message, code and locations. The request, not the server, is at fault.
 */
export function costAnalysisError(record: CostErrorRecord, http?: ErrorHttp): GraphQLError {
  const error = budgetError(record.message, record.code, http);
  // GraphQLError computes `locations` from AST nodes; the record carries them without the nodes.
  (error as { locations: CostErrorRecord['locations'] }).locations = record.locations;
  return error;
}

/**
 * Server code failed while the budget was decided: user code (`identify`, `policy`, `cost`) threw or
 * returned something unusable. `message` names the option and what happened; it is for the server's
 * log only (see `internalError`).
 */
export class BudgetServerFault extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BudgetServerFault';
  }
}

/**
 * Server code failed while deciding the budget: HTTP 500 with a generic message. The cause is for
 * the server's log, never for the client (it could reveal configuration: tiers, capacities, keys).
 */
export function internalError(http?: ErrorHttp): GraphQLError {
  return budgetError(
    'The query budget could not be decided because of an error on the server.',
    BudgetErrorCode.INTERNAL_SERVER_ERROR,
    http,
  );
}

export function budgetUnavailableError(retryAfterMs: number, http?: ErrorHttp): GraphQLError {
  const retry = retryAfterSeconds(retryAfterMs);
  return budgetError(
    `The query budget service is unavailable, so this operation was not run. Retry in ${retry} s.`,
    BudgetErrorCode.BUDGET_UNAVAILABLE,
    http,
    { retryAfter: retry },
  );
}
