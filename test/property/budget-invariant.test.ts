/**
 * Invariant: the tokens an operation finally takes are at least the price of the work its
 * resolvers actually did.
 *
 * Checked over generated requests (harness/arbitraries.ts) against a real Apollo Server with the
 * plugin, on a schema with every pricing feature (harness/library.ts). The oracle is independent of
 * the cost engine: the resolvers count their calls and what they return, and `Work.price` prices
 * that with the documented IBM rules written out in library.ts. For every generated case:
 *
 * - no reply is a 5xx;
 * - an operation that is refused runs nothing and takes nothing;
 * - a dry run (`rateLimit(dryRun: true)` as execution reads the argument) runs nothing else and
 *   takes nothing;
 * - otherwise the tokens taken (after every late resolver) cover the price of the work done, and
 *   for a query whose response no error touched they are exactly that price (nothing overcharged);
 *   a result delivered incrementally (`@defer`, `@stream`, on GraphQL Yoga) takes at least its
 *   estimate as well (never refunded), and its first part carries `extensions.cost`;
 * - no resolver receives a list size the client chose outside [0, maxListSize];
 * - the same request again costs the same, and the price a server with the estimate cache gives
 *   equals the price a server without one gives (no request hits an entry priced for another).
 *
 * The first two requests of each case run at once; on GraphQL Yoga each request runs on one of two
 * schema objects of the same SDL (`useSchemaByContext`), as with a schema per tenant.
 *
 * Over graphql-ws, on a server that keeps one context value per connection, the two requests of a
 * pair run at once on one connection: together they take at least the price of what their
 * resolvers did together, and no result is a server fault.
 *
 * `npm test` runs it with a fixed seed; `npm run test:fuzz` runs a longer search with a random
 * seed (FUZZ_RUNS, FUZZ_SEED), and a failure prints the seed and the shrunk counterexample.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestPairArb, type GeneratedRequest } from './harness/arbitraries.js';
import type { HarnessVariant } from './harness/library.js';
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

/** Every property of one reply; a string naming the first that fails, or undefined. */
function violation(request: GeneratedRequest, reply: HarnessReply, variant: HarnessVariant): string | undefined {
  const { work, taken, status } = reply;
  if (status >= 500) return `a ${status} reply: ${JSON.stringify(reply.body.errors)}`;
  for (const { coordinate, value } of work.slices) {
    if (typeof value === 'number' && !(value >= 0 && value <= MAX_LIST_SIZE)) {
      return `${coordinate} ran with a list size of ${value}, outside [0, ${MAX_LIST_SIZE}]`;
    }
  }
  const priced = reply.body.extensions?.cost;
  if (work.dryRuns.includes(true)) {
    if (work.otherCalls > 0) return `a dry run ran ${work.otherCalls} other resolvers`;
    if (taken !== 0) return `a dry run took ${taken} tokens`;
    return undefined;
  }
  if (reply.body.data === undefined && work.otherCalls > 0) {
    return `a refused operation (${status}) ran ${work.otherCalls} resolvers`;
  }
  const price = work.price(request.operation.root, reply.body.data !== undefined, variant);
  const detail = () =>
    `(requested ${priced?.requestedQueryCost}, actual ${priced?.actualQueryCost}; ` +
    `calls ${JSON.stringify([...work.calls])}, returned ${JSON.stringify([...work.returned])})`;
  if (taken < price) return `took ${taken} tokens for work priced ${price} ${detail()}`;
  if (reply.incremental) {
    if (priced === undefined) return 'an incremental result without extensions.cost in its first part';
    if (taken < priced.requestedQueryCost) return `an incremental result took ${taken}, below its estimate ${detail()}`;
    return undefined;
  }
  // Nothing hid any work: the refund leaves exactly its price. Except, as documented, a mutation's
  // root fields keep their estimate, and a union or interface member the response cannot tell
  // apart from another (no __typename, the same keys) is priced as the costliest of them.
  const clean = reply.body.data !== null && reply.body.data !== undefined && reply.body.errors === undefined;
  const abstract = variant === 'uneven' && /\b(search|node)\b/.test(request.operation.text);
  if (clean && request.operation.root === 'Query' && !abstract && taken !== price) {
    return `took ${taken} tokens for a query whose work, all in the response, is priced ${price} ${detail()}`;
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

  it('takes at least the price of the work the resolvers did, for every generated request', {
    timeout: 600_000,
  }, async () => {
    console.info(`budget invariant (${variant}): ${RUNS} runs, seed ${SEED}`);
    const before = callers;
    let incremental = 0;
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
          const problem = violation(sent, reply, variant);
          if (problem !== undefined) throw new Error(problem);
          if (reply.incremental) incremental += 1;
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
    console.info(`budget invariant (${variant}): ${incremental} results delivered incrementally`);
    // GraphQL Yoga runs `@defer` and `@stream`: some generated requests must have used them.
    if (serverKind() === 'yoga') expect(incremental).toBeGreaterThan(RUNS / 50);
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

    it('takes at least the price of the work two operations at once on one context value did', {
      timeout: 600_000,
    }, async () => {
      const runs = Math.ceil(RUNS / 2);
      let together = 0;
      await fc.assert(
        // Dry runs (free by design, their own property above) are left out: the work is counted together.
        fc.asyncProperty(
          requestPairArb.filter(([request]) => !/\brateLimit\b/.test(request.operation.text)),
          async (pair) => {
            const { results, work, taken } = await server.sendTogether(pair, nextCaller());
            for (const result of results) {
              const fault = result.errors?.find((error) => error.extensions?.code === 'INTERNAL_SERVER_ERROR');
              if (fault !== undefined) throw new Error(`a server fault: ${fault.message}`);
            }
            // The root type is paid once in `Work.price`: a lower bound of two operations' price.
            const price = work.price(pair[0].operation.root, false, variant);
            if (taken < price) {
              throw new Error(
                `two operations at once took ${taken} tokens for work priced ${price} ` +
                  `(calls ${JSON.stringify([...work.calls])}, returned ${JSON.stringify([...work.returned])})`,
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
