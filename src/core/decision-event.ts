import type { BucketPolicy } from '../bucket/types.js';
import type { BudgetMode, CostResult, StoreOutcome } from './outcomes.js';

/** The argument of `onDecision`: one operation's decision, after its response. */
export interface BudgetDecision {
  /** The caller's key from `identify`; null when the operation was skipped before identification. */
  readonly key: string | null;
  /** The policy of the bucket that binds (the caller's policy when there is one); null when skipped. */
  readonly policy: BucketPolicy | null;
  /** The name of the bucket that binds (`policyName` for a single policy); null when skipped. */
  readonly bucket: string | null;
  readonly operationName: string | null;
  readonly mode: BudgetMode;
  readonly result: CostResult;
  /** Tokens charged up front (the estimate through `cost`); 0 when not priced. */
  readonly requestedCost: number;
  /** Tokens finally charged after execution (after the refund); null when not executed or not measurable. */
  readonly actualCost: number | null;
  /** Tokens left in the bucket that binds after the operation; null when no bucket answered. */
  readonly remaining: number | null;
  /** When refused with 429 or 503: milliseconds until it is worth trying again; otherwise null. */
  readonly retryAfterMs: number | null;
  /** What the store did for the charge. */
  readonly store: StoreOutcome;
  /** Time the plugin added to the request, deciding before execution and settling after (ms). */
  readonly pluginMs: number;
}

type Logger = { error(message: string): void };

/** Errors of the hook are logged at most once per this many ms; the others are counted. */
export const HOOK_ERROR_LOG_INTERVAL_MS = 10_000;

/**
 * Calls `onDecision` outside the request's path: on a later turn of the event loop (`setImmediate`,
 * after the response has been handed to the HTTP layer), never awaited by the request. What the
 * hook throws or rejects with is logged once per burst.
 */
export class DecisionNotifier {
  readonly #hook: (decision: BudgetDecision) => void | Promise<void>;
  readonly #logger: Logger;
  readonly #now: () => number;
  #lastLoggedAt = Number.NEGATIVE_INFINITY;
  #suppressed = 0;

  constructor(hook: (decision: BudgetDecision) => void | Promise<void>, logger: Logger, now = () => performance.now()) {
    this.#hook = hook;
    this.#logger = logger;
    this.#now = now;
  }

  notify(decision: BudgetDecision): void {
    setImmediate(() => {
      try {
        const returned = this.#hook(decision);
        if (returned !== undefined && typeof (returned as Promise<void>).then === 'function') {
          (returned as Promise<void>).then(undefined, (error: unknown) => this.#failed(error));
        }
      } catch (error) {
        this.#failed(error);
      }
    });
  }

  #failed(error: unknown): void {
    const now = this.#now();
    if (now - this.#lastLoggedAt < HOOK_ERROR_LOG_INTERVAL_MS) {
      this.#suppressed += 1;
      return;
    }
    const others = this.#suppressed > 0 ? ` (${this.#suppressed} more failures since the last one logged)` : '';
    this.#lastLoggedAt = now;
    this.#suppressed = 0;
    this.#logger.error(
      `graphql-budget: onDecision failed${others}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
  }
}
