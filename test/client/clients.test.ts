/**
 * Apollo Client 4, Apollo Client 3, urql and graphql-request, each with only the library's helper
 * added, against the example bookstore (`npm start`, in its own process; the 429 also on GraphQL Yoga,
 * `npm start -- --server yoga`) over real HTTP. Each test
 * is an anonymous caller of its own (a loopback address of its own, so a full bucket of 30 tokens
 * refilling 1 per second) and first spends what it needs with plain requests: Retry-After is then
 * a second or two, and the tests of the four clients run at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetPacer, type BudgetClientOptions, type BudgetWait } from '../../src/client/index.js';
import { BOOKSTORE, CLIENT_NAMES, makeClient, type ClientName } from '../support/budget-clients.js';
import { loopbackFetch } from '../support/loopback-fetch.js';
import { type RecordingFetch, waitProblem } from '../support/recording-fetch.js';
import { startExample, type RunningExample } from '../example/example-process.js';

let example: RunningExample;
/** The same bookstore on GraphQL Yoga (`npm start -- --server yoga`). */
let onYoga: RunningExample;

beforeAll(async () => {
  [example, onYoga] = await Promise.all([startExample(), startExample({}, 30_000, ['--server', 'yoga'])]);
});
afterAll(() => Promise.all([example?.stop(), onYoga?.stop()]));

/** A new anonymous caller: its fetch, and the client `name` over it with `options`. */
function caller(
  name: ClientName,
  options: BudgetClientOptions = {},
  setup: { urqlGet?: boolean; headers?: Record<string, string>; url?: string } = {},
) {
  const url = setup.url ?? example.url;
  const raw = loopbackFetch();
  const waits: BudgetWait[] = [];
  const client = makeClient(name, {
    url,
    fetch: raw,
    options: { ...options, onWait: (wait) => waits.push(wait) },
    ...setup,
  });
  /** Spends tokens with plain requests (no helper), one after another; resolves with tokens left. */
  const spend = async (...documents: string[]): Promise<number> => {
    let left = Number.NaN;
    for (const query of documents) {
      const response = await raw(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        extensions: { cost: { throttleStatus: { currentlyAvailable: number } } };
      };
      left = body.extensions.cost.throttleStatus.currentlyAvailable;
    }
    return left;
  };
  return { raw, client, waits, spend };
}

/** The requests `raw` sent from index `from` on. */
const sentSince = (raw: RecordingFetch, from: number) => raw.sent.slice(from);

/**
 * A 429 for the search (8 tokens, 6 left), then a success after Retry-After, with one wait of
 * Retry-After reported and nothing hand-written in the client.
 */
async function backsOff(
  name: ClientName,
  setup: { headers?: Record<string, string>; url?: string } = {},
): Promise<void> {
  const { raw, client, waits, spend } = caller(name, {}, setup);
  expect(await spend(BOOKSTORE.bestsellers, BOOKSTORE.bestsellers)).toBe(6);
  const from = raw.sent.length;

  const outcome = await client.send(BOOKSTORE.search);

  expect(outcome.code).toBeNull();
  expect(outcome.data).toMatchObject({ search: expect.any(Array) });
  const [refused, retried, ...more] = sentSince(raw, from);
  expect(more).toEqual([]);
  expect(refused?.status).toBe(429);
  expect(retried?.status).toBe(200);
  const retryAfterMs = Number(refused?.retryAfter) * 1000;
  expect(retryAfterMs).toBeGreaterThanOrEqual(1000);
  const gap = (retried?.at as number) - (refused?.answeredAt as number);
  expect(waitProblem(gap, retryAfterMs)).toBeUndefined();
  expect(waits).toEqual([{ reason: 'retry', ms: retryAfterMs, operationName: 'Search', attempt: 1 }]);
}

describe.concurrent.each(CLIENT_NAMES)('%s with the library helper, against the example bookstore', (name) => {
  it("turns an anonymous caller's 429 into a success after Retry-After (no sooner, and promptly)", () =>
    backsOff(name));

  it('with a pacer, sends a burst of ten operations without one 429', async () => {
    const { raw, client, waits, spend } = caller(name, { pacer: budgetPacer() });
    const left = await spend('{ book(id: "book-1") { title } }');
    // Ten operations of 3 tokens do not fit in what is left: sent at once, some would be refused.
    expect(10 * 3).toBeGreaterThan(left + 1);
    const from = raw.sent.length;
    const started = performance.now();

    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => client.send(BOOKSTORE.book, { id: `book-${i + 1}` })),
    );

    expect(outcomes.map((outcome) => outcome.code)).toEqual(Array(10).fill(null));
    const statuses = sentSince(raw, from).map((request) => request.status);
    expect(statuses).toEqual(Array(10).fill(200));
    expect(waits.length).toBeGreaterThan(0);
    expect(waits.every((wait) => wait.reason === 'pace' && wait.ms > 0)).toBe(true);
    // The burst took at least the refill it lacked.
    expect(performance.now() - started).toBeGreaterThan((10 * 3 - left - 1) * 1000);
  });

  it('does not retry a refused mutation, unless told to', async () => {
    const plain = caller(name);
    await plain.spend(BOOKSTORE.bestsellers, BOOKSTORE.bestsellers);
    const from = plain.raw.sent.length;
    const started = performance.now();
    const outcome = await plain.client.send(BOOKSTORE.addReview);
    expect(outcome.code).toBe('RATE_LIMITED');
    expect(sentSince(plain.raw, from).map((request) => request.status)).toEqual([429]);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(plain.waits).toEqual([]);

    const told = caller(name, { retryMutations: true });
    await told.spend(BOOKSTORE.bestsellers, BOOKSTORE.oneBook);
    const fromTold = told.raw.sent.length;
    expect((await told.client.send(BOOKSTORE.addReview)).code).toBeNull();
    expect(sentSince(told.raw, fromTold).map((request) => request.status)).toEqual([429, 200]);
  });

  it('never retries a 400 (an operation too expensive for any budget)', async () => {
    const { raw, client, waits } = caller(name, { maxRetries: 5 });
    const outcome = await client.send(BOOKSTORE.tooExpensive);
    expect(outcome.code).toBe('COST_ESTIMATED_TOO_EXPENSIVE');
    expect(raw.sent.map((request) => request.status)).toEqual([400]);
    expect(waits).toEqual([]);
  });

  it('hands a refusal back at once when its wait is longer than maxWaitMs', async () => {
    const { raw, client, waits, spend } = caller(name, { maxWaitMs: 1000 });
    await spend(BOOKSTORE.bestsellers, BOOKSTORE.bestsellers);
    const from = raw.sent.length;
    const started = performance.now();

    const outcome = await client.send(BOOKSTORE.bestsellers);

    expect(outcome.code).toBe('RATE_LIMITED');
    const [refused, ...more] = sentSince(raw, from);
    expect(more).toEqual([]);
    expect(Number(refused?.retryAfter)).toBeGreaterThan(1);
    // Waiting would take Retry-After (2 s or more); the refusal itself is one round trip.
    expect(performance.now() - started).toBeLessThan(1000);
    expect(waits).toEqual([]);
  });

  it("stops waiting when the helper's signal aborts", async () => {
    const controller = new AbortController();
    const { raw, client, waits, spend } = caller(name, { signal: controller.signal });
    await spend(BOOKSTORE.bestsellers, BOOKSTORE.bestsellers);
    const from = raw.sent.length;
    const started = performance.now();

    const pending = client.send(BOOKSTORE.search).catch((error: unknown) => ({ data: null, code: String(error) }));
    setTimeout(() => controller.abort(), 300);
    const outcome = await pending;

    expect(outcome.code).not.toBeNull();
    expect(waits.map((wait) => wait.reason)).toEqual(['retry']);
    expect(sentSince(raw, from).map((request) => request.status)).toEqual([429]);
    // Aborted at 300 ms; the retry it gave up would have waited Retry-After (2 s or more).
    expect(performance.now() - started).toBeLessThan(1500);
  });
});

describe.concurrent.each(CLIENT_NAMES)('%s against the bookstore on GraphQL Yoga', (name) => {
  it("turns an anonymous caller's 429 into a success after Retry-After (no sooner, and promptly)", () =>
    backsOff(name, { url: onYoga.url }));
});

describe('Apollo Client 4 asking for application/json', () => {
  it('turns the 429, a ServerError without graphql-response+json, into a success after Retry-After', () =>
    backsOff('Apollo Client 4', { headers: { accept: 'application/json' } }));
});

describe('urql with its default GET requests', () => {
  it("meets Apollo Server's CSRF prevention: a 400 before any pricing, not retried", async () => {
    const { raw, client, waits } = caller('urql', {}, { urqlGet: true });
    const outcome = await client.send(BOOKSTORE.book, { id: 'book-1' });
    expect(outcome.code).toBe('BAD_REQUEST');
    expect(raw.sent.map((request) => request.status)).toEqual([400]);
    expect(waits).toEqual([]);
  });
});
