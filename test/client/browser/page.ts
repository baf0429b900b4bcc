/**
 * The page of test/client/browser.test.ts, bundled at test time and served from an origin of its
 * own: for each client (its API, a bookstore of its own, in the page's query string), what the
 * browser lets the helpers read across origins, a paced burst, and a 429 turned into a success.
 * It writes what it saw to `window.budgetResults` and to the page.
 */
import { budgetPacer, readBudget, type BudgetWait, type ResponseBudget } from '../../../src/client/index.js';
import { BOOKSTORE, CLIENT_NAMES, makeClient, type ClientName } from '../../support/budget-clients.js';
import { recordingFetch } from '../../support/recording-fetch.js';

/** What the page needs of the DOM (the project compiles without the DOM's types). */
declare const document: { body: { innerHTML: string } };
declare const location: { search: string };

export interface ClientResult {
  readonly name: ClientName;
  /** Read by readBudget from a cross-origin response's headers alone. */
  readonly headers: { rateLimit: string | null; policies: number; retryAfter: number | null };
  /** Read by the helper (its last onBudget) from the headers. */
  readonly helperRateLimit: string | null;
  readonly pacing: {
    statuses: (number | null)[];
    waits: number;
    waitedMs: number;
    ok: number;
    /** The status and tokens left of each answer the helper read, in order. */
    trace: string[];
  };
  readonly retry: { statuses: (number | null)[]; retryAfterMs: number; gapMs: number; ok: boolean };
  readonly error?: string;
}

async function scenario(name: ClientName, url: string): Promise<ClientResult> {
  const raw = recordingFetch((input, init) => fetch(input, init));
  const post = (query: string): Promise<Response> =>
    raw(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
  let helperBudget: ResponseBudget | null = null;
  const waits: BudgetWait[] = [];
  const trace: string[] = [];
  const options = {
    onBudget: (budget: ResponseBudget) => {
      helperBudget = budget;
      trace.push(`${budget.status}:${budget.throttleStatus?.currentlyAvailable}@${Math.round(performance.now())}`);
    },
    onWait: (wait: BudgetWait) => waits.push(wait),
  };

  // A burst of ten operations of 3 tokens, after 3 spent: 30 tokens, 27 left.
  await post('{ book(id: "book-1") { title } }');
  const paced = makeClient(name, { url, fetch: raw, options: { ...options, pacer: budgetPacer() } });
  let from = raw.sent.length;
  const started = performance.now();
  const outcomes = await Promise.all(
    Array.from({ length: 10 }, (_, i) => paced.send(BOOKSTORE.book, { id: `book-${i + 1}` })),
  );
  const pacing = {
    statuses: raw.sent.slice(from).map((request) => request.status),
    waits: waits.length,
    waitedMs: Math.round(performance.now() - started),
    ok: outcomes.filter((outcome) => outcome.code === null).length,
    trace: trace.splice(0),
  };
  const helperRateLimit = (helperBudget as ResponseBudget | null)?.rateLimit?.name ?? null;

  // Spent to a refusal with plain requests, whose headers the page reads as any script would.
  let refusal: Response | undefined;
  for (let i = 0; i < 12 && refusal === undefined; i++) {
    const response = await post('{ book(id: "book-2") { title } }');
    if (response.status === 429) refusal = response;
  }
  const read = readBudget(null, refusal);
  const headers = {
    rateLimit: read.rateLimit && `${read.rateLimit.name};r=${read.rateLimit.remaining};t=${read.rateLimit.reset}`,
    policies: read.policies.length,
    retryAfter: read.retryAfter,
  };

  // The helper waits out the next refusal's Retry-After.
  const client = makeClient(name, { url, fetch: raw, options });
  from = raw.sent.length;
  const outcome = await client.send(BOOKSTORE.book, { id: 'book-3' });
  const [refused, retried] = raw.sent.slice(from);
  const retry = {
    statuses: raw.sent.slice(from).map((request) => request.status),
    retryAfterMs: Number(refused?.retryAfter) * 1000,
    gapMs: Math.round((retried?.at ?? Number.NaN) - (refused?.answeredAt ?? Number.NaN)),
    ok: outcome.code === null,
  };
  return { name, headers, helperRateLimit, pacing, retry };
}

function row(result: ClientResult): string {
  const { pacing, retry, headers } = result;
  const cell = (ok: boolean, text: string): string => `<td class="${ok ? 'ok' : 'bad'}">${text}</td>`;
  return `<tr><th>${result.name}</th>${
    result.error
      ? cell(false, result.error)
      : [
          cell(
            headers.rateLimit !== null && headers.retryAfter !== null,
            `RateLimit ${headers.rateLimit}, ${headers.policies} policy, Retry-After ${headers.retryAfter} s`,
          ),
          cell(
            !pacing.statuses.includes(429) && pacing.ok === 10,
            `${pacing.ok}/10 ok, ${pacing.statuses.filter((status) => status === 429).length} × 429, ${pacing.waits} waits, ${pacing.waitedMs} ms`,
          ),
          cell(
            retry.ok,
            `${retry.statuses.join(' → ')}: waited ${retry.gapMs} ms for Retry-After ${retry.retryAfterMs} ms`,
          ),
        ].join('')
  }</tr>`;
}

async function main(): Promise<void> {
  const apis = JSON.parse(new URLSearchParams(location.search).get('apis') ?? '{}') as Record<ClientName, string>;
  const results = await Promise.all(
    CLIENT_NAMES.map((name) =>
      scenario(name, apis[name]).catch(
        (error: unknown): ClientResult => ({
          name,
          headers: { rateLimit: null, policies: 0, retryAfter: null },
          helperRateLimit: null,
          pacing: { statuses: [], waits: 0, waitedMs: 0, ok: 0, trace: [] },
          retry: { statuses: [], retryAfterMs: 0, gapMs: 0, ok: false },
          error: String(error),
        }),
      ),
    ),
  );
  document.body.innerHTML = `<h1>graphql-budget/client in the browser</h1>
<table><tr><th></th><th>Headers read across origins</th><th>Paced burst of ten</th><th>429, then</th></tr>
${results.map(row).join('\n')}</table>`;
  (globalThis as { budgetResults?: ClientResult[] }).budgetResults = results;
}

void main();
