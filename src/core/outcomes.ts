/** `'enforce'` rejects what does not fit; `'measure'` charges the same way but never rejects. */
export type BudgetMode = 'enforce' | 'measure';

/** What happens to a request when the bucket store errors or misses its deadline. */
export type StoreErrorPolicy = 'allow' | 'deny' | 'local';

/**
 * What was decided for an operation: the values of the `cost.result` metric attribute and of
 * `BudgetDecision.result`. The first three are Apollo Router's (its demand control's `cost.result`),
 * so dashboards built for the Router read them; the others say what the Router has no word for.
 */
export const CostResult = {
  /** The operation fit its budget (or measure mode let it run and nothing would have refused it). */
  OK: 'COST_OK',
  /** Its estimate exceeds the largest cost one operation may have (HTTP 400). */
  ESTIMATED_TOO_EXPENSIVE: 'COST_ESTIMATED_TOO_EXPENSIVE',
  /** It could not be priced: work cap, invalid variables, a missing slicing argument (HTTP 400). */
  QUERY_PARSE_FAILURE: 'COST_QUERY_PARSE_FAILURE',
  /** The caller's budget did not hold its cost (HTTP 429). */
  RATE_LIMITED: 'RATE_LIMITED',
  /** The store did not answer and nothing in this process decided: `'deny'` (503) or `'allow'` (run uncharged). */
  BUDGET_UNAVAILABLE: 'BUDGET_UNAVAILABLE',
  /** `skip` said so: never charged. */
  SKIPPED: 'SKIPPED',
} as const;

export type CostResult = (typeof CostResult)[keyof typeof CostResult];

/**
 * What the store did for the operation's charge: answered (`ok`), missed its deadline (`timeout`),
 * failed (`error`), was not called because its circuit breaker is open (`breaker_open`), was
 * replaced by the in-process bucket (`fallback`, `onStoreError: 'local'`), was not asked because this
 * process's deny cache refused the operation (`deny_cache`), or was never asked (`not_called`:
 * skipped, too expensive, not priced).
 */
export type StoreOutcome = 'ok' | 'timeout' | 'error' | 'breaker_open' | 'fallback' | 'deny_cache' | 'not_called';
