import type { Budget, Settlement } from './budget.js';
import { settledView } from './charge.js';
import type { DebtLedger } from './debt-ledger.js';
import type { GuardedStore } from './guarded-store.js';
import type { OperationPricer } from './price.js';
import type { BudgetRequest, BudgetResponse } from './request.js';

/**
 * Step 5 of the request path: the settlement, once the operation has executed. The charge becomes
 * the price of the work the response shows (`OperationPricer.actualCharge`, which counts every item
 * the response holds, whatever its size): a list shorter than priced is refunded, one longer is
 * charged its excess (into debt where the buckets lack it). Where the response may hide work (an
 * error touched it, its root is null, or parts of it are missing: incremental delivery, an
 * execution cut short), nothing is refunded below the estimate, and what an error hid counts at its
 * estimate at its place.
 *
 * Nothing is settled for an operation that did not execute (refused in enforce mode, or a response
 * with no `data` at all: graphql-js runs no resolver then), a dry run, an operation free by
 * decision (introspection alone), or one that was not priced; an operation priced 0 is settled like
 * any other.
 */
export class Settler<TArgs> {
  readonly #pricer: OperationPricer<TArgs>;
  readonly #guard: GuardedStore;
  readonly #debts: DebtLedger;

  constructor(pricer: OperationPricer<TArgs>, guard: GuardedStore, debts: DebtLedger) {
    this.#pricer = pricer;
    this.#guard = guard;
    this.#debts = debts;
  }

  async settle(budget: Budget, request: BudgetRequest<TArgs>, response: BudgetResponse): Promise<Settlement> {
    const started = performance.now();
    const executed = budget.rejection === undefined || budget.mode === 'measure';
    let charged: number | null = 0;
    let actual: number | null = null;
    if (executed && budget.priced && budget.dryRun === undefined && !budget.free) {
      ({ charged, actual } = this.#charged(budget, request, response));
      const { charge, limits } = budget;
      const difference = budget.requested - charged;
      const tokensTaken = charge?.status === 'answered' && charge.answer.allowed;
      if (tokensTaken && difference !== 0 && budget.view !== undefined) {
        const { logger } = request;
        // A refund goes where the charge was taken, and one the store does not answer is lost (the
        // caller paid the estimate). A take is the store's, even where the in-process stand-in took
        // the charge while the store was away: one it does not answer is owed to it (and taken from
        // the stand-in too), so no outage forgives it.
        const after =
          difference > 0
            ? await this.#guard.refund(charge.store, limits, difference, logger)
            : await this.#debts.take(this.#guard, this.#guard.primary, limits, -difference, logger);
        if (after) budget.view = settledView(budget.view, after);
      }
    }
    return { charged, actual, executed, settleMs: performance.now() - started };
  }

  /** What the operation is finally charged, and its actual cost (null where it cannot be measured). */
  #charged(
    budget: Budget,
    request: BudgetRequest<TArgs>,
    response: BudgetResponse,
  ): { charged: number; actual: number | null } {
    const { data, errors, incomplete } = response;
    // graphql-js returns no `data` only when it ran no resolver; an execution cut short may have run some.
    if (data === undefined)
      return incomplete ? { charged: budget.requested, actual: null } : { charged: 0, actual: null };
    const actual = this.#pricer.actualCharge(request, response, budget.plan);
    if (actual === undefined) return { charged: budget.requested, actual: null };
    const hidden = incomplete || data === null || (errors !== null && errors.length > 0);
    return { charged: hidden ? Math.max(actual, budget.requested) : actual, actual };
  }
}
