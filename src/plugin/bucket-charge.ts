import type { GraphQLServerContext } from '@apollo/server';
import type { BucketPolicy, BucketResult, BucketStore } from '../bucket/types.js';
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
  /** Whether the deny cache refused it (or answered its dry run) without asking the store. */
  readonly deniedLocally: boolean;
  /** A dry run over the caller's local dry-run limit: that limit's bucket (nothing else was asked). */
  readonly dryRunRefused?: BucketResult;
}

/** The local limit of a caller's dry runs: an in-process bucket per caller, never the caller's own. */
export interface DryRunGate {
  readonly store: BucketStore;
  readonly policy: BucketPolicy;
}

/**
 * Charges one operation's buckets all-or-nothing (or, for a dry run, reads them), consulting the
 * deny cache first: a refusal it can answer costs no store call. What the store refuses is
 * remembered there; what it admits is forgotten.
 *
 * A dry run takes nothing, so nothing would ever refuse it: it is answered by the deny cache when
 * that knows the operation cannot be paid yet, and otherwise passes the caller's local dry-run
 * limit (`gate`) before it reads the store, so a caller's dry runs cost the store no more calls
 * than refused operations do.
 */
export async function chargeBuckets(input: {
  guard: GuardedStore;
  denyCache: DenyCache | undefined;
  limits: readonly ResolvedLimit[];
  cost: number;
  dryRun: boolean;
  /** The caller's key, for the dry-run limit. */
  key: string | null;
  gate: DryRunGate | undefined;
  logger: Logger;
}): Promise<BucketCharge> {
  const { guard, denyCache, limits, cost, logger } = input;
  const local = denyCache?.check(limits, cost);
  if (local !== undefined) {
    // Yield to the event loop's other I/O first, as a store call would: a refused caller's requests
    // then take their turn with everyone else's instead of running back to back.
    await new Promise((resolve) => setImmediate(resolve));
    if (input.dryRun) {
      // A read: what the deny cache knows of the buckets that cannot pay.
      return {
        charge: undefined,
        view: { results: local.results, binding: local.binding, allowed: true, retryAfterMs: 0 },
        deniedLocally: true,
      };
    }
    return {
      charge: undefined,
      view: { results: local.results, binding: local.binding, allowed: false, retryAfterMs: local.retryAfterMs },
      deniedLocally: true,
    };
  }
  if (input.dryRun) {
    const { gate } = input;
    if (gate !== undefined && input.key !== null) {
      const passed = await gate.store.consume(input.key, 1, gate.policy);
      if (!passed.allowed) return { charge: undefined, view: undefined, deniedLocally: false, dryRunRefused: passed };
    }
    const charge = await guard.peek(limits, logger);
    if (charge.status === 'answered' && charge.outcome === 'ok') {
      // What the read shows cannot be paid is remembered as a refusal would be, so the caller's next
      // dry runs (and operations) of that cost are answered here.
      const { results } = charge.answer;
      if (results.some((result) => result.remaining < cost)) {
        denyCache?.remember(limits, {
          allowed: false,
          results: results.map((result) => ({ ...result, allowed: result.remaining >= cost })),
          retryAfterMs: -1,
          binding: 0,
        });
      }
    }
    return { charge, view: viewOf(charge), deniedLocally: false };
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
