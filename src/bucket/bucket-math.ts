/**
 * The bucket arithmetic of `lua/bucket.lua`, in TypeScript for `MemoryBucketStore`, and the
 * conversion of the script's short reply (status, state, clock) into a `BucketResult`. Both stores
 * therefore answer with the same numbers for the same state and clock.
 *
 * Time is counted in ticks of 0.25 µs (`TICKS_PER_US`). State (one number, `undefined` = full bucket):
 *   > 0  the instant (ticks) at which the bucket is full again (refillPerSecond > 0), a whole
 *        number: each write rounds it to the nearest tick, ties to even;
 *   < 0  minus the missing tokens (refillPerSecond = 0: the bucket never refills).
 */
import type { BucketPolicy, BucketResult } from './types.js';

export type BucketOp = 'consume' | 'refund' | 'peek';

/** Ticks per µs: the state's time unit is a quarter of a microsecond. */
export const TICKS_PER_US = 4;
const TICKS_PER_SECOND = 4_000_000;

/** The nearest whole number, ties to even (as `round` in `lua/bucket.lua`). */
export function roundTicks(value: number): number {
  let whole = Math.floor(value);
  const rest = value - whole;
  if (rest > 0.5 || (rest === 0.5 && whole % 2 !== 0)) whole += 1;
  return whole;
}

export type BucketStatus = 'ok' | 'denied' | 'never';

/** What one operation answers; times in µs, `-1` = never. */
export interface BucketReply {
  status: BucketStatus;
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

/**
 * The full reply from what the script sends back. `state` is the bucket after the operation:
 * ticks until it is full again when it refills, the missing tokens when `refillPerSecond` is 0.
 * `amount` is the operation's cost (consume) or amount (refund); 0 for peek.
 */
export function bucketReply(
  status: BucketStatus,
  state: number,
  amount: number,
  policy: BucketPolicy,
  nowUs: number,
): BucketReply {
  const { capacity } = policy;
  const refill = policy.refillPerSecond;
  let missing = state;
  let resetUs = -1;
  let retryUs = status === 'ok' ? 0 : -1;
  if (refill > 0) {
    missing = (state * refill) / TICKS_PER_SECOND;
    resetUs = state / TICKS_PER_US;
    if (status === 'denied') retryUs = (state + ((amount - capacity) * TICKS_PER_SECOND) / refill) / TICKS_PER_US;
  } else if (state <= 0) {
    resetUs = 0;
  }
  return { status, remaining: capacity - missing, retryUs, resetUs, nowUs };
}

/** One operation on one bucket at `nowUs`: the same steps, in the same order, as `lua/bucket.lua`. */
export function bucketStep(
  stored: number | undefined,
  op: BucketOp,
  amount: number,
  policy: BucketPolicy,
  nowUs: number,
): BucketStep {
  const { capacity } = policy;
  const refill = policy.refillPerSecond;
  const value = stored ?? 0;
  const tick = nowUs * TICKS_PER_US;
  let base: number;
  let deficit: number;
  if (refill > 0) {
    base = value < 0 ? roundTicks(tick + (-value * TICKS_PER_SECOND) / refill) : Math.max(value, tick);
    if (base - tick > (capacity * TICKS_PER_SECOND) / refill)
      base = roundTicks(tick + (capacity * TICKS_PER_SECOND) / refill);
    deficit = ((base - tick) * refill) / TICKS_PER_SECOND;
  } else {
    base = value < 0 ? -value : value > tick ? capacity : 0;
    if (base > capacity) base = capacity;
    deficit = base;
  }

  const reply = (status: BucketStatus, after: number): BucketReply =>
    bucketReply(status, refill > 0 ? after - tick : after, op === 'peek' ? 0 : amount, policy, nowUs);
  const write = (after: number): BucketStep => {
    const full = refill > 0 ? after <= tick : after <= 0;
    return { reply: reply('ok', after), state: full ? undefined : refill > 0 ? after : -after, write: true };
  };
  const keep = (status: BucketStatus): BucketStep => ({ reply: reply(status, base), state: stored, write: false });

  if (op === 'peek') return keep('ok');
  if (op === 'refund') {
    if (amount === 0 || deficit === 0) return keep('ok');
    return write(
      refill > 0 ? Math.max(tick, roundTicks(base - (amount * TICKS_PER_SECOND) / refill)) : Math.max(0, base - amount),
    );
  }
  if (amount > capacity) return keep('never');
  if (capacity - deficit < amount) return keep('denied');
  if (amount === 0) return keep('ok');
  return write(refill > 0 ? roundTicks(base + (amount * TICKS_PER_SECOND) / refill) : base + amount);
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
