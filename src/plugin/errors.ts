import { GraphQLError } from 'graphql';
import type { HeaderMap } from '@apollo/server';

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
  code: BudgetErrorCode,
  http: ErrorHttp,
  extra: Record<string, unknown> = {},
): GraphQLError {
  return withoutStack(new GraphQLError(message, { extensions: { code, ...extra, http } }));
}

function withoutStack(error: GraphQLError): GraphQLError {
  Object.defineProperty(error, 'stack', { value: undefined, writable: true, configurable: true });
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
  http: ErrorHttp;
}): GraphQLError {
  const retry =
    Number.isFinite(input.retryAfterMs) && input.retryAfterMs >= 0 ? retryAfterSeconds(input.retryAfterMs) : null;
  const when = retry === null ? 'Your budget does not refill.' : `Retry in ${retry} s.`;
  return budgetError(
    `This operation costs ${input.cost} but only ${Math.floor(input.remaining)} of your ${input.capacity} budget tokens are ` +
      `left (refilling ${input.refillPerSecond} per second). ${when}`,
    BudgetErrorCode.RATE_LIMITED,
    input.http,
    retry === null ? {} : { retryAfter: retry },
  );
}

export function tooExpensiveError(input: { estimatedCost: number; maxCost: number; http: ErrorHttp }): GraphQLError {
  return budgetError(
    `This operation's estimated cost ${input.estimatedCost} exceeds the maximum ${input.maxCost} allowed for one operation. ` +
      'Ask for fewer items (smaller list arguments such as `first`) or split the operation.',
    BudgetErrorCode.COST_ESTIMATED_TOO_EXPENSIVE,
    input.http,
    { estimatedCost: input.estimatedCost, maxCost: input.maxCost },
  );
}

/**
 * The cost engine could not price the operation. Its own `GraphQLError`s (work cap, invalid
 * variables) keep their message, locations and code; anything else becomes `COST_ANALYSIS_FAILED`.
 * Either way the status is 400: the request, not the server, is at fault.
 */
export function costAnalysisError(cause: unknown, http: ErrorHttp): GraphQLError {
  if (cause instanceof GraphQLError && typeof cause.extensions.code === 'string') {
    return withoutStack(
      new GraphQLError(cause.message, { nodes: cause.nodes, extensions: { ...cause.extensions, http } }),
    );
  }
  const detail = cause instanceof Error ? cause.message : String(cause);
  return budgetError(
    `The cost of this operation could not be computed: ${detail}`,
    BudgetErrorCode.COST_ANALYSIS_FAILED,
    http,
  );
}

export function budgetUnavailableError(retryAfterMs: number, http: ErrorHttp): GraphQLError {
  const retry = retryAfterSeconds(retryAfterMs);
  return budgetError(
    `The query budget service is unavailable, so this operation was not run. Retry in ${retry} s.`,
    BudgetErrorCode.BUDGET_UNAVAILABLE,
    http,
    { retryAfter: retry },
  );
}
