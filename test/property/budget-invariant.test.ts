/**
 * Invariant: the tokens an operation finally takes are at least the price of the work its response
 * shows, and every list an error hides (or an incremental result leaves out) counts at least at its
 * priced size: a response no error touched is charged exactly the price of what it shows, and one
 * an error touched, or delivered incrementally, is never refunded below its up-front charge.
 *
 * Checked over generated requests (harness/arbitraries.ts) against a real Apollo Server, and a real
 * GraphQL Yoga, with the plugin, on a schema with every pricing feature (harness/library.ts). The
 * oracle is independent of the cost engine: each resolver records its call and each value it
 * returns, with the place in the response where it lands (`info.path`; list items by index), and
 * `Work.shown` (harness/work.ts) prices, by the IBM rules written out there, the calls whose
 * response key the response holds in their parent object and the values the response holds as
 * non-null at their place (and the root type once when there is `data`). An incremental result
 * (`@defer`, `@stream`, on Yoga) is merged from its parts by the harness (harness/multipart.ts)
 * and priced as the merged response shows. For every generated case:
 *
 * - no reply is a 5xx;
 * - an operation that is refused (or runs nothing: no `data`) runs no resolver and takes nothing;
 * - a dry run (`rateLimit(dryRun: true)` as execution reads the argument) runs nothing else and
 *   takes nothing;
 * - otherwise the tokens taken (after every late resolver) are at least the price of what the
 *   response shows;
 * - for a query whose response no error touched (no errors, `data` not null), delivered whole, the
 *   tokens taken are exactly that price: a list shorter than priced is refunded, a longer one
 *   charged its excess (except where a union or interface member the response cannot tell apart
 *   from another, no `__typename` and the same keys, is priced as the costliest of them);
 * - where an error touched the response, or it came incrementally, the tokens taken are at least
 *   the up-front charge (`extensions.cost.requestedQueryCost`, which an incremental result's first
 *   part carries): what the response cannot show (a list an error nulled, a part never sent) is
 *   never refunded;
 * - no resolver receives a list size the client chose outside [0, maxListSize];
 * - the same request again costs the same, and the price a server with the estimate cache gives
 *   equals the price a server without one gives (no request hits an entry priced for another).
 *
 * The first two requests of each case run at once; on GraphQL Yoga each request runs on one of two
 * schema objects of the same SDL (`useSchemaByContext`), as with a schema per tenant.
 *
 * Over graphql-ws, on a server that keeps one context value per connection, the two requests of a
 * pair run at once on one connection: together they take at least the sum of what their two
 * responses show (each operation's work told apart by its name), and no result is a server fault.
 *
 * `npm test` runs it with a fixed seed; `npm run test:fuzz` runs a longer search with a random
 * seed (FUZZ_RUNS, FUZZ_SEED), and a failure prints the seed and the shrunk counterexample.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestPairArb, type GeneratedRequest } from './harness/arbitraries.js';
import type { HarnessVariant } from './harness/work.js';
import { serverKind } from '../plugin/budget-server.js';
import {
  startHarnessServer,
  startHarnessSocketServer,
  type HarnessReply,
  type HarnessServer,
  type HarnessSocketServer,
} from './harness/server.js';

/** Runs per schema: 500 in `npm test` (each is four requests); `npm run test:fuzz` asks for more. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 500);
const SEED =
  process.env.FUZZ_SEED === undefined
    ? process.env.FUZZ === '1'
      ? Date.now()
      : 20261201
    : Number(process.env.FUZZ_SEED);
/** The plugin's default `maxListSize`. */
const MAX_LIST_SIZE = 10_000;

let callers = 0;
function nextCaller(): string {
  callers += 1;
  return `caller-${callers}`;
}

/** How many replies each property of `violation` applied to, so that a run that checks little shows. */
interface Tally {
  /** Refused, or ran nothing (no `data`). */
  ranNothing: number;
  dryRuns: number;
  /** Charged exactly what the response shows. */
  exact: number;
  /** Touched by an error, or incremental: at least the up-front charge. */
  upFront: number;
  /** Of those, data an error touched without nulling all of it. */
  partial: number;
  /** Of those, responses that hid work the resolvers did (an error nulled it). */
  hid: number;
  incremental: number;
}

/** Every property of one reply; a string naming the first that fails, or undefined. */
function violation(
  request: GeneratedRequest,
  reply: HarnessReply,
  variant: HarnessVariant,
  tally: Tally,
): string | undefined {
  const { work, taken, status, body } = reply;
  if (status >= 500) return `a ${status} reply: ${JSON.stringify(body.errors)}`;
  for (const { coordinate, value } of work.slices) {
    if (typeof value === 'number' && !(value >= 0 && value <= MAX_LIST_SIZE)) {
      return `${coordinate} ran with a list size of ${value}, outside [0, ${MAX_LIST_SIZE}]`;
    }
  }
  if (work.dryRuns.includes(true)) {
    tally.dryRuns += 1;
    if (work.otherCalls > 0) return `a dry run ran ${work.otherCalls} other resolvers`;
    if (taken !== 0) return `a dry run took ${taken} tokens`;
    return undefined;
  }
  if (body.data === undefined) {
    tally.ranNothing += 1;
    if (work.otherCalls > 0) return `a refused operation (${status}) ran ${work.otherCalls} resolvers`;
    if (taken !== 0) return `an operation that ran nothing (${status}) took ${taken} tokens`;
    return undefined;
  }
  const priced = body.extensions?.cost;
  const shown = work.shown(body.data, request.operation.root, variant);
  const detail = () =>
    `(requested ${priced?.requestedQueryCost}, actual ${priced?.actualQueryCost}, shown ${shown}, ` +
    `done ${work.done(request.operation.root, variant)}; ` +
    `calls ${JSON.stringify([...work.calls])}; data ${JSON.stringify(body.data).slice(0, 1500)}; ` +
    `errors ${JSON.stringify(body.errors?.map((error) => error.message))})`;
  if (taken < shown) return `took ${taken} tokens for a response that shows work priced ${shown} ${detail()}`;
  const touched = body.data === null || (body.errors !== undefined && body.errors.length > 0);
  if (touched || reply.incremental) {
    tally.upFront += 1;
    if (touched && body.data !== null) tally.partial += 1;
    if (touched && work.done(request.operation.root, variant) > shown) tally.hid += 1;
    if (reply.incremental) tally.incremental += 1;
    const what = reply.incremental ? 'an incremental result' : 'a response an error touched';
    if (priced === undefined) return `${what} without extensions.cost ${detail()}`;
    if (taken < priced.requestedQueryCost) {
      return `${what} took ${taken}, below its up-front charge ${priced.requestedQueryCost} ${detail()}`;
    }
    return undefined;
  }
  // Nothing hid any work: exactly its price. Except, as documented, a mutation's root fields keep
  // their estimate, and a union or interface member the response cannot tell apart from another
  // (no __typename, the same keys) is priced as the costliest of them.
  const abstract = variant === 'uneven' && /\b(search|node)\b/.test(request.operation.text);
  if (request.operation.root !== 'Query' || abstract) return undefined;
  tally.exact += 1;
  if (taken !== shown) {
    return `took ${taken} tokens for a query whose response, no error touched, shows work priced ${shown} ${detail()}`;
  }
  return undefined;
}

describe.each(['uneven', 'even'] as const)('on the harness schema with %s union member weights', (variant) => {
  let cached: HarnessServer;
  let uncached: HarnessServer;

  beforeAll(async () => {
    cached = await startHarnessServer(variant);
    uncached = await startHarnessServer(variant, { tuning: { estimateCacheMaxBytes: 0 } });
  });

  afterAll(async () => {
    await cached?.stop();
    await uncached?.stop();
  });

  it('takes at least the price of the work the response shows, for every generated request', {
    timeout: 600_000,
  }, async () => {
    console.info(`budget invariant (${variant}): ${RUNS} runs, seed ${SEED}`);
    const before = callers;
    const tally: Tally = { ranNothing: 0, dryRuns: 0, exact: 0, upFront: 0, partial: 0, hid: 0, incremental: 0 };
    await fc.assert(
      fc.asyncProperty(requestPairArb, async ([request, other]) => {
        // At once: operations of both run together (on Yoga, each on its own schema object).
        const [first, second] = await Promise.all([
          cached.send(request, nextCaller()),
          cached.send(other, nextCaller()),
        ]);
        const fresh = await uncached.send(other, nextCaller());
        const again = await cached.send(request, nextCaller());
        for (const [sent, reply] of [
          [request, first],
          [other, second],
          [other, fresh],
          [request, again],
        ] as const) {
          const problem = violation(sent, reply, variant, tally);
          if (problem !== undefined) throw new Error(problem);
        }
        const requested = (reply: HarnessReply) => reply.body.extensions?.cost?.requestedQueryCost;
        if (requested(again) !== requested(first)) {
          throw new Error(`the same request was priced ${requested(first)}, then ${requested(again)}`);
        }
        if (requested(second) !== requested(fresh)) {
          throw new Error(
            `priced ${requested(second)} after another request's entry was cached, ${requested(fresh)} without the cache`,
          );
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
    expect(callers - before).toBeGreaterThanOrEqual(4 * RUNS);
    console.info(
      `budget invariant (${variant}): of ${4 * RUNS} replies, ${tally.exact} charged exactly what they show, ` +
        `${tally.upFront} at least their up-front charge (${tally.partial} partial data an error touched, ` +
        `${tally.hid} hid work done, ` +
        `${tally.incremental} delivered incrementally), ` +
        `${tally.ranNothing} ran nothing, ${tally.dryRuns} dry runs`,
    );
    // Each property applied often enough to mean something.
    expect(tally.exact).toBeGreaterThan(RUNS / 2);
    expect(tally.upFront).toBeGreaterThan(RUNS / 5);
    expect(tally.partial).toBeGreaterThan(RUNS / 20);
    expect(tally.hid).toBeGreaterThan(RUNS / 10);
    // GraphQL Yoga runs `@defer` and `@stream`: some generated requests must have used them.
    if (serverKind() === 'yoga') expect(tally.incremental).toBeGreaterThan(RUNS / 50);
  });
});

// graphql-ws involves neither Apollo Server nor Yoga: it runs once, in the apollo project.
describe.skipIf(serverKind() === 'yoga').each(['uneven', 'even'] as const)(
  'over graphql-ws, on the harness schema with %s union member weights',
  (variant) => {
    let server: HarnessSocketServer;
    beforeAll(async () => {
      server = await startHarnessSocketServer(variant);
    });
    afterAll(() => server?.stop());

    it('takes at least what the responses of two operations at once on one context value show', {
      timeout: 600_000,
    }, async () => {
      const runs = Math.ceil(RUNS / 2);
      let together = 0;
      await fc.assert(
        // Dry runs (free by design, their own property above) are left out: the two are checked together.
        fc.asyncProperty(
          requestPairArb.filter(([request]) => !/\brateLimit\b/.test(request.operation.text)),
          async (pair) => {
            const { results, operations, work, taken } = await server.sendTogether(pair, nextCaller());
            for (const result of results) {
              const fault = result.errors?.find((error) => error.extensions?.code === 'INTERNAL_SERVER_ERROR');
              if (fault !== undefined) throw new Error(`a server fault: ${fault.message}`);
            }
            const shown = results.map((result, index) =>
              work.shown(result.data, pair[0].operation.root, variant, operations[index]),
            );
            const sum = shown.reduce((total, price) => total + price, 0);
            if (taken < sum) {
              throw new Error(
                `two operations at once took ${taken} tokens for responses that show work priced ${shown.join(' + ')} ` +
                  `(calls ${JSON.stringify([...work.calls])}; data ${JSON.stringify(results.map((result) => result.data)).slice(0, 1500)})`,
              );
            }
            if (results.every((result) => result.data !== undefined && result.data !== null)) together += 1;
          },
        ),
        { numRuns: runs, seed: SEED },
      );
      console.info(`budget invariant over graphql-ws (${variant}): ${together} of ${runs} pairs both ran`);
      expect(together).toBeGreaterThan(runs / 10);
    });
  },
);
