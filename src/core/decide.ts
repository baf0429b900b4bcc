import type { BucketPolicy, BucketResult } from '../bucket/types.js';
import type { Budget } from './budget.js';
import type { BucketCharge } from './charge.js';
import {
  budgetUnavailableError,
  costAnalysisError,
  dryRunLimitedError,
  nestedDryRunError,
  rateLimitedError,
  retryAfterSeconds,
  tooExpensiveError,
  type CostErrorRecord,
} from './errors.js';
import type { ResolvedLimit } from './limits.js';
import { CostResult, type StoreErrorPolicy } from './outcomes.js';
import { setRateLimitView } from './rate-limit-field.js';
import { RETRY_AFTER_HEADER } from './rate-limit-headers.js';
import type { BudgetRequest } from './request.js';
import type { ASTNode } from 'graphql';

/** When the store gives no wait of its own (it did not answer): the `Retry-After` of a 503. */
const UNAVAILABLE_RETRY_MS = 1000;

/**
 * Step 4 of the request path: the decision. Turns what pricing and charging came to into what
 * happens to the operation: it runs (and its `rateLimit` field reads the buckets after the charge),
 * or it is refused with the error the server returns (429 `RATE_LIMITED` with `Retry-After`, 400
 * for an operation too expensive or not priceable, 503 `BUDGET_UNAVAILABLE` under
 * `onStoreError: 'deny'`). Each refusal's HTTP part is the server's own (`BudgetRequest.http`); in a
 * batch, whose members share one HTTP response, it carries no `Retry-After` of its own.
 */
export class Decider {
  readonly #onStoreError: StoreErrorPolicy;
  readonly #dryRunPolicy: BucketPolicy | undefined;

  constructor(onStoreError: StoreErrorPolicy, dryRunPolicy: BucketPolicy | undefined) {
    this.#onStoreError = onStoreError;
    this.#dryRunPolicy = dryRunPolicy;
  }

  /** The operation cannot be priced: the client's mistake, HTTP 400. */
  notPriced<TArgs>(budget: Budget, request: BudgetRequest<TArgs>, error: CostErrorRecord): void {
    budget.result = CostResult.QUERY_PARSE_FAILURE;
    budget.rejection = costAnalysisError(error, request.http(400, {}), request.document.loc?.source);
  }

  /** Its estimate is above the largest cost one operation may have: HTTP 400, before any store call. */
  tooExpensive<TArgs>(budget: Budget, request: BudgetRequest<TArgs>, maximum: number): void {
    budget.result = CostResult.ESTIMATED_TOO_EXPENSIVE;
    budget.rejection = tooExpensiveError({
      estimatedCost: budget.requested,
      maxCost: maximum,
      http: request.http(400, {}),
    });
  }

  /** `rateLimit(dryRun: true)` below the root: HTTP 400. */
  nestedDryRun<TArgs>(budget: Budget, request: BudgetRequest<TArgs>, node: ASTNode): void {
    budget.result = CostResult.QUERY_PARSE_FAILURE;
    budget.rejection = nestedDryRunError(node, request.http(400, {}));
  }

  /** What the charge (or a dry run's read) came to. */
  charged<TArgs>(budget: Budget, request: BudgetRequest<TArgs>, charged: BucketCharge): void {
    const { dryRunRefused } = charged;
    if (dryRunRefused !== undefined) {
      budget.result = CostResult.RATE_LIMITED;
      budget.rejection = dryRunLimitedError({
        capacity: dryRunRefused.capacity,
        refillPerSecond: (this.#dryRunPolicy as BucketPolicy).refillPerSecond,
        retryAfterMs: dryRunRefused.retryAfterMs,
        http: request.http(429, retryAfter(request, dryRunRefused.retryAfterMs)),
      });
      return;
    }
    budget.charge = charged.charge;
    budget.view = charged.view;
    budget.deniedLocally = charged.deniedLocally;
    const { view } = charged;
    if (view === undefined) {
      budget.result = CostResult.BUDGET_UNAVAILABLE;
      if (this.#onStoreError !== 'deny') return;
      const retryAfterMs =
        charged.charge?.status === 'unavailable' ? charged.charge.retryAfterMs : UNAVAILABLE_RETRY_MS;
      budget.rejection = budgetUnavailableError(retryAfterMs, request.http(503, retryAfter(request, retryAfterMs)));
      return;
    }
    const binding = budget.limits[view.binding] as ResolvedLimit;
    const bucket = view.results[view.binding] as BucketResult;
    if (!view.allowed) {
      budget.result = CostResult.RATE_LIMITED;
      budget.rejection = rateLimitedError({
        cost: budget.requested,
        remaining: bucket.remaining,
        capacity: binding.policy.capacity,
        refillPerSecond: binding.policy.refillPerSecond,
        retryAfterMs: view.retryAfterMs,
        bucket: budget.listed ? binding.name : undefined,
        http: request.http(429, retryAfter(request, view.retryAfterMs)),
      });
      return;
    }
    setRateLimitView(request.contextValue, {
      cost: budget.requested,
      capacity: binding.policy.capacity,
      remaining: bucket.remaining,
      resetAfterMs: bucket.resetAfterMs,
      now: Date.now(),
    });
  }
}

/** A refusal's `Retry-After`: none in a batch (one HTTP response for all) or when the wait is endless. */
function retryAfter<TArgs>(request: BudgetRequest<TArgs>, retryAfterMs: number): Record<string, string> {
  if (request.batched || !(retryAfterMs >= 0)) return {};
  return { [RETRY_AFTER_HEADER]: String(retryAfterSeconds(retryAfterMs)) };
}
