import type { ExecutionMeter, ResolvedField } from '../cost/execution-meter.js';
import type { CostEstimate } from '../cost/types.js';

/**
 * One execution's meter (the cost engine's `ExecutionMeter`, fed by the server's per-field hook)
 * and what is charged for it: up to the settlement, what the work so far is charged (`charged()`);
 * after it, the work metered beyond what it had counted at the settlement (resolvers an error's
 * null did not stop) is handed to `late`, at most once per turn of the event loop, as the tokens
 * still owed.
 */
export class MeteredExecution {
  readonly #meter: ExecutionMeter;
  /**
   * Whether the meter's count is what the response walk would find when no error touched the
   * response (see `ExecutionMeter.exact`; the operation being a query without introspection).
   */
  readonly exact: boolean;
  readonly #charge: (cost: CostEstimate) => number;
  #settled: number | undefined;
  #late: ((amount: number) => void) | undefined;
  #flushing = false;

  constructor(meter: ExecutionMeter, exact: boolean, charge: (cost: CostEstimate) => number) {
    this.#meter = meter;
    this.exact = exact;
    this.#charge = charge;
  }

  /** A resolver call: returns what to call with what it resolved to, or undefined. */
  resolving(
    info: ResolvedField,
    args: Readonly<Record<string, unknown>>,
  ): ((error: Error | null, result?: unknown) => void) | undefined {
    const returned = this.#meter.resolving(info, args);
    if (this.#settled !== undefined) this.#schedule();
    if (returned === undefined) return undefined;
    return (error, result) => {
      if (error !== null) return;
      returned(result);
      if (this.#settled !== undefined) this.#schedule();
    };
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
