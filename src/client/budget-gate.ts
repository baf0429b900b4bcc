import { clientSettings, type BudgetClientOptions, type BudgetWait, type ClientSettings } from './client-options.js';
import type { ResponseBudget } from './read-budget.js';

/** An operation as the gate sees it. */
export interface GateOperation {
  /** What its price is remembered by (its document and name). */
  readonly key: unknown;
  readonly name: string | null;
  /** A mutation (or, for a batch, one that holds a mutation): not retried unless `retryMutations`. */
  readonly mutation: boolean;
}

/** What one send gave: the value to hand back, and the budget read from it. */
export interface Sent<T> {
  readonly value: T;
  readonly budget: ResponseBudget | null;
}

/** A user's callback runs outside the request: what it throws surfaces as an uncaught error. */
function call<A extends unknown[]>(callback: ((...args: A) => void) | undefined, ...args: A): void {
  try {
    callback?.(...args);
  } catch (error) {
    setTimeout(() => {
      throw error;
    });
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const abort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    }, ms);
    signal.addEventListener('abort', abort, { once: true });
  });
}

/** Codes whose refusal ran nothing and names a time to come back. */
const WAIT_CODES = /^(RATE_LIMITED|BUDGET_UNAVAILABLE)$/;

export interface BudgetGate {
  readonly settings: ClientSettings;
  /**
   * Sends `operation` with `send` until an answer is not a refusal worth waiting for, and hands back
   * the last value. `signals` (the request's own) and the helper's cancel the waits: the promise
   * then rejects with the signal's reason.
   */
  run<T>(
    operation: GateOperation,
    send: () => Promise<Sent<T>>,
    ...signals: (AbortSignal | null | undefined)[]
  ): Promise<T>;
}

/**
 * The part every client helper shares: pace before sending (when asked), send, read the budget,
 * and retry after the wait a refusal names, within the helper's bounds.
 */
export function createBudgetGate(
  helper: string,
  options?: BudgetClientOptions,
  extra?: Record<string, string>,
): BudgetGate {
  const settings = clientSettings(helper, options, extra);
  const { maxRetries, maxWaitMs, retryMutations, pacer, onBudget, onWait } = settings;

  /** The ms to wait before sending again, or null to hand the answer back. */
  const retryMs = (budget: ResponseBudget | null, operation: GateOperation, attempt: number, waited: number) => {
    if (budget?.retryAfter == null || budget.status === 400 || attempt >= maxRetries) return null;
    if (operation.mutation && !retryMutations) return null;
    const refused =
      budget.status === 429 ||
      budget.status === 503 ||
      (budget.operations.length > 0 && budget.operations.every((result) => WAIT_CODES.test(result.code ?? '')));
    const ms = budget.retryAfter * 1000;
    return refused && waited + ms <= maxWaitMs ? ms : null;
  };

  return {
    settings,
    async run(operation, send, ...signals) {
      const controller = new AbortController();
      const detach = [settings.signal, ...signals].map((source) => {
        const abort = (): void => controller.abort(source?.reason);
        if (source?.aborted) abort();
        source?.addEventListener('abort', abort);
        return () => source?.removeEventListener('abort', abort);
      });
      const wait = (ms: number, attempt: number, reason: BudgetWait['reason']): void =>
        call(onWait, { reason, ms, operationName: operation.name, attempt });
      let waited = 0;
      try {
        for (let attempt = 0; ; attempt++) {
          controller.signal.throwIfAborted();
          const since = performance.now();
          const ticket = await pacer?.acquire(
            operation.key,
            maxWaitMs - waited,
            (ms) => wait(ms, attempt, 'pace'),
            controller.signal,
          );
          waited += performance.now() - since;
          let sent: Awaited<ReturnType<typeof send>>;
          try {
            sent = await send();
          } catch (error) {
            if (ticket) pacer?.settle(ticket, null);
            throw error;
          }
          const { budget } = sent;
          if (ticket) pacer?.settle(ticket, budget);
          if (
            budget &&
            (budget.throttleStatus ?? budget.requestedQueryCost ?? budget.code ?? budget.retryAfter) !== null
          ) {
            call(onBudget, budget, operation.name);
          }
          const ms = retryMs(budget, operation, attempt, waited);
          if (ms === null) return sent.value;
          wait(ms, attempt + 1, 'retry');
          await sleep(ms, controller.signal);
          waited += ms;
        }
      } finally {
        for (const undo of detach) undo();
      }
    },
  };
}
