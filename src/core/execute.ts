import { execute, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { BudgetAnnotation } from './annotate.js';
import type { Budget } from './budget.js';
import type { RequestPath } from './request-path.js';
import type { BudgetRequest, BudgetResponse } from './request.js';

/** What a refused operation did: nothing. */
const NOT_EXECUTED: BudgetResponse = { incremental: false, data: undefined, errors: null };

/** What a rejected execution shows: nothing, every part of it possibly hidden. */
const REJECTED: BudgetResponse = { incremental: false, data: null, errors: [{}] };

/**
 * A query or mutation charged by the request path where no server's hooks run it (graphql-ws's
 * `execute`): decided, refused with the error as its result or run (a dry run as its `rateLimit`
 * fields alone), metered, settled, and answered with `extensions.cost`. An execution that rejects
 * is settled at least at what its resolvers were seen doing.
 */
export async function executeWithBudget<TArgs>(
  path: RequestPath<TArgs>,
  request: BudgetRequest<TArgs>,
  args: ExecutionArgs,
): Promise<ExecutionResult> {
  const decided = await path.decideOn(args.schema, request);
  if (decided.budget === undefined)
    return decided.faulted === undefined ? execute(args) : { errors: [decided.faulted] };
  const { budget } = decided;
  const refusal = path.refusal(budget, request);
  if (refusal !== undefined) return finish(path, request, budget, { errors: [refusal] }, NOT_EXECUTED, undefined);
  const dryRun = await path.dryRun(budget, request);
  if (dryRun !== undefined) {
    return finish(path, request, budget, dryRun, { incremental: false, data: dryRun.data, errors: null }, undefined);
  }
  const metered = path.meter(budget, request, args.fieldResolver ?? undefined);
  let result: ExecutionResult;
  try {
    result = await execute(args);
  } catch (error) {
    path.report(request, budget, await path.settle(budget, request, REJECTED, metered));
    throw error;
  }
  const response: BudgetResponse = { incremental: false, data: result.data, errors: result.errors ?? null };
  return finish(path, request, budget, result, response, metered);
}

async function finish<TArgs>(
  path: RequestPath<TArgs>,
  request: BudgetRequest<TArgs>,
  budget: Budget,
  result: ExecutionResult,
  response: BudgetResponse,
  metered: Parameters<RequestPath<TArgs>['settle']>[3],
): Promise<ExecutionResult> {
  const settlement = await path.settle(budget, request, response, metered);
  const annotation: BudgetAnnotation | undefined = path.annotation(budget, settlement);
  path.report(request, budget, settlement);
  return annotation === undefined ? result : { ...result, extensions: { ...result.extensions, cost: annotation.cost } };
}
