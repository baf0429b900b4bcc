import { keepsDeadline } from './deadline-keepers.js';
import {
  bucketStep,
  TICKS_PER_US,
  toBucketResult,
  type BucketOp,
  type BucketState,
  type BucketStep,
} from './bucket-math.js';
import { bucketKey } from './bucket-key.js';
import { BucketTable } from './bucket-table.js';
import { EvictedDebts } from './evicted-debts.js';
import { allowedResult, deniedResult } from './multi-charge.js';
import { checkKnownOptions } from '../known-options.js';
import { checkCall, checkCallOptions, checkLimits, checkNumber, describe } from './validate.js';
import type {
  BucketCallOptions,
  BucketLimit,
  BucketPolicy,
  BucketResult,
  BucketStore,
  MultiBucketResult,
} from './types.js';

/** Options of `MemoryBucketStore`. */
export interface MemoryBucketStoreOptions {
  /**
   * Most buckets kept at once. When a write would hold one more, the bucket that owes least at
   * that moment leaves the table (missing tokens, whatever its refill rate; a refilled bucket owes
   * nothing), maybe the one just written, and what it owes is kept in a ledger of evicted debts:
   * 2 × `maxKeys` slots rounded up to a power of two, 20 bytes each (5.2 MB at the default),
   * made at the first eviction, in sets of 16 that each keep their 16 largest debts. A caller
   * therefore cannot erase a debt with many barely used identities, and needs about 3 × `maxKeys`
   * identities that each owe more to erase one (the median; docs/security.md has the figures). Full buckets
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

/** Slots of the ledger of evicted debts per `maxKeys` (rounded up to a power of two). */
const EVICTED_SLOTS_PER_KEY = 2;

const OPTION_NAMES: readonly (keyof MemoryBucketStoreOptions)[] = ['maxKeys', 'now', 'sweepIntervalMs'];

/**
 * Token buckets in this process: the same arithmetic as `lua/bucket.lua` (state: the refill rate
 * each bucket was last written with and the instant it is full again, or its missing tokens when
 * it never refills) and the same results as `RedisBucketStore`, on an injectable clock read in
 * whole µs. A policy change keeps the missing tokens, as in Redis; the rate is kept exactly, as
 * in Redis. Operations are
 * synchronous underneath, so every call meets its `timeoutMs`. Memory is bounded by `maxKeys`
 * buckets plus a fixed ledger of what evicted ones owe (eviction takes the bucket that owes least
 * first); buckets of `refillPerSecond` 0 never refill and so stay until refunded or evicted.
 *
 * Several buckets at once (`consumeAll`, `refundAll`, `peekAll`): one clock reading for all of
 * them, and a consume takes the cost from every bucket or from none, as one Redis script call
 * does. As in Redis, a bucket is its key and its hash tag: the same key under another tag, or
 * none, is another bucket (the tag places nothing here).
 */
export class MemoryBucketStore implements BucketStore {
  /** key → state (see `bucketStep`), ordered by what each owes. */
  readonly #buckets = new BucketTable();
  /** What evicted buckets still owe; made at the first eviction. */
  #evicted: EvictedDebts | undefined;
  readonly #maxKeys: number;
  readonly #now: () => number;
  readonly #sweepIntervalMs: number;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: MemoryBucketStoreOptions = {}) {
    if (typeof options !== 'object' || options === null) {
      throw new TypeError(`MemoryBucketStore options must be an object, got ${describe(options)}`);
    }
    checkKnownOptions('MemoryBucketStore options', options, OPTION_NAMES);
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
    keepsDeadline(this);
  }

  /** Number of buckets held (full buckets are not held once read or swept). */
  get size(): number {
    return this.#buckets.size;
  }

  async consume(key: string, cost: number, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    checkCall(key, 'cost', cost, policy, options);
    return this.#run(tableKey(key), 'consume', cost, policy, this.#nowUs());
  }

  async refund(key: string, amount: number, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    checkCall(key, 'amount', amount, policy, options);
    return this.#run(tableKey(key), 'refund', amount, policy, this.#nowUs());
  }

  async peek(key: string, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    checkCall(key, undefined, 0, policy, options);
    return this.#run(tableKey(key), 'peek', 0, policy, this.#nowUs());
  }

  async consumeAll(
    limits: readonly BucketLimit[],
    cost: number,
    options?: BucketCallOptions,
  ): Promise<MultiBucketResult> {
    checkLimits(limits);
    checkNumber('cost', cost, false);
    checkCallOptions(options);
    const nowUs = this.#nowUs();
    const keys = limits.map((limit) => tableKey(limit.key, limit.hashTag));
    const steps = limits.map((limit, index) =>
      bucketStep(this.#stateOf(keys[index] as string, nowUs), 'consume', cost, limit.policy, nowUs),
    );
    if (steps.every((step) => step.reply.status === 'ok')) {
      const results = limits.map((limit, index) =>
        this.#keep(keys[index] as string, steps[index] as BucketStep, cost, limit.policy, nowUs),
      );
      return allowedResult(results);
    }
    // Denied: nothing is taken (a bucket that refused keeps a policy change's conversion, as its
    // step says); a bucket that could pay is reported as it stands (as peek reads it).
    const results = limits.map((limit, index) => {
      const step = steps[index] as BucketStep;
      const key = keys[index] as string;
      if (step.reply.status !== 'ok') return this.#keep(key, step, cost, limit.policy, nowUs);
      return this.#run(key, 'peek', cost, limit.policy, nowUs);
    });
    return deniedResult(results);
  }

  async refundAll(
    limits: readonly BucketLimit[],
    amount: number,
    options?: BucketCallOptions,
  ): Promise<BucketResult[]> {
    checkLimits(limits);
    checkNumber('amount', amount, false);
    checkCallOptions(options);
    const nowUs = this.#nowUs();
    return limits.map((limit) => this.#run(tableKey(limit.key, limit.hashTag), 'refund', amount, limit.policy, nowUs));
  }

  async takeAll(limits: readonly BucketLimit[], amount: number, options?: BucketCallOptions): Promise<BucketResult[]> {
    checkLimits(limits);
    checkNumber('amount', amount, false);
    checkCallOptions(options);
    const nowUs = this.#nowUs();
    return limits.map((limit) => this.#run(tableKey(limit.key, limit.hashTag), 'take', amount, limit.policy, nowUs));
  }

  async peekAll(limits: readonly BucketLimit[], options?: BucketCallOptions): Promise<BucketResult[]> {
    checkLimits(limits);
    checkCallOptions(options);
    const nowUs = this.#nowUs();
    return limits.map((limit) => this.#run(tableKey(limit.key, limit.hashTag), 'peek', 0, limit.policy, nowUs));
  }

  /** Drops every bucket that has refilled; returns how many were dropped. */
  sweep(): number {
    const dropped = this.#buckets.dropFull(this.#nowUs() * TICKS_PER_US);
    if (this.#buckets.size === 0) this.#stopSweeping();
    return dropped;
  }

  /** One operation at `nowUs`; a peek answers with `amount` as its cost (0 from `peek`). */
  #run(key: string, op: BucketOp, amount: number, policy: BucketPolicy, nowUs: number): BucketResult {
    const step = bucketStep(this.#stateOf(key, nowUs), op, amount, policy, nowUs);
    return this.#keep(key, step, amount, policy, nowUs);
  }

  /** Keeps what `step` computed for `key` and answers with it. */
  #keep(key: string, step: BucketStep, cost: number, policy: BucketPolicy, nowUs: number): BucketResult {
    const stored = this.#buckets.get(key);
    if (step.write) {
      // A key is in the table or in the ledger, never both: only a state read from the ledger is there.
      if (stored === undefined) this.#evicted?.delete(key);
      if (step.state === undefined) this.#buckets.delete(key);
      else this.#insert(key, step.state, nowUs);
    } else if (stored !== undefined && stored.rate > 0 && stored.value <= nowUs * TICKS_PER_US) {
      this.#buckets.delete(key); // refilled: a full bucket is not kept
    }
    return toBucketResult(step.reply, cost, policy.capacity);
  }

  /** The state of `key`'s bucket: held, or remembered since its eviction (undefined: full). */
  #stateOf(key: string, nowUs: number): BucketState | undefined {
    return this.#buckets.get(key) ?? this.#evicted?.get(key, nowUs * TICKS_PER_US);
  }

  /**
   * Keeps `state` for `key`; one bucket too many evicts the one that owes least (maybe this one),
   * whose debt goes to the ledger of evicted debts.
   */
  #insert(key: string, state: BucketState, nowUs: number): void {
    this.#buckets.set(key, state);
    if (this.#buckets.size > this.#maxKeys) {
      const nowTicks = nowUs * TICKS_PER_US;
      const evicted = this.#buckets.evict(nowTicks);
      if (evicted !== undefined) {
        this.#evicted ??= new EvictedDebts(EVICTED_SLOTS_PER_KEY * this.#maxKeys);
        this.#evicted.put(evicted.key, evicted.state, nowTicks);
      }
    }
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

/**
 * A bucket's name in the table: its Redis key without a prefix (`bucketKey`), so a tagged bucket
 * never has an untagged one's name and every name is at most 136 characters, whatever the
 * identity: a long one is kept as its SHA-256, not as the bytes a client sent.
 */
function tableKey(key: string, hashTag?: string): string {
  return bucketKey('', key, hashTag);
}
