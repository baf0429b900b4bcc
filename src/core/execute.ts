import { execute, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { annotated, BudgetedOperation } from './budgeted-operation.js';
import type { RequestPath } from './request-path.js';
import type { BudgetRequest } from './request.js';

/**
 * A query or mutation charged by the request path where no server's hooks run it (graphql-ws's
 * `execute`): decided, refused with the error as its result or run (a dry run as its `rateLimit`
 * fields alone), settled against its result, and answered with `extensions.cost`. An execution
 * that rejects is settled as cut short: nothing refunded.
 */
export async function executeWithBudget<TArgs>(
  path: RequestPath<TArgs>,
  request: BudgetRequest<TArgs>,
  args: ExecutionArgs,
): Promise<ExecutionResult> {
  const operation = new BudgetedOperation(path, request);
  const verdict = await operation.decide(args.schema);
  if (verdict.kind !== 'execute') return (await operation.answer(verdict)).result;
  let result: ExecutionResult;
  try {
    result = await execute(args);
  } catch (error) {
    await operation.finish({ incomplete: true, data: undefined, errors: null });
    throw error;
  }
  const annotation = await operation.finish({ incomplete: false, data: result.data, errors: result.errors ?? null });
  return annotated(result, annotation);
}
