import type { BudgetPacer } from './budget-pacer.js';
import type { ResponseBudget } from './read-budget.js';

/** A wait the helper is about to make, as `onWait` hears of it. */
export interface BudgetWait {
  /** `'pace'`: before sending, the bucket would not hold the operation; `'retry'`: after a refusal. */
  reason: 'pace' | 'retry';
  /** How long, in ms (for `'pace'`, the estimate when the wait starts). */
  ms: number;
  /** The operation's name, when it has one. */
  operationName: string | null;
  /** The retry this wait leads to (1 for the first), or 0 for a wait before the first send. */
  attempt: number;
}

/**
 * How a client helper (`budgetLinkHandler`, `budgetExchange`, `budgetFetch`) backs off. One helper
 * stands for one caller: its pacing learns that caller's bucket from the responses it sees.
 */
export interface BudgetClientOptions {
  /**
   * Retries of one operation after a refusal that says when to come back: a 429 (`RATE_LIMITED`), a
   * 503 (`BUDGET_UNAVAILABLE`), with `Retry-After` or `extensions.retryAfter`. 0 never retries.
   * A 400 (too expensive, cannot be priced) is never retried.
   * @default 3
   */
  maxRetries?: number;
  /**
   * The longest one operation waits in all, pacing and retries together, in ms. A refusal whose
   * wait would go past it is handed back at once, as the server sent it; a pacing wait that would,
   * is skipped (the operation is sent, and the server decides).
   * @default 30_000
   */
  maxWaitMs?: number;
  /**
   * Retry mutations too. A refused mutation did not run (the server takes nothing and runs
   * nothing on a 429), but a retry sent through several proxies may be seen twice: off unless the
   * application's mutations are idempotent. Pacing waits before mutations either way.
   * @default false
   */
  retryMutations?: boolean;
  /**
   * Pace: wait before sending an operation that the caller's bucket would not hold, from what the
   * last response said (tokens left, refill rate) and the operation's price when it was last sent,
   * as GitHub's octokit throttling does. An operation whose price is not known yet, or sent before
   * any response was seen, goes out alone once the operations already sent have been answered.
   * Give every helper of one caller the same `budgetPacer()`.
   * @default undefined (no pacing: an operation is sent at once, and retried if refused)
   */
  pacer?: BudgetPacer;
  /** Cancels every wait of this helper: a waiting operation then fails with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Called with the budget of every response that carries one (a refusal too, before any retry),
   * e.g. to show "x of y tokens left". What it throws is rethrown outside the request.
   */
  onBudget?: (budget: ResponseBudget, operationName: string | null) => void;
  /** Called before each wait, with its reason and length. What it throws is rethrown outside the request. */
  onWait?: (wait: BudgetWait) => void;
}

/** The options with their defaults. */
export interface ClientSettings
  extends Required<Omit<BudgetClientOptions, 'pacer' | 'signal' | 'onBudget' | 'onWait'>> {
  pacer: BudgetPacer | undefined;
  signal: AbortSignal | undefined;
  onBudget: BudgetClientOptions['onBudget'];
  onWait: BudgetClientOptions['onWait'];
}

const KINDS: Record<string, string> = {
  maxRetries: 'number',
  maxWaitMs: 'number',
  retryMutations: 'boolean',
  pacer: 'object',
  signal: 'object',
  onBudget: 'function',
  onWait: 'function',
};

/**
 * Checks `options` (and the helper's own, named in `extra` with their `typeof`), throwing a
 * TypeError or RangeError that names the option, and applies the defaults.
 */
export function clientSettings(
  helper: string,
  options: BudgetClientOptions = {},
  extra: Record<string, string> = {},
): ClientSettings {
  for (const [name, value] of Object.entries(options)) {
    const kind = KINDS[name] ?? extra[name];
    if (kind === undefined || (value !== undefined && typeof value !== kind)) {
      throw new TypeError(
        `${helper}: option "${name}" ${kind ? `must be of type ${kind}; got ${typeof value}` : 'is unknown'}.`,
      );
    }
  }
  const maxRetries = options.maxRetries ?? 3;
  const maxWaitMs = options.maxWaitMs ?? 30_000;
  // A whole number of retries, a wait in ms; both ≥ 0 (NaN is neither).
  for (const [name, value] of Object.entries({ maxRetries, maxWaitMs })) {
    if (!(value >= 0) || (name === 'maxRetries' && !Number.isInteger(value))) {
      throw new RangeError(
        `${helper}: option "${name}" must be a ${name === 'maxRetries' ? 'whole ' : ''}number ≥ 0; got ${value}.`,
      );
    }
  }
  return {
    maxRetries,
    maxWaitMs,
    retryMutations: options.retryMutations ?? false,
    pacer: options.pacer,
    signal: options.signal,
    onBudget: options.onBudget,
    onWait: options.onWait,
  };
}
