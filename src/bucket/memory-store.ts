import { bucketStep, TICKS_PER_US, toBucketResult, type BucketOp, type BucketState } from './bucket-math.js';
import { checkCall, checkNumber } from './validate.js';
import type { BucketCallOptions, BucketPolicy, BucketResult, BucketStore } from './types.js';

/** Options of `MemoryBucketStore`. */
export interface MemoryBucketStoreOptions {
  /**
   * Most buckets kept at once. When a new bucket needs room, the least recently used one (read
   * or written) is dropped: that caller starts again with a full bucket (eviction forgives its debt). Full buckets
   * are never kept, so this only bounds callers that are all refilling at the same time.
   * Must be an integer ≥ 1.
   * @default 100_000
   */
  maxKeys?: number;
  /**
   * The clock, in milliseconds (may be fractional; read to the nearest whole µs, as Redis `TIME`
   * counts). Only differences matter.
   * @default () => performance.now()
   */
  now?: () => number;
  /**
   * How often a background sweep drops buckets that have refilled (ms). The timer is unref'd and
   * runs only while buckets are stored; full buckets are also dropped whenever they are read.
   * Must be a finite number > 0.
   * @default 1000
   */
  sweepIntervalMs?: number;
}

const DEFAULTS = { maxKeys: 100_000, sweepIntervalMs: 1000 } as const;

/**
 * Token buckets in this process: the same arithmetic as `lua/bucket.lua` (state: the refill rate
 * each bucket was last written with and the instant it is full again, or its missing tokens when
 * it never refills) and the same results as `RedisBucketStore`, on an injectable clock read in
 * whole µs. A policy change keeps the missing tokens, as in Redis; the rate is kept exactly here
 * (Redis keeps it to 7 significant digits, which only matters at a policy change). Operations are
 * synchronous underneath, so every call meets its `timeoutMs`. Memory is bounded by `maxKeys`;
 * buckets of `refillPerSecond` 0 never refill and so stay until refunded or evicted.
 */
export class MemoryBucketStore implements BucketStore {
  /** key → state (see `bucketStep`); insertion order is least recently used first. */
  readonly #buckets = new Map<string, BucketState>();
  readonly #maxKeys: number;
  readonly #now: () => number;
  readonly #sweepIntervalMs: number;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: MemoryBucketStoreOptions = {}) {
    const maxKeys = options.maxKeys ?? DEFAULTS.maxKeys;
    if (typeof maxKeys !== 'number' || !Number.isInteger(maxKeys) || maxKeys < 1) {
      const error = typeof maxKeys === 'number' ? RangeError : TypeError;
      throw new error(`options.maxKeys must be an integer >= 1, got ${String(maxKeys)}`);
    }
    const now = options.now ?? (() => performance.now());
    if (typeof now !== 'function') throw new TypeError(`options.now must be a function, got ${typeof now}`);
    const sweepIntervalMs = options.sweepIntervalMs ?? DEFAULTS.sweepIntervalMs;
    checkNumber('options.sweepIntervalMs', sweepIntervalMs, true);
    this.#maxKeys = maxKeys;
    this.#now = now;
    this.#sweepIntervalMs = sweepIntervalMs;
  }

  /** Number of buckets held (full buckets are not held once read or swept). */
  get size(): number {
    return this.#buckets.size;
  }

  async consume(key: string, cost: number, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    checkCall(key, 'cost', cost, policy, options);
    return this.#run(key, 'consume', cost, policy);
  }

  async refund(key: string, amount: number, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    checkCall(key, 'amount', amount, policy, options);
    return this.#run(key, 'refund', amount, policy);
  }

  async peek(key: string, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    checkCall(key, undefined, 0, policy, options);
    return this.#run(key, 'peek', 0, policy);
  }

  /** Drops every bucket that has refilled; returns how many were dropped. */
  sweep(): number {
    const nowTicks = this.#nowUs() * TICKS_PER_US;
    let dropped = 0;
    for (const [key, state] of this.#buckets) {
      if (state.rate > 0 && state.value <= nowTicks) {
        this.#buckets.delete(key);
        dropped++;
      }
    }
    if (this.#buckets.size === 0) this.#stopSweeping();
    return dropped;
  }

  #run(key: string, op: BucketOp, amount: number, policy: BucketPolicy): BucketResult {
    const nowUs = this.#nowUs();
    const stored = this.#buckets.get(key);
    const step = bucketStep(stored, op, amount, policy, nowUs);
    if (step.write) {
      this.#buckets.delete(key);
      if (step.state !== undefined) this.#insert(key, step.state);
    } else if (stored !== undefined) {
      this.#buckets.delete(key);
      if (stored.rate === 0 || stored.value > nowUs * TICKS_PER_US) this.#buckets.set(key, stored); // touched; a refilled one is dropped
    }
    return toBucketResult(step.reply, op === 'peek' ? 0 : amount, policy.capacity);
  }

  #insert(key: string, state: BucketState): void {
    if (this.#buckets.size >= this.#maxKeys) {
      const oldest = this.#buckets.keys().next().value;
      if (oldest !== undefined) this.#buckets.delete(oldest);
    }
    this.#buckets.set(key, state);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.sweep(), this.#sweepIntervalMs);
      this.#timer.unref();
    }
  }

  #stopSweeping(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** The clock in whole µs, as Redis `TIME` reads it. */
  #nowUs(): number {
    return Math.round(this.#now() * 1000);
  }
}
