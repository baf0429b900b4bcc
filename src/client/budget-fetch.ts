import { createBudgetGate } from './budget-gate.js';
import type { BudgetClientOptions } from './client-options.js';
import { readBudget, type ResponseBudget } from './read-budget.js';
import { requestOperation } from './request-operation.js';

export interface BudgetFetchOptions extends BudgetClientOptions {
  /** The fetch that sends each request. @default the global `fetch`, looked up at each call */
  fetch?: typeof fetch;
}

/**
 * The budget of a fetch `Response`: its status and headers, and its JSON body (read from a clone,
 * so the caller still gets the whole response) when `body` or when it is not a success.
 */
export async function responseBudget(response: Response, body: boolean): Promise<ResponseBudget> {
  const json = /json/i.test(response.headers.get('content-type') ?? '');
  const parsed =
    json && (body || !response.ok)
      ? await response
          .clone()
          .json()
          .catch(() => null)
      : null;
  return readBudget(parsed, response);
}

/**
 * A `fetch` that backs off on the budget's refusals (and paces, with a `pacer`): for graphql-request
 * (`new GraphQLClient(url, { fetch: budgetFetch() })`), for any client that takes a fetch, or
 * called as `fetch` is. It reads which operation a request runs from its body (a POST of JSON, a
 * batch too) or its query string (a GET); any other request goes through untouched.
 *
 * @example
 * const fetchWithBudget = budgetFetch({ pacer: budgetPacer(), onBudget: (budget) => show(budget.throttleStatus) });
 * const response = await fetchWithBudget('https://api.example.com/graphql', { method: 'POST', headers, body });
 */
export function budgetFetch(options: BudgetFetchOptions = {}): typeof fetch {
  const gate = createBudgetGate('budgetFetch', options, { fetch: 'function' });
  const body = gate.settings.pacer !== undefined || gate.settings.onBudget !== undefined;
  return async (input, init) => {
    // A Request is sent as a fresh clone each time, so that a retry still has its body.
    const request = typeof input === 'object' && 'clone' in input ? input : null;
    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
    const sent = init?.body ?? (request && method !== 'GET' ? await request.clone().text() : undefined);
    const operation = requestOperation(method, request ? request.url : String(input), sent);
    const send = (): Promise<Response> => (options.fetch ?? fetch)(request ? request.clone() : input, init);
    if (operation === null) return send();
    return gate.run(
      operation,
      async () => {
        const response = await send();
        return { value: response, budget: await responseBudget(response, body) };
      },
      init?.signal ?? request?.signal,
    );
  };
}
