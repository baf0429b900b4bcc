import type { GraphQLServerContext } from '@apollo/server';
import type { BucketResult } from '../bucket/types.js';
import type { DenyCache } from './deny-cache.js';
import type { Charge, GuardedStore } from './guarded-store.js';
import type { ResolvedLimit } from './limits.js';

type Logger = GraphQLServerContext['logger'];

/**
 * The operation's buckets as the caller is told about them: each bucket's state (undefined where
 * this process does not know it: a refusal answered by the deny cache knows only the buckets it
 * remembered), which one binds, and whether they paid.
 */
export interface BucketsView {
  readonly results: readonly (BucketResult | undefined)[];
  /** The bucket that decides: fewest tokens left when paid, the one with the longest wait when refused. */
  readonly binding: number;
  readonly allowed: boolean;
  /** When refused: ms until every bucket can pay, -1 never; 0 when paid. */
  readonly retryAfterMs: number;
}

/** What charging an operation's buckets came to. */
export interface BucketCharge {
  /** The store's (or the fallback's) answer; undefined when it was not asked. */
  readonly charge: Charge | undefined;
  /** The buckets after the charge; undefined when no bucket answered (store unavailable). */
  readonly view: BucketsView | undefined;
  /** Whether the deny cache refused it without asking the store. */
  readonly deniedLocally: boolean;
}

/**
 * Charges one operation's buckets all-or-nothing (or, for a dry run, reads them), consulting the
 * deny cache first: a refusal it can answer costs no store call. What the store refuses is
 * remembered there; what it admits is forgotten.
 */
export async function chargeBuckets(input: {
  guard: GuardedStore;
  denyCache: DenyCache | undefined;
  limits: readonly ResolvedLimit[];
  cost: number;
  dryRun: boolean;
  logger: Logger;
}): Promise<BucketCharge> {
  const { guard, denyCache, limits, cost, logger } = input;
  if (input.dryRun) {
    const charge = await guard.peek(limits, logger);
    return { charge, view: viewOf(charge), deniedLocally: false };
  }
  const local = denyCache?.check(limits, cost);
  if (local !== undefined) {
    // Yield to the event loop's other I/O first, as a store call would: a refused caller's requests
    // then take their turn with everyone else's instead of running back to back.
    await new Promise((resolve) => setImmediate(resolve));
    return {
      charge: undefined,
      view: { results: local.results, binding: local.binding, allowed: false, retryAfterMs: local.retryAfterMs },
      deniedLocally: true,
    };
  }
  const charge = await guard.consume(limits, cost, logger);
  if (charge.status === 'answered' && charge.outcome === 'ok') {
    if (charge.answer.allowed) denyCache?.forget(limits);
    else denyCache?.remember(limits, charge.answer);
  }
  return { charge, view: viewOf(charge), deniedLocally: false };
}

/** The buckets after the settlement of every one of them (a refund, or a take of the excess). */
export function settledView(view: BucketsView, after: readonly BucketResult[]): BucketsView {
  let binding = 0;
  for (const [index, result] of after.entries()) {
    if (result.remaining < (after[binding] as BucketResult).remaining) binding = index;
  }
  return { results: after, binding, allowed: view.allowed, retryAfterMs: view.retryAfterMs };
}

function viewOf(charge: Charge): BucketsView | undefined {
  if (charge.status !== 'answered') return undefined;
  const { answer } = charge;
  return {
    results: answer.results,
    binding: answer.binding,
    allowed: answer.allowed,
    retryAfterMs: answer.retryAfterMs,
  };
}
