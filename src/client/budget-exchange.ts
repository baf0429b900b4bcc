import { createBudgetGate } from './budget-gate.js';
import { responseBudget } from './budget-fetch.js';
import type { BudgetClientOptions } from './client-options.js';
import { documentOperation, type DocumentLike } from './document-operation.js';

/** What the exchange reads of an urql operation. */
export interface UrqlOperationLike {
  readonly kind: string;
  readonly query: DocumentLike;
  readonly context: { readonly fetch?: typeof fetch | undefined };
}

/** A signal of a wonka source (urql's streams): end (0), start (tag 0) or a value (tag 1). */
export type WonkaSignal<T> = 0 | ({ tag: 0 } & [(talkback: 0 | 1) => void]) | ({ tag: 1 } & [T]);

/** A wonka source, the stream urql's exchanges pass on. */
export type WonkaSource<T> = (sink: (signal: WonkaSignal<T>) => void) => void;

/** What an exchange is given: urql's `ExchangeInput`. */
export interface ExchangeInputLike<O, R> {
  forward(operations: WonkaSource<O>): R;
}

/** An urql exchange: put it before `fetchExchange`. */
export type BudgetExchange = <O extends UrqlOperationLike, R>(
  input: ExchangeInputLike<O, R>,
) => (operations: WonkaSource<O>) => R;

/**
 * An urql exchange that backs off on the budget's refusals (and paces, with a `pacer`): it gives each
 * query and mutation a `fetch` that waits and retries, so that `fetchExchange` (after it) sees only
 * the last answer. Tearing the operation down cancels a wait.
 *
 * @example
 * const client = new Client({ url, exchanges: [cacheExchange, budgetExchange({ pacer: budgetPacer() }), fetchExchange] });
 */
export function budgetExchange(options?: BudgetClientOptions): BudgetExchange {
  const gate = createBudgetGate('budgetExchange', options);
  const body = gate.settings.pacer !== undefined || gate.settings.onBudget !== undefined;
  const withBudget = <O extends UrqlOperationLike>(operation: O): O => {
    if (operation.kind !== 'query' && operation.kind !== 'mutation') return operation;
    const described = { ...documentOperation(operation.query), mutation: operation.kind === 'mutation' };
    const fetchWithBudget: typeof fetch = (input, init) =>
      gate.run(
        described,
        async () => {
          const response = await (operation.context.fetch ?? fetch)(input, init);
          return { value: response, budget: await responseBudget(response, body) };
        },
        init?.signal,
      );
    return { ...operation, context: { ...operation.context, fetch: fetchWithBudget } };
  };
  return <O extends UrqlOperationLike, R>({ forward }: ExchangeInputLike<O, R>) =>
    (operations: WonkaSource<O>) =>
      forward((sink) =>
        operations((signal) =>
          // wonka's own push signal is this object: { tag: 1, 0: value }.
          sink(signal !== 0 && signal.tag === 1 ? ({ tag: 1, 0: withBudget(signal[0]) } as WonkaSignal<O>) : signal),
        ),
      );
}
