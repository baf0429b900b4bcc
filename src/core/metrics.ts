import { createRequire } from 'node:module';
import { VERSION } from '../version.js';
import { CostResult, type BudgetMode, type StoreOutcome } from './outcomes.js';

/**
 * OpenTelemetry metrics of the plugin, through `@opentelemetry/api` when it is installed (an optional
 * peer). Without it, or without an SDK registered with it, every call is a no-op: the API hands out
 * no-op instruments, and without the package the plugin holds none at all.
 *
 * Names and attribute values follow Apollo Router's demand-control metrics, so dashboards built for
 * the Router read these: histograms `cost.estimated`, `cost.actual`, `cost.delta` (estimated −
 * actual), unit `{cost}`, attribute `cost.result` (`CostResult`), plus `budget.mode` and, only when
 * asked for, `graphql.operation.name`. The client chooses operation names, so that attribute is
 * bounded: it is set only for operations that were priced and admitted (`COST_OK`), to the first
 * `maxOperationNames` distinct names of at most 64 characters, and to `OTHER_OPERATION_NAME` for
 * any other name. Store health: histogram `budget.store.duration` (s) by
 * `outcome`, and counter `budget.breaker.transitions` by partition and new state.
 *
 * Instruments are created once, when the server starts (`start`, from `serverWillStart`), with the
 * meter `graphql-budget` at this package's version: an SDK registered any time before the server
 * starts is the one used (the API hands out the meter of the provider registered at that moment).
 * Attribute objects are built once per (result, mode) and per outcome, not per request (unless
 * the operation name is on).
 */
export class BudgetMetrics {
  #estimated: Histogram | undefined;
  #actual: Histogram | undefined;
  #delta: Histogram | undefined;
  #underestimated: Counter | undefined;
  #storeDuration: Histogram | undefined;
  #breakerTransitions: Counter | undefined;
  readonly #operationName: boolean;
  readonly #maxOperationNames: number;
  /** `${result}|${mode}` → its attributes. */
  readonly #costAttributes = new Map<string, Attributes>();
  /** `${mode}|${name}` → the attributes of an admitted operation of that name (bounded with the names). */
  readonly #namedAttributes = new Map<string, Attributes>();
  /** The operation names recorded so far (at most `maxOperationNames`). */
  readonly #names = new Set<string>();
  readonly #storeAttributes = new Map<StoreOutcome, Attributes>();

  constructor(options: { operationName: boolean; maxOperationNames: number }) {
    this.#operationName = options.operationName;
    this.#maxOperationNames = options.maxOperationNames;
  }

  /** Creates the instruments from the meter provider registered now (once; later calls do nothing). */
  start(): void {
    if (this.#estimated !== undefined) return;
    const api = loadOpenTelemetry();
    if (api === undefined) return;
    const meter = api.metrics.getMeter('graphql-budget', VERSION);
    const cost = (name: string, description: string): Histogram =>
      meter.createHistogram(name, { unit: '{cost}', description });
    this.#estimated = cost('cost.estimated', 'Estimated cost of each priced operation, rejected ones included.');
    this.#actual = cost('cost.actual', 'Actual cost of each executed operation, from what it returned.');
    this.#delta = cost('cost.delta', 'Estimated minus actual cost of each executed operation.');
    this.#underestimated = meter.createCounter('budget.cost.underestimated', {
      unit: '{operation}',
      description: 'Executed operations whose actual cost exceeded their estimate (a list longer than its @listSize).',
    });
    this.#storeDuration = meter.createHistogram('budget.store.duration', {
      unit: 's',
      description: 'Time of each bucket-store call made for an operation, by outcome.',
      advice: { explicitBucketBoundaries: STORE_SECONDS_BUCKETS },
    });
    this.#breakerTransitions = meter.createCounter('budget.breaker.transitions', {
      unit: '{transition}',
      description: 'State changes of the circuit breakers in front of the bucket store, by partition.',
    });
    for (const result of Object.values(CostResult)) {
      for (const mode of ['enforce', 'measure'] as const) {
        this.#costAttributes.set(`${result}|${mode}`, { 'cost.result': result, 'budget.mode': mode });
      }
    }
    for (const outcome of ['ok', 'timeout', 'error', 'breaker_open', 'fallback'] as const) {
      this.#storeAttributes.set(outcome, { outcome });
    }
  }

  /** An operation was priced: its estimate, and for an executed one its actual cost. */
  recordOperation(input: {
    result: CostResult;
    mode: BudgetMode;
    operationName: string | null;
    estimated: number;
    actual: number | null;
  }): void {
    if (this.#estimated === undefined) return;
    let attributes = this.#costAttributes.get(`${input.result}|${input.mode}`) as Attributes;
    if (this.#operationName && input.result === CostResult.OK) {
      attributes = this.#named(attributes, input.mode, this.#nameOf(input.operationName ?? ''));
    }
    this.#estimated.record(input.estimated, attributes);
    if (input.actual === null) return;
    this.#actual?.record(input.actual, attributes);
    const delta = input.estimated - input.actual;
    // Histograms take no negative values (the SDK drops them): an underestimate is counted instead.
    if (delta >= 0) this.#delta?.record(delta, attributes);
    else this.#underestimated?.add(1, attributes);
  }

  /** The attribute value for an operation name: itself while the names are within their bound. */
  #nameOf(name: string): string {
    if (this.#names.has(name)) return name;
    if (name.length > MAX_OPERATION_NAME_LENGTH || this.#names.size >= this.#maxOperationNames) {
      return OTHER_OPERATION_NAME;
    }
    this.#names.add(name);
    return name;
  }

  #named(attributes: Attributes, mode: BudgetMode, name: string): Attributes {
    const id = `${mode}|${name}`;
    let named = this.#namedAttributes.get(id);
    if (named === undefined) {
      named = { ...attributes, 'graphql.operation.name': name };
      this.#namedAttributes.set(id, named);
    }
    return named;
  }

  /** One store call and what came of it. */
  recordStoreCall(outcome: Exclude<StoreOutcome, 'not_called' | 'deny_cache'>, seconds: number): void {
    const attributes = this.#storeAttributes.get(outcome);
    if (attributes !== undefined) this.#storeDuration?.record(seconds, attributes);
  }

  /** A circuit breaker changed state. */
  recordBreakerTransition(partition: string, state: 'open' | 'half-open' | 'closed'): void {
    this.#breakerTransitions?.add(1, { 'budget.store.partition': partition, 'budget.breaker.state': state });
  }
}

type Attributes = Record<string, string>;

/** `graphql.operation.name` of every operation name beyond the bound (or longer than 64 characters). */
export const OTHER_OPERATION_NAME = '(other)';
const MAX_OPERATION_NAME_LENGTH = 64;

/** Histogram buckets for store calls: a Redis round trip is sub-millisecond, a deadline tens of ms. */
const STORE_SECONDS_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/** The parts of `@opentelemetry/api` used here, typed locally so no public type depends on the package. */
interface Histogram {
  record(value: number, attributes?: Attributes): void;
}
interface Counter {
  add(value: number, attributes?: Attributes): void;
}
interface Meter {
  createHistogram(
    name: string,
    options: { unit: string; description: string; advice?: { explicitBucketBoundaries: number[] } },
  ): Histogram;
  createCounter(name: string, options: { unit: string; description: string }): Counter;
}
interface OpenTelemetryApi {
  metrics: { getMeter(name: string, version: string): Meter };
}

let api: OpenTelemetryApi | null | undefined;

/**
 * `@opentelemetry/api`, loaded on first use with `require` (synchronous, in both builds; never a
 * top-level await), or undefined when it is not installed. It keeps its registry on the global
 * object, so the SDK the application registered is found whichever way either side loaded it.
 */
function loadOpenTelemetry(): OpenTelemetryApi | undefined {
  if (api === undefined) {
    try {
      api = createRequire(import.meta.url)('@opentelemetry/api') as OpenTelemetryApi;
    } catch {
      api = null;
    }
  }
  return api ?? undefined;
}
