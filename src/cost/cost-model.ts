import type { CostTable, TableReading } from './cost-table.js';
import type { ResolvedOperation } from './operation.js';
import type { ListSizeInference } from './relay-connections.js';
import type { ResponseError } from './error-paths.js';
import type { ResponsePlan } from './response-plan.js';
import type { CostEstimate, CostModelName } from './types.js';

/** The engine's settings, validated once (see `engineSettings`). */
export interface EngineSettings {
  /** How operations are priced, picked once from `costModel` (or `estimators`). */
  readonly model: CostModel;
  readonly supergraphSdl: string | undefined;
  readonly defaultListSize: number;
  readonly maxNodes: number;
  readonly maxListSize: number;
  /** Whether `__schema`, `__type` and everything below them cost nothing. */
  readonly introspectionIsFree: boolean;
  /** Whether the schema is refused when a list's size is bounded by nothing the schema says. */
  readonly strictListSizes: boolean;
  /** How fields without a `@listSize` get one (`inferListSizes`), undefined for none. */
  readonly inferListSizes: ListSizeInference | undefined;
}

/** One operation ready to be priced under one schema's cost table. */
export interface PricingInput {
  readonly table: CostTable;
  readonly operation: ResolvedOperation;
  readonly settings: EngineSettings;
}

/** A response to price (see `CostAnalyzer.actual`). */
export interface PricedResponse {
  readonly data: Readonly<Record<string, unknown>> | null | undefined;
  readonly errors: ReadonlyArray<ResponseError | null | undefined> | null | undefined;
  /** Parts of the response may be missing (incremental delivery): nothing is priced below its estimate. */
  readonly incomplete: boolean;
}

/**
 * How directives become a number: the estimate of an operation before it runs, and the price of a
 * response after it ran. One implementation per model (`ibm`, `apollo`, and graphql-query-complexity's
 * `estimators`), picked once when the options are read; nothing else asks which model is in use.
 *
 * The response walk of every model keeps the same guarantees (see `ActualRequest`): it counts every
 * item the response holds, whatever its size, and prices what an error hid at its estimate.
 */
export interface CostModel {
  readonly name: CostModelName;
  /** How the schema's directives are read for it (one cost table per schema and reading). */
  readonly reading: TableReading;
  /** Whether it reads every argument of the operation (graphql-query-complexity's estimators), not only those that price. */
  readonly readsEveryArgument: boolean;
  estimate(input: PricingInput, breakdown: boolean): CostEstimate;
  actual(input: PricingInput, response: PricedResponse): CostEstimate;
  /**
   * The walk of the operation's complete, error-free responses compiled once, pricing such a
   * response exactly as `actual` does, for a caller that keeps it per operation; undefined where the
   * model has none for the operation (or none at all), so `actual` prices every response.
   */
  plan?(input: PricingInput, maxFields: number): ResponsePlan | undefined;
}
