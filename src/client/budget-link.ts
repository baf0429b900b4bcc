import { createBudgetGate } from './budget-gate.js';
import type { BudgetClientOptions } from './client-options.js';
import { documentOperation, type DocumentLike } from './document-operation.js';
import { readBudget, type ResponseBudget } from './read-budget.js';

/** What the handler reads of an Apollo Client operation (3.x and 4.x). */
export interface ApolloOperationLike {
  readonly query: DocumentLike;
  readonly operationName?: string | null | undefined;
  getContext(): object;
}

/** An observer, as rxjs (Apollo Client 4) and zen-observable (3) call it. */
export interface ObserverLike<T> {
  next(value: T): void;
  error(error: unknown): void;
  complete(): void;
}

/** An observable, of rxjs (Apollo Client 4) or zen-observable (3). */
export interface ObservableLike<T> {
  subscribe(observer: ObserverLike<T>): { unsubscribe(): void };
}

/**
 * An Apollo Client request handler: give it to `new ApolloLink(…)`, before the terminating link
 * (`HttpLink`, `BatchHttpLink`). It returns the kind of observable the next link returns.
 */
export type BudgetLinkHandler = <O extends ApolloOperationLike, R extends ObservableLike<unknown>>(
  operation: O,
  forward: (operation: O) => R,
) => R;

type Event = readonly ['next', unknown] | readonly ['error', unknown] | readonly ['complete'];

/** One send's events: held back until the gate decides, then handed on as they come. */
interface Attempt {
  readonly events: Event[];
  deliver: ((event: Event) => void) | null;
  subscription?: { unsubscribe(): void };
}

/**
 * The budget of an operation's first answer. Apollo Client hands a refusal on either as a result
 * with errors (4.x, when the server answers `application/graphql-response+json`) or as a
 * `ServerError` (a non-2xx `application/json` answer: 3.x keeps the parsed body as `result`, 4.x
 * the text as `bodyText`); the response itself is the error's `response` or the context's.
 */
function budgetOf(event: Event, operation: ApolloOperationLike): ResponseBudget | null {
  const context = operation.getContext() as { response?: Response };
  if (event[0] === 'next') return readBudget(event[1], context.response);
  if (event[0] === 'complete') return null;
  const error = (event[1] ?? {}) as { response?: Response; result?: unknown; bodyText?: unknown };
  let body = error.result;
  if (body === undefined && typeof error.bodyText === 'string') {
    try {
      body = JSON.parse(error.bodyText);
    } catch {}
  }
  return error.response ? readBudget(body, error.response) : null;
}

/**
 * An Apollo Client link's request handler that backs off on the budget's refusals (and paces, with
 * a `pacer`), for Apollo Client 3 and 4 alike: `new ApolloLink(budgetLinkHandler())`. A subscription
 * goes through untouched; unsubscribing cancels a wait.
 *
 * @example
 * const client = new ApolloClient({
 *   link: ApolloLink.from([new ApolloLink(budgetLinkHandler({ pacer: budgetPacer() })), new HttpLink({ uri })]),
 *   cache: new InMemoryCache(),
 * });
 */
export function budgetLinkHandler(options?: BudgetClientOptions): BudgetLinkHandler {
  const gate = createBudgetGate('budgetLinkHandler', options);
  return (operation, forward) => {
    let first: ReturnType<typeof forward> | undefined = forward(operation);
    const described = documentOperation(operation.query, operation.operationName);
    if (described.type === 'subscription') return first;
    // The next link's observable class (rxjs for 4.x, zen-observable for 3.x) builds ours.
    const Observable = first.constructor as new (
      subscribe: (observer: ObserverLike<unknown>) => () => void,
    ) => ReturnType<typeof forward>;
    return new Observable((observer) => {
      // Unsubscribing cancels a wait; so does the signal of the operation's fetchOptions.
      const unsubscribed = new AbortController();
      const signal = (operation.getContext() as { fetchOptions?: { signal?: AbortSignal } }).fetchOptions?.signal;
      let current: Attempt | undefined;
      /** Rejects the send in flight: unsubscribed, it will never answer (and the pacer must hear so). */
      let cancel: ((reason: unknown) => void) | undefined;
      const send = () =>
        new Promise<{ value: Attempt; budget: ResponseBudget | null }>((resolve, reject) => {
          cancel = reject;
          current?.subscription?.unsubscribe();
          const attempt: Attempt = { events: [], deliver: null };
          current = attempt;
          const source = first ?? forward(operation);
          first = undefined;
          const on = (event: Event): void => {
            if (attempt.deliver) {
              attempt.deliver(event);
            } else if (attempt.events.push(event) === 1) {
              resolve({ value: attempt, budget: budgetOf(event, operation) });
            }
          };
          attempt.subscription = source.subscribe({
            next: (value) => on(['next', value]),
            error: (error) => on(['error', error]),
            complete: () => on(['complete']),
          });
        });
      gate.run(described, send, unsubscribed.signal, signal).then(
        (attempt) => {
          attempt.deliver = (event) =>
            event[0] === 'next'
              ? observer.next(event[1])
              : event[0] === 'error'
                ? observer.error(event[1])
                : observer.complete();
          for (const event of attempt.events.splice(0)) attempt.deliver(event);
        },
        (error: unknown) => {
          if (!unsubscribed.signal.aborted) observer.error(error);
        },
      );
      return () => {
        unsubscribed.abort();
        current?.subscription?.unsubscribe();
        cancel?.(unsubscribed.signal.reason);
      };
    });
  };
}
