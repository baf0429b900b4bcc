/**
 * The bucket arithmetic of `lua/bucket.lua`, in TypeScript for `MemoryBucketStore`, and the
 * conversion of a script-shaped reply into a `BucketResult`. Both stores therefore answer with the
 * same numbers for the same state and clock.
 *
 * State (one number, `undefined` = full bucket):
 *   > 0  the instant (µs) at which the bucket is full again (refillPerSecond > 0);
 *   < 0  minus the missing tokens (refillPerSecond = 0: the bucket never refills).
 */
import type { BucketPolicy, BucketResult } from './types.js';

export type BucketOp = 'consume' | 'refund' | 'peek';

/** What the script (or its mirror) answers; times in µs, `-1` = never. */
export interface BucketReply {
  status: 'ok' | 'denied' | 'never';
  /** Tokens left after the operation. */
  remaining: number;
  /** µs until `cost` tokens exist; 0 when allowed; -1 when never. */
  retryUs: number;
  /** µs until the bucket is full again; -1 when never. */
  resetUs: number;
  /** The clock the operation used (µs). */
  nowUs: number;
}

/** The reply and the state to keep (`undefined`: delete, the bucket is full; `unchanged`: no write). */
export interface BucketStep {
  reply: BucketReply;
  state: number | undefined;
  write: boolean;
}

/** One operation on one bucket: the same steps, in the same order, as `lua/bucket.lua`. */
export function bucketStep(
  stored: number | undefined,
  op: BucketOp,
  amount: number,
  policy: BucketPolicy,
  now: number,
): BucketStep {
  const { capacity } = policy;
  const refill = policy.refillPerSecond;
  const value = stored ?? 0;
  let base: number;
  let deficit: number;
  if (refill > 0) {
    base = value < 0 ? now + (-value * 1000000) / refill : Math.max(value, now);
    if (base - now > (capacity * 1000000) / refill) base = now + (capacity * 1000000) / refill;
    deficit = ((base - now) * refill) / 1000000;
  } else {
    base = value < 0 ? -value : value > now ? capacity : 0;
    if (base > capacity) base = capacity;
    deficit = base;
  }

  const reply = (status: BucketReply['status'], after: number, retryUs: number): BucketReply => {
    let missing = after;
    let resetUs = -1;
    if (refill > 0) {
      missing = ((after - now) * refill) / 1000000;
      resetUs = after - now;
    } else if (after <= 0) {
      resetUs = 0;
    }
    return { status, remaining: capacity - missing, retryUs, resetUs, nowUs: now };
  };
  const write = (status: BucketReply['status'], after: number): BucketStep => {
    const full = refill > 0 ? after <= now : after <= 0;
    return { reply: reply(status, after, 0), state: full ? undefined : refill > 0 ? after : -after, write: true };
  };
  const keep = (status: BucketReply['status'], retryUs: number): BucketStep => ({
    reply: reply(status, base, retryUs),
    state: stored,
    write: false,
  });

  if (op === 'peek') return keep('ok', 0);
  if (op === 'refund') {
    if (amount === 0 || deficit === 0) return keep('ok', 0);
    return write('ok', refill > 0 ? Math.max(now, base - (amount * 1000000) / refill) : Math.max(0, base - amount));
  }
  if (amount > capacity) return keep('never', -1);
  if (capacity - deficit < amount) {
    return keep('denied', refill > 0 ? base - now + ((amount - capacity) * 1000000) / refill : -1);
  }
  if (amount === 0) return keep('ok', 0);
  return write('ok', refill > 0 ? base + (amount * 1000000) / refill : base + amount);
}

/** µs → whole ms, rounded up (a sub-nanosecond excess from float rounding does not count); -1 stays -1. */
function toMs(us: number): number {
  if (us < 0) return -1;
  return Math.max(0, Math.ceil(us / 1000 - 1e-6));
}

/** The public result of a reply: whole milliseconds rounded up, `remaining` never below 0. */
export function toBucketResult(reply: BucketReply, cost: number, capacity: number): BucketResult {
  return {
    allowed: reply.status === 'ok',
    cost,
    remaining: Math.max(0, reply.remaining),
    capacity,
    retryAfterMs: reply.status === 'ok' ? 0 : toMs(reply.retryUs),
    resetAfterMs: toMs(reply.resetUs),
  };
}
