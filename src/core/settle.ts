import type { Budget, Settlement } from './budget.js';
import { settledView } from './charge.js';
import type { GuardedStore } from './guarded-store.js';
import type { MeteredExecution } from './metered-execution.js';
import type { OwedCharges } from './owed-charges.js';
import type { OperationPricer } from './price.js';
import type { BudgetRequest, BudgetResponse } from './request.js';

/**
 * Step 5 of the request path: the settlement, once the operation has executed. Only work not done
 * comes back: the charge becomes what the resolvers did (the execution's meter, or the response
 * walk where an error may hide work, never below what the meter saw), the difference from the
 * estimate is refunded, or taken when a list came back longer than priced, and what resolvers do
 * after the response (an error's null does not stop them) is taken as it finishes.
 *
 * Nothing is settled for an operation that did not execute (refused in enforce mode), a dry run,
 * an operation free by decision (introspection alone, `introspectionOnlyIsFree`), or one that was
 * not priced; an operation priced 0 is settled like any other.
 */
export class Settler<TArgs> {
  readonly #pricer: OperationPricer<TArgs>;
  readonly #guard: GuardedStore;
  readonly #owed: OwedCharges;

  constructor(pricer: OperationPricer<TArgs>, guard: GuardedStore, owed: OwedCharges) {
    this.#pricer = pricer;
    this.#guard = guard;
    this.#owed = owed;
  }

  async settle(
    budget: Budget,
    request: BudgetRequest<TArgs>,
    response: BudgetResponse,
    metered: MeteredExecution | undefined,
  ): Promise<Settlement> {
    const started = performance.now();
    const { charge, limits } = budget;
    const executed = budget.rejection === undefined || budget.mode === 'measure';
    let charged: number | null = 0;
    let actual: number | null = null;
    if (executed && budget.priced && !budget.dryRun && !budget.free) {
      ({ charged, actual } = this.#pricer.settledCharge(request, response, budget.requested, metered));
      const difference = charged === null ? 0 : budget.requested - charged;
      const tokensTaken = charge?.status === 'answered' && charge.answer.allowed;
      const { logger } = request;
      if (tokensTaken && metered !== undefined) {
        // Charged `charged`, or its estimate when that cannot be measured (incremental delivery):
        // the work metered beyond it, now or later, is taken as the meter counts it. An operation
        // that never executed owes only what resolvers might still start.
        const executedNothing = response.data === undefined && !response.incremental;
        metered.settle(
          (amount) => {
            void this.#owed.take(charge.store, limits, amount, logger);
          },
          executedNothing ? undefined : (charged ?? budget.requested),
        );
      }
      if (tokensTaken && difference !== 0 && budget.view !== undefined) {
        const after =
          difference > 0
            ? await this.#guard.refund(charge.store, limits, difference, logger)
            : await this.#owed.take(charge.store, limits, -difference, logger);
        if (after) budget.view = settledView(budget.view, after);
      }
    }
    // Settled whatever was charged: a later execution with the same context value may take its place.
    if (metered !== undefined && !metered.settled) metered.settle(() => {}, undefined);
    return { charged, actual, executed, settleMs: performance.now() - started };
  }
}
