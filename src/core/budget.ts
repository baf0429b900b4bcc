import type { FieldNode, GraphQLError } from 'graphql';
import type { ResponsePlan } from '../cost/response-plan.js';
import type { FieldCostBreakdown } from '../cost/types.js';
import type { BucketsView } from './charge.js';
import type { Charge } from './guarded-store.js';
import type { RequestInputs } from './inputs.js';
import type { CostResult } from './outcomes.js';

/**
 * What the plugin decided for one operation, kept from `didResolveOperation` until its response is
 * sent: who pays, under which policy and mode (the inputs; `expose` is false when skipped), and
 * what was priced, charged and decided.
 */
export interface Budget extends RequestInputs {
  /** Tokens charged up front. */
  requested: number;
  /** Whether the operation was priced (false when the cost engine could not). */
  priced: boolean;
  /** Whether it is free by decision (introspection alone, `introspectionOnlyIsFree`): never settled. */
  free: boolean;
  /** The operation's compiled response walk, when its estimate came with one (see `ResponsePlan`). */
  plan: ResponsePlan | undefined;
  /** Per-field breakdown, when the caller may and did ask for it. */
  fields: FieldCostBreakdown[] | undefined;
  fieldsTruncated: boolean;
  /** undefined when the store was not asked (and the deny cache did not answer). */
  charge: Charge | undefined;
  /** The buckets as the caller is told about them (after the refund, once settled). */
  view: BucketsView | undefined;
  /** Whether this process's deny cache refused the operation without asking the store. */
  deniedLocally: boolean;
  /** The rejection (enforce mode: returned; measure mode: only reported). */
  rejection: GraphQLError | undefined;
  /** What was decided, as the metrics and `onDecision` say it. */
  result: CostResult;
  /** The `rateLimit(dryRun: true)` fields of a dry run (nothing charged, nothing else executed). */
  dryRun: FieldNode[] | undefined;
  /** Time spent deciding before execution (ms). */
  decideMs: number;
}

/** How the operation was settled after execution. */
export interface Settlement {
  /** Tokens finally charged (null: not measurable, nothing refunded; 0 when not executed). */
  charged: number | null;
  /** Actual cost of what it returned, when measured (may exceed the estimate). */
  actual: number | null;
  /** Whether it executed (or a cache answered it) rather than being refused. */
  executed: boolean;
  /** Time spent settling after execution (ms). */
  settleMs: number;
}
