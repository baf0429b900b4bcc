/**
 * Reference model of one token bucket, written from the rule as an event simulation in exact
 * rational arithmetic, so it shares no code and no rounding with the stores. Time is in µs
 * (bigint); token amounts are exact fractions.
 *
 * The rule: the bucket is the tokens it is missing, as of the last call that changed them, and the
 * refill rate of that call. Between calls the missing tokens refill at that rate, never below 0.
 * A call under another rate (a policy change) takes the missing tokens as they are at its instant,
 * bounded so that its own rate refills them within 1e9 s, and the tokens are its capacity minus
 * them (below 0: a debt); a call that changes the tokens makes its rate the bucket's rate from then
 * on, and so does a refused consume under another rate (the missing tokens as it counted them
 * refill at its rate from its instant). Only an admitted consume of a cost > 0, a refund of an
 * amount > 0 into a bucket that is not full, and a take of an amount > 0 (admitted whatever the
 * bucket holds, into debt) change the tokens.
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
  max(o: Fraction): Fraction {
    return this.cmp(o) >= 0 ? this : o;
  }
  get sign(): number {
    return this.n < 0n ? -1 : this.n > 0n ? 1 : 0;
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

const ZERO = new Fraction(0n);
const MICROS = new Fraction(1_000_000n);
const MAX_REFILL_SECONDS = new Fraction(1_000_000_000n);

export interface ModelOptions {
  /**
   * The rate a store keeps with the state: two rates it keeps alike are one policy (Redis: 7
   * significant digits). The model still refills at the exact rates; the caller allows for the
   * store's conversion with the kept rate. @default exact
   */
  keepRate?: (rate: number) => number;
}

/** One answer of the model: the public result, and the exact values it was rounded from. */
export interface ModelAnswer {
  result: BucketResult;
  /** Tokens held after the call (below 0: a debt; `result.remaining` clamps it at 0). */
  tokens: Fraction;
  /** µs until the asked tokens exist (denied, refilling); undefined when 0 or -1. */
  retryUs?: Fraction;
  /** µs until full (refilling, not full); undefined when 0 or -1. */
  resetUs?: Fraction;
}

/** µs → whole ms, rounded up. */
const toMs = (us: Fraction): number => Number(us.div(new Fraction(1000n)).ceil());

/** One bucket under whatever policy each call carries. */
export class BucketModel {
  readonly #keepRate: (rate: number) => number;
  /** Missing tokens as of `#at`, refilling at the rate of the call that wrote them (`#rate`). */
  #missing = ZERO;
  #at = 0n;
  /** The exact rate of the last call that changed the tokens; undefined: nothing missing. */
  #rate: number | undefined;

  constructor(options: ModelOptions = {}) {
    this.#keepRate = options.keepRate ?? ((rate) => rate);
  }

  /** The exact rate of the last call that changed the tokens (undefined: nothing missing). */
  get rate(): number | undefined {
    return this.#rate;
  }

  /** Whether a store may hold no state for this bucket (it is full). */
  get full(): boolean {
    return this.#rate === undefined;
  }

  /** The tokens missing at `nowUs` as a call under `policy` sees them. */
  missing(policy: BucketPolicy, nowUs: bigint): Fraction {
    if (this.#rate === undefined) return ZERO;
    const call = policy.refillPerSecond;
    const same = this.#keepRate(this.#rate) === this.#keepRate(call);
    if (same && this.#rate !== call) throw new Error(`model: rates ${this.#rate} and ${call} are kept alike`);
    const rate = Fraction.of(this.#rate);
    const elapsed = nowUs > this.#at ? new Fraction(nowUs - this.#at) : ZERO;
    let missing = this.#missing.sub(elapsed.mul(rate).div(MICROS)).max(ZERO);
    if (!same && call > 0) missing = missing.min(MAX_REFILL_SECONDS.mul(Fraction.of(call)));
    return missing;
  }

  /** Tokens held at `nowUs` under `policy` (below 0: a debt). */
  tokens(policy: BucketPolicy, nowUs: bigint): Fraction {
    return Fraction.of(policy.capacity).sub(this.missing(policy, nowUs));
  }

  #write(missing: Fraction, policy: BucketPolicy, nowUs: bigint): void {
    if (missing.sign <= 0) {
      this.#rate = undefined;
      this.#missing = ZERO;
      return;
    }
    this.#missing = missing;
    this.#at = nowUs;
    this.#rate = policy.refillPerSecond;
  }

  #answer(
    policy: BucketPolicy,
    missing: Fraction,
    allowed: boolean,
    cost: number,
    retry: 'none' | 'never' | Fraction,
  ): ModelAnswer {
    const rate = Fraction.of(policy.refillPerSecond);
    const tokens = Fraction.of(policy.capacity).sub(missing);
    const refills = rate.sign > 0;
    const resetUs = missing.sign > 0 && refills ? missing.div(rate).mul(MICROS) : undefined;
    let retryUs: Fraction | undefined;
    let retryAfterMs = 0;
    if (retry === 'never' || (retry !== 'none' && !refills)) retryAfterMs = -1;
    else if (retry !== 'none') {
      retryUs = retry.sub(tokens).div(rate).mul(MICROS);
      retryAfterMs = toMs(retryUs);
    }
    return {
      result: {
        allowed,
        cost,
        remaining: tokens.max(ZERO).toNumber(),
        capacity: policy.capacity,
        retryAfterMs,
        resetAfterMs: missing.sign === 0 ? 0 : resetUs === undefined ? -1 : toMs(resetUs),
      },
      tokens,
      retryUs,
      resetUs,
    };
  }

  /** Takes `cost` tokens if they exist; `decide` overrides the decision (a store's, within its tolerance). */
  consume(cost: number, policy: BucketPolicy, nowUs: bigint, decide?: boolean): ModelAnswer {
    const missing = this.missing(policy, nowUs);
    const c = Fraction.of(cost);
    // A refused consume under another rate makes it the bucket's rate (its conversion is kept).
    const changed = this.#rate !== undefined && this.#keepRate(this.#rate) !== this.#keepRate(policy.refillPerSecond);
    const convert = (): void => {
      if (changed) this.#write(missing, policy, nowUs);
    };
    if (c.cmp(Fraction.of(policy.capacity)) > 0) {
      convert();
      return this.#answer(policy, missing, false, cost, 'never');
    }
    const admit = decide ?? this.tokens(policy, nowUs).cmp(c) >= 0;
    if (!admit) {
      convert();
      return this.#answer(policy, missing, false, cost, c);
    }
    if (c.sign === 0) return this.#answer(policy, missing, true, cost, 'none');
    const after = missing.add(c);
    this.#write(after, policy, nowUs);
    return this.#answer(policy, after, true, cost, 'none');
  }

  /** Gives back `amount` tokens, never beyond the capacity. */
  refund(amount: number, policy: BucketPolicy, nowUs: bigint): ModelAnswer {
    const missing = this.missing(policy, nowUs);
    if (amount === 0 || missing.sign === 0) return this.#answer(policy, missing, true, amount, 'none');
    const after = missing.sub(Fraction.of(amount)).max(ZERO);
    this.#write(after, policy, nowUs);
    return this.#answer(policy, after, true, amount, 'none');
  }

  /**
   * Takes `amount` tokens whether or not they exist: what is missing beyond the capacity stays as a
   * debt, bounded so that the rate refills it within 1e9 s.
   */
  take(amount: number, policy: BucketPolicy, nowUs: bigint): ModelAnswer {
    const missing = this.missing(policy, nowUs);
    if (amount === 0) return this.#answer(policy, missing, true, amount, 'none');
    let after = missing.add(Fraction.of(amount));
    if (policy.refillPerSecond > 0) after = after.min(MAX_REFILL_SECONDS.mul(Fraction.of(policy.refillPerSecond)));
    this.#write(after, policy, nowUs);
    return this.#answer(policy, after, true, amount, 'none');
  }

  peek(policy: BucketPolicy, nowUs: bigint): ModelAnswer {
    return this.#answer(policy, this.missing(policy, nowUs), true, 0, 'none');
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

/** Whole ms a time of `us` ± `slackUs` may be reported as (rounded up). */
function msWindow(us: Fraction, slackUs: number): [number, number] {
  const exact = us.toNumber();
  return [Math.max(0, Math.ceil((exact - slackUs) / 1000)), Math.ceil((exact + slackUs) / 1000)];
}

/**
 * Compares a store's result with the model's answer, allowing `toleranceTokens` of difference in
 * the tokens (the stores' tick rounding, see the caller) and the times that follow from it at the
 * call's rate. Decisions, costs and capacities must be equal. Returns a message or undefined.
 */
export function answerMismatch(
  actual: BucketResult,
  expected: ModelAnswer,
  policy: BucketPolicy,
  toleranceTokens: number,
): string | undefined {
  const want = expected.result;
  const problems: string[] = [];
  if (actual.allowed !== want.allowed) problems.push('allowed');
  if (actual.cost !== want.cost || actual.capacity !== want.capacity) problems.push('cost or capacity');
  const tokens = toleranceTokens + 1e-9 * Math.max(1, policy.capacity);
  if (Math.abs(actual.remaining - want.remaining) > tokens) problems.push('remaining');
  // A token off at the call's rate is this much time; plus a tick (0.25 µs) for the reply's rounding.
  const slackUs = policy.refillPerSecond > 0 ? (toleranceTokens * 1e6) / policy.refillPerSecond + 0.25 : 0;
  const times: Array<['retryAfterMs' | 'resetAfterMs', Fraction | undefined]> = [
    ['retryAfterMs', expected.retryUs],
    ['resetAfterMs', want.resetAfterMs === 0 ? ZERO : expected.resetUs],
  ];
  for (const [name, exact] of times) {
    if (exact === undefined) {
      if (actual[name] !== want[name]) problems.push(name);
      continue;
    }
    const [low, high] = msWindow(exact, slackUs);
    if (actual[name] < low || actual[name] > high) problems.push(name);
  }
  if (problems.length === 0) return undefined;
  return `${problems.join(', ')}: expected ${JSON.stringify(want)} (tokens ${expected.tokens.toNumber()}), got ${JSON.stringify(actual)}`;
}

/** What the model answers for a charge of several buckets at once. */
export interface MultiModelAnswer {
  allowed: boolean;
  answers: ModelAnswer[];
  retryAfterMs: number;
  binding: number;
}

/**
 * Takes `cost` from every bucket if each holds it, otherwise from none (the rule of `consumeAll`):
 * every bucket answers as a consume of its own would have been decided; when nothing was taken,
 * one that could pay answers as it stands (a peek, asked for `cost`). The wait is the longest of
 * the buckets' waits, -1 when one never can; the binding bucket is the one it comes from (denied)
 * or the one with the fewest tokens left (allowed), the first of equals.
 */
export function consumeAllModel(
  models: readonly BucketModel[],
  policies: readonly BucketPolicy[],
  cost: number,
  nowUs: bigint,
): MultiModelAnswer {
  const c = Fraction.of(cost);
  const pays = models.map(
    (model, i) =>
      c.cmp(Fraction.of((policies[i] as BucketPolicy).capacity)) <= 0 &&
      model.tokens(policies[i] as BucketPolicy, nowUs).cmp(c) >= 0,
  );
  if (pays.every(Boolean)) {
    const answers = models.map((model, i) => model.consume(cost, policies[i] as BucketPolicy, nowUs));
    let binding = 0;
    answers.forEach((answer, i) => {
      if (answer.result.remaining < (answers[binding] as ModelAnswer).result.remaining) binding = i;
    });
    return { allowed: true, answers, retryAfterMs: 0, binding };
  }
  const answers = models.map((model, i) => {
    const policy = policies[i] as BucketPolicy;
    if (!pays[i]) return model.consume(cost, policy, nowUs);
    const peek = model.peek(policy, nowUs);
    return { ...peek, result: { ...peek.result, cost } };
  });
  const never = answers.findIndex((answer) => !answer.result.allowed && answer.result.retryAfterMs < 0);
  if (never >= 0) return { allowed: false, answers, retryAfterMs: -1, binding: never };
  let binding = -1;
  answers.forEach((answer, i) => {
    if (answer.result.allowed) return;
    if (binding < 0 || answer.result.retryAfterMs > (answers[binding] as ModelAnswer).result.retryAfterMs) binding = i;
  });
  return { allowed: false, answers, retryAfterMs: (answers[binding] as ModelAnswer).result.retryAfterMs, binding };
}
