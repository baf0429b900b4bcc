/**
 * The bucket arithmetic of `lua/bucket.lua`, in TypeScript for `MemoryBucketStore`, and the
 * conversion of the script's short reply (status, state, clock) into a `BucketResult`. Both stores
 * therefore answer with the same numbers for the same state and clock.
 *
 * Time is counted in ticks of 0.25 µs (`TICKS_PER_US`); clocks are read in whole µs, as Redis
 * `TIME` is. A bucket that is not full is a `BucketState`: the refill rate it was last written
 * with, and the instant (ticks, a whole number) it is full again, or its missing tokens when it
 * never refills. The script keeps the same two numbers as one string (`'<hex ticks>:<rate>'`, the
 * rate exactly, as this module does).
 *
 * Policy change (a call whose `refillPerSecond` differs from the state's rate): the tokens the
 * bucket is missing carry over. They are counted under the state's rate up to the call, and from
 * then on the call's rate refills them; `remaining = capacity - missing` may be below 0 (a debt,
 * reported as 0 tokens left), and the missing tokens are never capped at the new capacity, only so
 * that refilling them takes at most `MAX_REFILL_SECONDS`. A capacity change alone converts nothing.
 *
 * Rounding: each write rounds the instant to the nearest tick (ties to even), and missing tokens
 * read from an instant that lie within half a µs of refill (at most 0.001 token) of a whole number
 * are taken as that number (`snapMissing`): the clock reads whole µs, so only the tick rounding
 * puts them there. Integer costs on integer capacities and rates up to 8000/s give integer answers.
 */
import { MAX_REFILL_SECONDS } from './validate.js';
import type { BucketPolicy, BucketResult } from './types.js';

export type BucketOp = 'consume' | 'refund' | 'peek' | 'take';

/** Ticks per µs: the state's time unit is a quarter of a microsecond. */
export const TICKS_PER_US = 4;
const TICKS_PER_SECOND = 4_000_000;
const US_PER_SECOND = 1_000_000;

/** A bucket that is not full (a full bucket has no state). */
export interface BucketState {
  /** The refill rate the bucket was last written with (tokens per second); 0: it never refills. */
  readonly rate: number;
  /** rate > 0: the instant the bucket is full again (ticks, a whole number); rate 0: the missing tokens (> 0). */
  readonly value: number;
}

/**
 * The tokens a bucket is missing at `nowTicks`: what dropping its state would forgive. A refilling
 * bucket past its full-again instant misses none.
 */
export function missingTokens(state: BucketState, nowTicks: number): number {
  if (state.rate <= 0) return state.value;
  return state.value <= nowTicks ? 0 : ((state.value - nowTicks) * state.rate) / TICKS_PER_SECOND;
}

/** The nearest whole number, ties to even (as `round` in `lua/bucket.lua`). */
export function roundTicks(value: number): number {
  let whole = Math.floor(value);
  const rest = value - whole;
  if (rest > 0.5 || (rest === 0.5 && whole % 2 !== 0)) whole += 1;
  return whole;
}

/**
 * Missing tokens read from an instant at `rate` (tokens per second): the nearest whole number when
 * they lie within half a µs of refill, and at most 0.001 token, of it; otherwise unchanged (as
 * `snap` in `lua/bucket.lua`).
 */
export function snapMissing(missing: number, rate: number): number {
  const whole = Math.floor(missing + 0.5);
  const radius = Math.min(rate * 5e-7, 0.001);
  return Math.abs(missing - whole) <= radius ? whole : missing;
}

export type BucketStatus = 'ok' | 'denied' | 'never';

/** What one operation answers; times in µs, `-1` = never. */
export interface BucketReply {
  status: BucketStatus;
  /** Tokens left after the operation (below 0: a debt kept from a policy change). */
  remaining: number;
  /** µs until `cost` tokens exist; 0 when allowed; -1 when never. */
  retryUs: number;
  /** µs until the bucket is full again; -1 when never. */
  resetUs: number;
  /** The clock the operation used (µs). */
  nowUs: number;
}

/** The reply and the state to keep (`undefined`: delete, the bucket is full; `write` false: no write). */
export interface BucketStep {
  reply: BucketReply;
  state: BucketState | undefined;
  write: boolean;
}

/**
 * The full reply from what the script sends back. `state` is the bucket after the operation:
 * ticks until it is full again when it refills (read as missing tokens with `snapMissing`), the
 * missing tokens when `refillPerSecond` is 0.
 * `amount` is the operation's cost (consume) or amount (refund); only a denial's wait depends on it.
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
    // Times from the missing tokens as read (snapped), so that whole tokens give whole times.
    missing = snapMissing((state * refill) / TICKS_PER_SECOND, refill);
    resetUs = (missing * US_PER_SECOND) / refill;
    // Never below 0: after a policy change the instant the store answers (rounded to a tick) may read
    // back a hair above the tokens it decided on.
    if (status === 'denied') retryUs = Math.max(0, ((missing + amount - capacity) * US_PER_SECOND) / refill);
  } else if (state <= 0) {
    resetUs = 0;
  }
  return { status, remaining: capacity - missing, retryUs, resetUs, nowUs };
}

/**
 * One operation on one bucket at `nowUs` (whole µs): the same steps, in the same order, as
 * `lua/bucket.lua`. The state's rate is kept exactly, so any other `refillPerSecond` is a policy
 * change.
 */
export function bucketStep(
  stored: BucketState | undefined,
  op: BucketOp,
  amount: number,
  policy: BucketPolicy,
  nowUs: number,
): BucketStep {
  const { capacity } = policy;
  const refill = policy.refillPerSecond;
  const tick = nowUs * TICKS_PER_US;

  // The bucket before the operation, under the call's policy: `missing` tokens (above the capacity
  // after a policy change: a debt) and, when it refills, `base`, the instant it is full again.
  let missing = 0;
  let base = tick;
  /** The rate of a state this call converts to its policy (a policy change); undefined: none. */
  const convertedFrom = stored !== undefined && stored.rate !== refill ? stored.rate : undefined;
  if (stored === undefined) {
    // full
  } else if (
    // Stryker disable next-line ConditionalExpression: a fast path; the policy-change branch reads the same rate to the same snapped missing tokens and the same instant.
    stored.rate === refill
  ) {
    if (refill > 0) {
      // Stryker disable next-line EqualityOperator: at stored.value === tick both read 0 missing tokens and the instant `tick`.
      if (stored.value > tick) {
        base = stored.value;
        missing = snapMissing(((base - tick) * refill) / TICKS_PER_SECOND, refill);
      }
    } else {
      missing = stored.value;
    }
  } else {
    if (stored.rate > 0) {
      // Stryker disable next-line EqualityOperator: at stored.value === tick both read 0 missing tokens.
      if (stored.value > tick)
        missing = snapMissing(((stored.value - tick) * stored.rate) / TICKS_PER_SECOND, stored.rate);
    } else {
      missing = stored.value;
    }
    if (refill > 0) {
      missing = Math.min(missing, MAX_REFILL_SECONDS * refill);
      base = roundTicks(tick + (missing * TICKS_PER_SECOND) / refill);
    }
  }

  const reply = (status: BucketStatus, fullAt: number, short: number): BucketReply =>
    bucketReply(status, refill > 0 ? fullAt - tick : short, amount, policy, nowUs);
  const keep = (status: BucketStatus): BucketStep => ({
    reply: reply(status, base, missing),
    state: stored,
    write: false,
  });
  const write = (short: number): BucketStep => {
    if (refill > 0) {
      const fullAt = roundTicks(tick + (short * TICKS_PER_SECOND) / refill);
      if (fullAt <= tick) return { reply: reply('ok', tick, 0), state: undefined, write: true };
      return { reply: reply('ok', fullAt, short), state: { rate: refill, value: fullAt }, write: true };
    }
    if (short <= 0) return { reply: reply('ok', tick, 0), state: undefined, write: true };
    return { reply: reply('ok', tick, short), state: { rate: 0, value: short }, write: true };
  };

  if (op === 'peek') return keep('ok');
  if (op === 'take') {
    // Whatever the bucket holds: what it lacks beyond its capacity is kept as a debt, bounded (as
    // at a policy change) so that the rate refills it within MAX_REFILL_SECONDS.
    if (amount === 0) return keep('ok');
    const owed = missing + amount;
    return write(refill > 0 ? Math.min(owed, MAX_REFILL_SECONDS * refill) : owed);
  }
  if (op === 'refund') {
    // A refund of 0 writes nothing, even under another policy: the bucket keeps the rate it was written with.
    if (amount === 0) return keep('ok');
    // Stryker disable next-line ConditionalExpression: with nothing missing a write would delete the state, as keeping a refilled one does (MemoryBucketStore#keep); this only skips the write.
    if (missing === 0) return keep('ok');
    // What a refund would leave missing below 1e-15 of its amount (a few units in the last place),
    // plus 1/8 µs of the old rate's refill in a call that converted the bucket to a new policy (the
    // tick rounding of the last write), is rounding: the bucket is full (as in the script).
    const left = missing - amount;
    const slack = amount * 1e-15 + (convertedFrom ?? 0) * 1.25e-7;
    return write(left > slack ? left : 0);
  }
  // A refused consume under another policy keeps the conversion (as the script does): from this
  // call on the bucket refills at the new rate. Left unwritten, every refused call would count the
  // missing tokens under the old rate again, and a caller moved off refill 0 while short would wait
  // forever.
  const refuse = (status: BucketStatus): BucketStep =>
    convertedFrom === undefined ? keep(status) : { ...write(missing), reply: reply(status, base, missing) };
  if (amount > capacity) return refuse('never');
  if (capacity - missing < amount) return refuse('denied');
  if (amount === 0) return keep('ok');
  return write(missing + amount);
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
    retryAfterMs: toMs(reply.retryUs),
    resetAfterMs: toMs(reply.resetUs),
  };
}
