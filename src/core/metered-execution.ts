import type { OperationDefinitionNode } from 'graphql';
import type { CostEstimate, OperationMeter, ResolvedField, ResolvedValues, ValueCounter } from '../cost/types.js';

/**
 * One execution's meter (the cost engine's `OperationMeter`, fed by the schema's instrumentation,
 * field-meter.ts) and what is charged for it: up to the settlement, what the work so far is charged
 * (`charged()`); after it, the work metered beyond what the operation was charged at the settlement
 * (resolvers an error's null did not stop, list items settling late, deferred and streamed parts of
 * an incremental result) is handed to `late`, at most once per turn of the event loop, as the
 * tokens still owed.
 */
export class MeteredExecution implements ValueCounter {
  readonly #meter: OperationMeter;
  /**
   * Whether the meter's count is what the response walk would find when no error touched the
   * response (see `OperationMeter.exact`; the operation being a query without introspection).
   */
  readonly exact: boolean;
  /** The operation executed: what tells this execution's resolvers from another's on a shared context value. */
  readonly operation: OperationDefinitionNode;
  /** The request's raw variables: what tells apart executions of one operation on a shared context value. */
  readonly variables: Readonly<Record<string, unknown>> | undefined;
  /**
   * The execution's coerced variables object, learned at its first metered call: what tells its
   * resolver calls from another execution's on a shared context value (field-meter.ts).
   */
  execution: unknown;
  readonly #charge: (cost: CostEstimate) => number;
  #settled: number | undefined;
  #late: ((amount: number) => void) | undefined;
  #flushing = false;

  constructor(
    meter: OperationMeter,
    exact: boolean,
    operation: OperationDefinitionNode,
    variables: Readonly<Record<string, unknown>> | undefined,
    charge: (cost: CostEstimate) => number,
  ) {
    this.#meter = meter;
    this.exact = exact;
    this.operation = operation;
    this.variables = variables;
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
   * The operation was settled: it was charged `charged` tokens (undefined: what the work metered so
   * far is charged). What the meter's count goes beyond that, now or as resolvers still running
   * finish, goes to `late`.
   */
  settle(late: (amount: number) => void, charged: number | undefined): void {
    const now = this.charged();
    this.#settled = charged ?? now;
    this.#late = late;
    if (now > this.#settled) this.#schedule();
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
