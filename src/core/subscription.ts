import {
  createSourceEventStream,
  execute,
  subscribe,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLError,
} from 'graphql';
import type { Budget, Settlement } from './budget.js';
import type { RequestPath } from './request-path.js';
import type { BudgetRequest } from './request.js';

/** A subscription: its result stream, or the error that refused it. */
export type BudgetedSubscription = AsyncGenerator<ExecutionResult, void, unknown> | ExecutionResult;

/** The settlement of what was refused before it ran. */
const NOT_EXECUTED: Settlement = { charged: 0, actual: null, executed: false, settleMs: 0 };

/**
 * A subscription charged by the request path, whatever the transport (graphql-ws, GraphQL Yoga's
 * server-sent events): the subscription's estimate when it starts (refused with the error as its
 * result); then, for each event the source produces, the estimate again before the event is
 * resolved, and after it, the settlement of the work its resolvers did (metered like any
 * operation, so work an error hides is charged too), with `extensions.cost` on the event's
 * result. The first event that cannot be paid ends the subscription: the source is returned, so
 * nothing more is produced or resolved, and the client receives the error, then completion.
 *
 * The subscription's own charge stays: its subscribe resolver ran, even when the source then fails.
 */
export async function subscribeWithBudget<TArgs>(
  path: RequestPath<TArgs>,
  request: BudgetRequest<TArgs>,
  args: ExecutionArgs,
): Promise<BudgetedSubscription> {
  const decided = await path.decideOn(args.schema, request);
  if (decided.budget === undefined)
    return decided.faulted === undefined ? subscribe(args) : { errors: [decided.faulted] };
  const { budget } = decided;
  const refusal = path.refusal(budget, request);
  path.report(request, budget, refusal === undefined ? subscribed(budget) : NOT_EXECUTED);
  if (refusal !== undefined) return { errors: [refusal] };

  const source = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in source)) return source as ExecutionResult;
  // Any async iterable (a ReadableStream has no next() of its own): its iterator.
  const events = (source as AsyncIterable<unknown>)[Symbol.asyncIterator]() as AsyncIterator<unknown, unknown, unknown>;
  return eventsOf(path, request, args, budget, events);
}

async function* eventsOf<TArgs>(
  path: RequestPath<TArgs>,
  request: BudgetRequest<TArgs>,
  args: ExecutionArgs,
  budget: Budget,
  events: AsyncIterator<unknown, unknown, unknown>,
): AsyncGenerator<ExecutionResult, void, unknown> {
  try {
    while (true) {
      const next = await events.next();
      if (next.done === true) return;
      const event = await path.recharge(budget, request);
      const refusal: GraphQLError | undefined = path.refusal(event, request);
      if (refusal !== undefined) {
        path.report(request, event, NOT_EXECUTED);
        yield { errors: [refusal] };
        return;
      }
      const metered = path.meter(event, request, args.fieldResolver ?? undefined);
      const result = await execute({ ...args, rootValue: next.value });
      const settlement = await path.settle(
        event,
        request,
        { incremental: false, data: result.data, errors: result.errors ?? null },
        metered,
      );
      const annotation = path.annotation(event, settlement);
      path.report(request, event, settlement);
      yield annotation === undefined
        ? result
        : { ...result, extensions: { ...result.extensions, cost: annotation.cost } };
    }
  } finally {
    await events.return?.(undefined);
  }
}

/** The subscription's own charge, kept whatever its source does. */
function subscribed(budget: Budget): Settlement {
  return { charged: budget.priced ? budget.requested : 0, actual: null, executed: true, settleMs: 0 };
}
