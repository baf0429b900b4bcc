/**
 * budgetLinkHandler inside Apollo Client 4, before a terminating link that stands for the HTTP link
 * (what BatchHttpLink hands each operation of a batch; an answer that never comes): a batch member
 * refused with `extensions.retryAfter` is retried alone; unsubscribing from an operation in flight
 * hands its place in the pacer back; a subscription goes through untouched.
 */
import { ApolloClient, ApolloLink, InMemoryCache, gql } from '@apollo/client';
import { Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { budgetLinkHandler, budgetPacer, type BudgetWait } from '../../src/client/index.js';

type Result = Record<string, unknown>;

/** A terminating link answering the n-th request with `answers[n]` (and a 200 response in the context), or never. */
function answering(answers: (Result | 'never')[]) {
  const seen: string[] = [];
  const link = new ApolloLink(
    (operation) =>
      new Observable((observer) => {
        const answer = answers[seen.length] ?? 'never';
        seen.push(operation.operationName ?? '');
        if (answer === 'never') return;
        operation.setContext({ response: new Response(null, { status: 200 }) });
        observer.next(answer);
        observer.complete();
      }),
  );
  return { link, seen };
}

const cost = (price: number, left: number) => ({
  cost: {
    requestedQueryCost: price,
    actualQueryCost: price,
    throttleStatus: { maximumAvailable: 30, currentlyAvailable: left, restoreRate: 1 },
  },
});

describe('budgetLinkHandler in Apollo Client 4', () => {
  it('retries a batch member refused with extensions.retryAfter (a 200 for the batch) alone', async () => {
    const { link, seen } = answering([
      { errors: [{ message: 'refused', extensions: { code: 'RATE_LIMITED', retryAfter: 1 } }], extensions: cost(3, 1) },
      { data: { a: 1 }, extensions: cost(3, 0) },
    ]);
    const waits: BudgetWait[] = [];
    const client = new ApolloClient({
      link: ApolloLink.from([new ApolloLink(budgetLinkHandler({ onWait: (wait) => waits.push(wait) })), link]),
      cache: new InMemoryCache(),
    });
    const started = performance.now();
    const { data } = await client.query({ query: gql('query A { a }'), fetchPolicy: 'no-cache' });
    expect(data).toEqual({ a: 1 });
    expect(seen).toEqual(['A', 'A']);
    expect(waits).toEqual([{ reason: 'retry', ms: 1000, operationName: 'A', attempt: 1 }]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
  });

  it('hands the pacer back the place of an operation unsubscribed while in flight', async () => {
    const { link, seen } = answering(['never', { data: { b: 1 }, extensions: cost(3, 20) }]);
    const client = new ApolloClient({
      link: ApolloLink.from([new ApolloLink(budgetLinkHandler({ pacer: budgetPacer() })), link]),
      cache: new InMemoryCache(),
    });
    const hanging = client.watchQuery({ query: gql('query A { a }'), fetchPolicy: 'no-cache' }).subscribe(() => {});
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toEqual(['A']);
    hanging.unsubscribe();
    // B's price is unknown: it goes out alone once nothing is in flight, at once, not after maxWaitMs.
    const started = performance.now();
    const { data } = await client.query({ query: gql('query B { b }'), fetchPolicy: 'no-cache' });
    expect(data).toEqual({ b: 1 });
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('lets a subscription through untouched', () => {
    const handler = budgetLinkHandler();
    const forwarded = new Observable<Result>();
    const operation = {
      query: gql('subscription S { s }'),
      operationName: 'S',
      getContext: () => ({}),
    };
    expect(handler(operation, () => forwarded)).toBe(forwarded);
  });
});
