import { getOperationAST, GraphQLError } from 'graphql';
import type { DocumentNode, ExecutionResult, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import type { BucketPolicy, BucketResult, BucketStore } from '../bucket/types.js';
import type { CostAnalyzerOptions, CostEstimate } from '../cost/types.js';
import { checkKnownOptions } from '../known-options.js';
import { requireNumber } from '../option-values.js';
import { BudgetedOperation } from './budgeted-operation.js';
import type { CostExtension } from './cost-extension.js';
import { documentKeyOf } from './document-key.js';
import type { BudgetLimit } from './limits.js';
import { consoleLogger, type BudgetLogger } from './logger.js';
import type { StoreErrorPolicy } from './outcomes.js';
import { RequestPath } from './request-path.js';
import { sharedStoreState } from './shared-store-state.js';
import type { BudgetRequest } from './request.js';
import { ValuesCache } from './values-cache.js';

/** Options of `chargeOperation`. */
export interface ChargeOperationOptions {
  schema: GraphQLSchema;
  document: DocumentNode;
  variables?: Readonly<Record<string, unknown>> | null;
  operationName?: string | null;
  /** Apollo's or graphql-ws's already-resolved operation, when at hand. */
  operation?: OperationDefinitionNode;
  /** The caller's bucket key (as `identify` would return it). */
  key: string;
  /** One bucket, or several charged together all-or-nothing (as the plugin's `policy`). */
  policy: BucketPolicy | readonly BudgetLimit[];
  store: BucketStore;
  /** What is charged for the estimate (and for the actual cost). @default `typeCost + fieldCost` */
  cost?: (estimate: CostEstimate) => number;
  /** Cost-engine options, as for `createCostAnalyzer` (the plugin's defaults unless given). */
  analyzer?: CostAnalyzerOptions;
  /** What happens when the store fails or misses its deadline, as the plugin's option. @default 'local' */
  onStoreError?: StoreErrorPolicy;
  /** Deadline of each store call (ms). @default 50 */
  timeoutMs?: number;
  /** Where faults and store trouble are logged. @default `console` (without debug lines) */
  logger?: BudgetLogger;
}

/** An operation `chargeOperation` admitted. */
export interface ChargedOperation {
  /** Tokens taken up front: the estimate through `cost` (0 where no store answered under `onStoreError: 'allow'`). */
  charged: number;
  /** The bucket that binds after the charge (fewest tokens left), or undefined where no store answered. */
  bucket: BucketResult | undefined;
  /**
   * Settles the charge against the operation's result, once (as the plugin does after execution:
   * a list shorter than priced is refunded, a longer one taken, nothing below the estimate where an
   * error touched it), and resolves with what to put in the result's `extensions.cost`.
   */
  settle(result: ExecutionResult): Promise<CostExtension | undefined>;
}

/** What the request path's functions receive for a `chargeOperation` call. */
interface ChargeArgs {
  readonly key: string;
  readonly policy: BucketPolicy | readonly BudgetLimit[];
  readonly cost: ((estimate: CostEstimate) => number) | undefined;
}

const OPTION_NAMES = {
  schema: true,
  document: true,
  variables: true,
  operationName: true,
  operation: true,
  key: true,
  policy: true,
  store: true,
  cost: true,
  analyzer: true,
  onStoreError: true,
  timeoutMs: true,
  logger: true,
} as const satisfies Record<keyof ChargeOperationOptions, true>;

/** The request paths of every `chargeOperation` call, per store and per the values of the options that shape one. */
const paths = new ValuesCache<RequestPath<ChargeArgs>>();

/**
 * Prices one operation and charges it to `key`'s buckets, for operations outside every server's
 * request pipeline (a queue worker, a transport of your own): through the same path as the plugin,
 * so the store call has its deadline, the store's partitions their circuit breakers, a refused
 * caller the deny cache, and `onStoreError` decides what happens while the store is unavailable.
 * Call the returned `settle` with the operation's result.
 *
 * Throws a `GraphQLError`, ready to hand to the client, when the operation cannot be paid:
 * `RATE_LIMITED` with `extensions.retryAfter` (seconds, absent when the bucket never refills),
 * `COST_ESTIMATED_TOO_EXPENSIVE` above the smallest capacity, `BUDGET_UNAVAILABLE` under
 * `onStoreError: 'deny'`, or the cost engine's own error when it cannot be priced. Paths are shared
 * by calls with the same store and options of the same values (at most 16 per store).
 */
export async function chargeOperation(options: ChargeOperationOptions): Promise<ChargedOperation> {
  if (options === null || typeof options !== 'object')
    throw new TypeError('chargeOperation: options must be an object.');
  checkKnownOptions('chargeOperation', options, Object.keys(OPTION_NAMES));
  const { schema, document, store, key, timeoutMs } = options;
  if (typeof key !== 'string' || key === '') throw new TypeError('chargeOperation: `key` must be a non-empty string.');
  if (timeoutMs !== undefined)
    requireNumber('chargeOperation', timeoutMs, '`timeoutMs`', { min: 1, max: 2_147_483_647 });
  const path = paths.get(
    store,
    { analyzer: options.analyzer ?? {}, onStoreError: options.onStoreError, timeoutMs: options.timeoutMs },
    ({ analyzer: { supergraphSdl: _read, introspection, ...engine }, ...shape }) =>
      new RequestPath<ChargeArgs>(
        {
          ...engine,
          store,
          identify: (args) => args.key,
          policy: (args) => args.policy,
          cost: (estimate, args) =>
            args.cost === undefined ? estimate.typeCost + estimate.fieldCost : args.cost(estimate),
          introspection: introspection ?? 'priced',
          ...(shape.onStoreError === undefined ? {} : { onStoreError: shape.onStoreError }),
          ...(shape.timeoutMs === undefined ? {} : { tuning: { storeTimeoutMs: shape.timeoutMs } }),
          metrics: false,
        },
        'chargeOperation',
      ),
  );
  const logger = options.logger ?? consoleLogger;
  path.start(logger);
  const operation = options.operation ?? getOperationAST(document, options.operationName ?? undefined);
  if (operation === null || operation === undefined) {
    throw new GraphQLError('The document must hold exactly one operation, or name the one to run.', {
      extensions: { code: 'OPERATION_RESOLUTION_FAILURE' },
    });
  }
  const request: BudgetRequest<ChargeArgs> = {
    args: { key, policy: options.policy, cost: options.cost },
    document,
    operation,
    schema,
    operationName: operation.name?.value ?? options.operationName ?? null,
    variables: options.variables ?? undefined,
    documentKey: documentKeyOf(document),
    headers: undefined,
    batched: false,
    contextValue: {},
    logger,
    http: () => undefined,
  };
  // A gateway's schema is priced with its supergraph's weights (`analyzer.supergraphSdl`).
  path.load(schema, options.analyzer?.supergraphSdl, logger);
  const budgeted = new BudgetedOperation(path, request);
  const verdict = await budgeted.decide();
  if (verdict.kind === 'refuse') throw verdict.error;
  const budget = budgeted.budget;
  const view = budget?.view;
  return {
    charged: budget?.charge?.status === 'answered' ? budget.requested : 0,
    bucket: view?.results[view.binding],
    settle: async (result) => {
      const response = { incomplete: false, data: result.data, errors: result.errors ?? null };
      return (await budgeted.finish(response))?.cost;
    },
  };
}

/**
 * Pays what callers charged through `store` in this process still owe it (the excess of a list
 * longer than priced, settled while the store was away), as far as the store takes it within
 * `deadlineMs`: call it when a process that charges with `chargeOperation` stops. The plugins and
 * `graphqlWsBudget(...).stop()` do it when their server stops; what is left is logged, and lost.
 */
export async function payDebts(
  store: BucketStore,
  options: { readonly deadlineMs?: number; readonly logger?: BudgetLogger } = {},
): Promise<void> {
  checkKnownOptions('payDebts', options, ['deadlineMs', 'logger']);
  const deadlineMs = options.deadlineMs ?? 5000;
  requireNumber('payDebts', deadlineMs, '`deadlineMs`', { min: 0, max: 2_147_483_647 });
  const { debts } = sharedStoreState(store);
  if (debts.owing) await debts.settleAll(deadlineMs, options.logger ?? consoleLogger);
}
