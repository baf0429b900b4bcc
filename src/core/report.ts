import type { Budget, Settlement } from './budget.js';
import type { BudgetDecision, DecisionNotifier } from './decision-event.js';
import type { BudgetMetrics } from './metrics.js';

/**
 * Step 7 of the request path: the report. Tells the operator what was decided, once per operation after its response: the OpenTelemetry
 * metrics (`BudgetMetrics`) and the `onDecision` hook (`DecisionNotifier`), both optional.
 */
export class DecisionReporter {
  readonly #metrics: BudgetMetrics | undefined;
  #notifier: DecisionNotifier | undefined;

  constructor(metrics: BudgetMetrics | undefined) {
    this.#metrics = metrics;
  }

  /** Set when the server starts (the hook logs through the server's logger). */
  set notifier(notifier: DecisionNotifier | undefined) {
    this.#notifier = notifier;
  }

  report(operationName: string | null, budget: Budget, settlement: Settlement): void {
    this.#metrics?.recordOperation({
      result: budget.result,
      mode: budget.mode,
      operationName,
      estimated: budget.requested,
      actual: settlement.executed ? settlement.actual : null,
    });
    const notifier = this.#notifier;
    if (notifier === undefined) return;
    const { charge, view, limits } = budget;
    const binding = limits[view?.binding ?? 0];
    const retryAfterMs =
      budget.rejection === undefined
        ? null
        : charge?.status === 'unavailable'
          ? charge.retryAfterMs
          : view !== undefined && !view.allowed
            ? view.retryAfterMs
            : null;
    const remaining = view?.results[view.binding]?.remaining;
    const decision: BudgetDecision = {
      key: budget.key,
      policy: binding?.policy ?? null,
      bucket: binding?.name ?? null,
      operationName,
      mode: budget.mode,
      result: budget.result,
      requestedCost: budget.requested,
      actualCost: settlement.executed ? settlement.charged : null,
      remaining: remaining ?? null,
      retryAfterMs,
      store: budget.deniedLocally ? 'deny_cache' : (charge?.outcome ?? 'not_called'),
      pluginMs: budget.decideMs + settlement.settleMs,
    };
    notifier.notify(decision);
  }
}
