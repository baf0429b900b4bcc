import { createSourceEventStream, execute, subscribe, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { annotated, BudgetedOperation } from './budgeted-operation.js';
import type { RequestPath } from './request-path.js';
import type { BudgetRequest, BudgetResponse } from './request.js';

/** A subscription: its result stream, or the error that refused it. */
export type BudgetedSubscription = AsyncGenerator<ExecutionResult, void, unknown> | ExecutionResult;

/** The subscription's own charge: its subscribe resolver ran, whatever its source does next. */
const SUBSCRIBED: BudgetResponse = { incomplete: true, data: undefined, errors: null };

/** An event charged but never resolved (the client left meanwhile): nothing done, all refunded. */
const NOT_RESOLVED: BudgetResponse = { incomplete: false, data: undefined, errors: null };

/**
 * A subscription charged by the request path, whatever the transport (graphql-ws, GraphQL Yoga's
 * server-sent events): the subscription's estimate when it starts (refused with the error as its
 * result); then, for each event the source produces, the estimate again before the event is
 * resolved, and after it the settlement against the event's result, with `extensions.cost` on it.
 * The first event that cannot be paid ends the subscription: the source is returned, so nothing
 * more is produced or resolved, and the client receives the error, then completion.
 */
export async function subscribeWithBudget<TArgs>(
  path: RequestPath<TArgs>,
  request: BudgetRequest<TArgs>,
  args: ExecutionArgs,
): Promise<BudgetedSubscription> {
  const operation = new BudgetedOperation(path, request);
  const verdict = await operation.decide(args.schema);
  if (verdict.kind !== 'execute') return (await operation.answer(verdict)).result;
  if (operation.budget === undefined) return subscribe(args);
  await operation.finish(SUBSCRIBED);
  const source = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in source)) return source as ExecutionResult;
  // Any async iterable (a ReadableStream has no next() of its own): its iterator.
  const events = (source as AsyncIterable<unknown>)[Symbol.asyncIterator]() as AsyncIterator<unknown>;
  return new BudgetedEvents(operation, args, events);
}

/**
 * The events of a budgeted subscription. Written as an iterator rather than an async generator so
 * that the client leaving ends it at once: `return()` returns the source whatever is pending (a
 * generator would only see it at its next `yield`, and never before its first), so the server's
 * own cleanup (graphql-ws's `onClose`, a pub/sub unsubscription) runs as it does without the
 * budget, and an event the source produces after that is neither charged, resolved nor sent.
 */
class BudgetedEvents<TArgs> implements AsyncGenerator<ExecutionResult, void, unknown> {
  readonly #subscription: BudgetedOperation<TArgs>;
  readonly #args: ExecutionArgs;
  readonly #source: AsyncIterator<unknown>;
  #ended = false;

  constructor(subscription: BudgetedOperation<TArgs>, args: ExecutionArgs, source: AsyncIterator<unknown>) {
    this.#subscription = subscription;
    this.#args = args;
    this.#source = source;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }

  async next(): Promise<IteratorResult<ExecutionResult, void>> {
    if (this.#ended) return DONE;
    let next: IteratorResult<unknown>;
    try {
      next = await this.#source.next();
    } catch (error) {
      this.#end();
      throw error;
    }
    if (next.done === true || this.#ended) return this.#end();
    const event = await this.#subscription.again();
    const refusal = event.refusal();
    if (refusal !== undefined) {
      // A client that left while the charge was decided is sent nothing; the refusal is still reported.
      const left = this.#ended;
      this.#end();
      const { result } = await event.answer({ kind: 'refuse', error: refusal });
      return left ? DONE : { done: false, value: result };
    }
    if (this.#ended) {
      await event.finish(NOT_RESOLVED);
      return DONE;
    }
    const result = await execute({ ...this.#args, rootValue: next.value });
    const annotation = await event.finish({ incomplete: false, data: result.data, errors: result.errors ?? null });
    return this.#ended ? DONE : { done: false, value: annotated(result, annotation) };
  }

  async return(): Promise<IteratorResult<ExecutionResult, void>> {
    return this.#end();
  }

  async throw(error: unknown): Promise<IteratorResult<ExecutionResult, void>> {
    this.#end();
    throw error;
  }

  /** Ends the subscription: the source is returned now, not when a pending event arrives. */
  #end(): IteratorResult<ExecutionResult, void> {
    if (!this.#ended) {
      this.#ended = true;
      const returned = this.#source.return?.(undefined);
      // A source whose return() rejects has nothing more to say; its rejection is not the client's.
      if (returned !== undefined) Promise.resolve(returned).catch(() => undefined);
    }
    return DONE;
  }
}

const DONE: IteratorResult<ExecutionResult, void> = { done: true, value: undefined };
