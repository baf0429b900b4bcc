import type { CostEstimate, OperationMeter, ResolvedField, ResolvedValues, ValueCounter } from '../cost/types.js';

/**
 * One execution's meter (the cost engine's `OperationMeter`, fed by the schema's instrumentation,
 * field-meter.ts) and what is charged for it: up to the settlement, what the work so far is charged
 * (`charged()`); after it, the work metered beyond what it had counted at the settlement (resolvers
 * an error's null did not stop, list items settling late) is handed to `late`, at most once per turn
 * of the event loop, as the tokens still owed.
 */
export class MeteredExecution implements ValueCounter {
  readonly #meter: OperationMeter;
  /**
   * Whether the meter's count is what the response walk would find when no error touched the
   * response (see `OperationMeter.exact`; the operation being a query without introspection).
   */
  readonly exact: boolean;
  /**
   * Whether another execution reported to this meter too (two executions sharing one context
   * value): its count is then no measure of this operation's work, and is not used.
   */
  shared = false;
  readonly #charge: (cost: CostEstimate) => number;
  #settled: number | undefined;
  #late: ((amount: number) => void) | undefined;
  #flushing = false;

  constructor(meter: OperationMeter, exact: boolean, charge: (cost: CostEstimate) => number) {
    this.#meter = meter;
    this.exact = exact;
    this.#charge = charge;
  }

  /** A resolver call: returns how its values are counted (by `count`), or undefined. */
  resolving(info: ResolvedField, args: Readonly<Record<string, unknown>>): ResolvedValues | undefined {
    const values = this.#meter.resolving(info, args);
    if (this.#settled !== undefined) this.#schedule();
    return values;
  }

  count(values: ResolvedValues, instances: number): void {
    this.#meter.count(values, instances);
    if (this.#settled !== undefined) this.#schedule();
  }

  /** Whether the operation was settled (its execution, if not its late resolvers, is over). */
  get settled(): boolean {
    return this.#settled !== undefined;
  }

  /** What the work metered so far is charged. */
  charged(): number {
    return this.#charge(this.#meter.cost);
  }

  /**
   * The operation was settled, covering the work metered so far: what the meter counts from now on
   * (resolvers still running) goes to `late`.
   */
  settle(late: (amount: number) => void): void {
    this.#settled = this.charged();
    this.#late = late;
  }

  #schedule(): void {
    if (this.#flushing) return;
    this.#flushing = true;
    setImmediate(() => {
      this.#flushing = false;
      const now = this.charged();
      const settled = this.#settled as number;
      if (now > settled) {
        this.#settled = now;
        this.#late?.(now - settled);
      }
    });
  }
}
