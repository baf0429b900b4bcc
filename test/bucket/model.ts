/**
 * Reference model of one token bucket, written the textbook way (a token count refilled lazily on
 * each call) in exact rational arithmetic, so it shares no code and no rounding with the stores.
 * Time is in µs (bigint); token amounts are exact fractions.
 */
import type { BucketPolicy, BucketResult } from '../../src/bucket/types.js';

/** An exact fraction n/d with d > 0, in lowest terms. */
export class Fraction {
  readonly n: bigint;
  readonly d: bigint;

  constructor(n: bigint, d: bigint = 1n) {
    if (d === 0n) throw new RangeError('zero denominator');
    if (d < 0n) {
      n = -n;
      d = -d;
    }
    const g = gcd(n < 0n ? -n : n, d);
    this.n = n / g;
    this.d = d / g;
  }

  /** The exact value of a finite double. */
  static of(value: number): Fraction {
    if (!Number.isFinite(value)) throw new RangeError(`not finite: ${value}`);
    let d = 1n;
    let scaled = value;
    while (!Number.isInteger(scaled)) {
      scaled *= 2;
      d *= 2n;
    }
    return new Fraction(BigInt(scaled), d);
  }

  add(o: Fraction): Fraction {
    return new Fraction(this.n * o.d + o.n * this.d, this.d * o.d);
  }
  sub(o: Fraction): Fraction {
    return new Fraction(this.n * o.d - o.n * this.d, this.d * o.d);
  }
  mul(o: Fraction): Fraction {
    return new Fraction(this.n * o.n, this.d * o.d);
  }
  div(o: Fraction): Fraction {
    return new Fraction(this.n * o.d, this.d * o.n);
  }
  cmp(o: Fraction): number {
    const l = this.n * o.d;
    const r = o.n * this.d;
    return l < r ? -1 : l > r ? 1 : 0;
  }
  min(o: Fraction): Fraction {
    return this.cmp(o) <= 0 ? this : o;
  }
  /** Smallest integer ≥ this. */
  ceil(): bigint {
    const q = this.n / this.d;
    return this.n > q * this.d ? q + 1n : q;
  }
  toNumber(): number {
    return Number(this.n) / Number(this.d);
  }
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a === 0n ? 1n : a;
}

const MICROS = new Fraction(1_000_000n);
const THOUSAND = new Fraction(1000n);

/** One bucket with a fixed policy. */
export class BucketModel {
  readonly #capacity: Fraction;
  readonly #refill: Fraction;
  readonly #policy: BucketPolicy;
  #tokens: Fraction;
  #at: bigint | undefined;

  constructor(policy: BucketPolicy) {
    this.#policy = policy;
    this.#capacity = Fraction.of(policy.capacity);
    this.#refill = Fraction.of(policy.refillPerSecond);
    this.#tokens = this.#capacity;
  }

  /** Refills for the time elapsed since the last call (time never goes back). */
  #advance(nowUs: bigint): void {
    if (this.#at !== undefined && nowUs > this.#at) {
      const earned = new Fraction(nowUs - this.#at).mul(this.#refill).div(MICROS);
      this.#tokens = this.#tokens.add(earned).min(this.#capacity);
    }
    this.#at = nowUs;
  }

  #result(allowed: boolean, cost: number, retryAfterMs: number): BucketResult {
    const missing = this.#capacity.sub(this.#tokens);
    let resetAfterMs = 0;
    if (missing.n > 0n) {
      resetAfterMs = this.#refill.n === 0n ? -1 : Number(missing.div(this.#refill).mul(THOUSAND).ceil());
    }
    return {
      allowed,
      cost,
      remaining: this.#tokens.toNumber(),
      capacity: this.#policy.capacity,
      retryAfterMs,
      resetAfterMs,
    };
  }

  consume(cost: number, nowUs: bigint): BucketResult {
    this.#advance(nowUs);
    const c = Fraction.of(cost);
    if (c.cmp(this.#capacity) > 0) return this.#result(false, cost, -1);
    if (this.#tokens.cmp(c) >= 0) {
      this.#tokens = this.#tokens.sub(c);
      return this.#result(true, cost, 0);
    }
    const retry = this.#refill.n === 0n ? -1 : Number(c.sub(this.#tokens).div(this.#refill).mul(THOUSAND).ceil());
    return this.#result(false, cost, retry);
  }

  refund(amount: number, nowUs: bigint): BucketResult {
    this.#advance(nowUs);
    this.#tokens = this.#tokens.add(Fraction.of(amount)).min(this.#capacity);
    return this.#result(true, amount, 0);
  }

  peek(nowUs: bigint): BucketResult {
    this.#advance(nowUs);
    return this.#result(true, 0, 0);
  }

  /** Whether a store may hold no state for this bucket (it is full). */
  get full(): boolean {
    return this.#tokens.cmp(this.#capacity) === 0;
  }
}

/** Asserts two results are equal, `remaining` up to float rounding. Returns a message or undefined. */
export function resultMismatch(actual: BucketResult, expected: BucketResult): string | undefined {
  const tolerance = 1e-9 * Math.max(1, expected.capacity);
  const same =
    actual.allowed === expected.allowed &&
    actual.cost === expected.cost &&
    actual.capacity === expected.capacity &&
    actual.retryAfterMs === expected.retryAfterMs &&
    actual.resetAfterMs === expected.resetAfterMs &&
    Math.abs(actual.remaining - expected.remaining) <= tolerance;
  return same ? undefined : `expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}
