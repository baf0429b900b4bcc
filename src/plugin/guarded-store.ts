import type { GraphQLServerContext } from '@apollo/server';
import { BucketStoreTimeoutError } from '../bucket/errors.js';
import type { BucketPolicy, BucketResult, BucketStore } from '../bucket/types.js';
import { CircuitBreaker, type CircuitBreakerOptions, type CircuitState } from './circuit-breaker.js';
import type { StoreOutcome } from './decision-event.js';

type Logger = GraphQLServerContext['logger'];

/** How long after the store's own deadline the plugin stops waiting for a store that ignores it (ms). */
export const BACKSTOP_GRACE_MS = 20;

/** Circuit breakers kept at most, one per store partition (see `BucketStore.partitionOf`). */
export const MAX_BREAKERS = 1024;

/** What happens to a request when the bucket store errors or misses its deadline. */
export type StoreErrorPolicy = 'allow' | 'deny' | 'local';

/** The outcome of charging a caller. */
export type Charge =
  | {
      status: 'answered';
      result: BucketResult;
      /** The store that answered (the primary, or the in-process fallback). Refunds go there. */
      store: BucketStore;
      /** `ok` (the store) or `fallback` (the in-process bucket, the store being unavailable). */
      outcome: 'ok' | 'fallback';
    }
  | {
      /** Neither the store nor a fallback answered; `onStoreError` is `'allow'` or `'deny'`. */
      status: 'unavailable';
      /** When it is worth trying again (ms). */
      retryAfterMs: number;
      outcome: Unavailable;
    };

/** Why the store did not answer. */
type Unavailable = 'timeout' | 'error' | 'breaker_open';

/** Hears every store call and breaker change (the plugin's metrics). */
export interface StoreObserver {
  storeCall(outcome: Exclude<StoreOutcome, 'not_called'>, seconds: number): void;
  breakerTransition(partition: string, state: CircuitState): void;
}

export interface GuardedStoreOptions {
  store: BucketStore;
  timeoutMs: number;
  /** Options of every partition's circuit breaker. */
  breaker: Required<CircuitBreakerOptions>;
  /** The breakers' clock (ms). @default performance.now */
  now?: () => number;
  /** The in-process store used while the primary is unavailable (`onStoreError: 'local'`). */
  fallback: BucketStore | undefined;
  observer?: StoreObserver;
}

/**
 * The bucket store behind a deadline and circuit breakers: every call either answers within
 * `timeoutMs` or is reported as unavailable (or answered by the fallback), never thrown.
 *
 * One breaker per partition of the store (`BucketStore.partitionOf`: a Redis Cluster master, say),
 * created when the partition is first seen, so a failing partition stops only the calls for the
 * keys it holds. A store without `partitionOf` is one partition. At most `MAX_BREAKERS` are kept:
 * beyond that a closed breaker is forgotten first (it holds only a count of recent failures), and
 * an open one only when none is closed.
 *
 * The deadline itself is the store's (`timeoutMs` call option): a store call that misses it rejects,
 * and the command has no effect if it reaches Redis later, so a late answer never charges. A store
 * that ignores `timeoutMs` (a custom one) is still cut off here, `BACKSTOP_GRACE_MS` after the
 * deadline, so no request waits on it; such a store's late answer is not undone.
 */
export class GuardedStore {
  readonly #store: BucketStore;
  readonly #timeoutMs: number;
  readonly #breakerOptions: Required<CircuitBreakerOptions>;
  readonly #now: () => number;
  /** The breaker of a store without partitions. */
  readonly #single: Partition | undefined;
  /** Partition name → its breaker, oldest first (a store with partitions). */
  readonly #partitions = new Map<string, Partition>();
  readonly #fallback: BucketStore | undefined;
  readonly #observer: StoreObserver | undefined;

  constructor(options: GuardedStoreOptions) {
    this.#observer = options.observer;
    this.#store = options.store;
    this.#timeoutMs = options.timeoutMs;
    this.#breakerOptions = options.breaker;
    this.#now = options.now ?? (() => performance.now());
    this.#fallback = options.fallback;
    this.#single =
      typeof options.store.partitionOf === 'function'
        ? undefined
        : { name: undefined, breaker: this.#newBreaker(undefined) };
  }

  /** Takes `cost` tokens from `key`'s bucket if they exist (see `BucketStore.consume`). */
  async consume(key: string, cost: number, policy: BucketPolicy, logger: Logger): Promise<Charge> {
    const partition = this.#partitionOf(key, logger);
    const answer = await this.#call(partition, logger, (options) => this.#store.consume(key, cost, policy, options));
    if (typeof answer === 'object') return { status: 'answered', result: answer, store: this.#store, outcome: 'ok' };
    if (this.#fallback) {
      const started = performance.now();
      const result = await this.#fallback.consume(key, cost, policy);
      this.#observer?.storeCall('fallback', (performance.now() - started) / 1000);
      return { status: 'answered', result, store: this.#fallback, outcome: 'fallback' };
    }
    return { status: 'unavailable', retryAfterMs: Math.max(partition.breaker.msUntilProbe(), 1), outcome: answer };
  }

  /** Reads `key`'s bucket without changing it (a dry run), with the same deadline, breaker and fallback. */
  async peek(key: string, policy: BucketPolicy, logger: Logger): Promise<Charge> {
    const partition = this.#partitionOf(key, logger);
    const answer = await this.#call(partition, logger, (options) => this.#store.peek(key, policy, options));
    if (typeof answer === 'object') return { status: 'answered', result: answer, store: this.#store, outcome: 'ok' };
    if (this.#fallback) {
      return {
        status: 'answered',
        result: await this.#fallback.peek(key, policy),
        store: this.#fallback,
        outcome: 'fallback',
      };
    }
    return { status: 'unavailable', retryAfterMs: Math.max(partition.breaker.msUntilProbe(), 1), outcome: answer };
  }

  /** The state of the breaker of `key`'s partition (`'closed'` for a partition not seen yet). */
  stateOf(key: string): CircuitState {
    if (this.#single) return this.#single.breaker.state;
    const name = this.#store.partitionOf?.(key);
    return (name === undefined ? undefined : this.#partitions.get(name))?.breaker.state ?? 'closed';
  }

  /**
   * Gives `amount` tokens back to the store that charged them, in one call. Returns the bucket
   * afterwards, or undefined when the store did not answer (the refund is then lost: the caller
   * paid the estimate, never more).
   */
  async refund(
    store: BucketStore,
    key: string,
    amount: number,
    policy: BucketPolicy,
    logger: Logger,
  ): Promise<BucketResult | undefined> {
    if (store !== this.#store) return store.refund(key, amount, policy);
    const partition = this.#partitionOf(key, logger);
    const answer = await this.#call(partition, logger, (options) => this.#store.refund(key, amount, policy, options));
    return typeof answer === 'object' ? answer : undefined;
  }

  #newBreaker(name: string | undefined): CircuitBreaker {
    const observer = this.#observer;
    const onTransition =
      observer === undefined ? undefined : (state: CircuitState) => observer.breakerTransition(name ?? 'store', state);
    return new CircuitBreaker(this.#breakerOptions, this.#now, onTransition);
  }

  /** The breaker of the partition holding `key`'s bucket, created on first sight. */
  #partitionOf(key: string, logger: Logger): Partition {
    if (this.#single) return this.#single;
    let name: string;
    try {
      name = String((this.#store.partitionOf as (key: string) => string).call(this.#store, key));
    } catch (error) {
      logger.debug(
        `graphql-budget: the bucket store's partitionOf failed: ${error instanceof Error ? error.message : String(error)}`,
      );
      name = '';
    }
    let partition = this.#partitions.get(name);
    if (partition === undefined) {
      if (this.#partitions.size >= MAX_BREAKERS) this.#forgetOne();
      partition = { name, breaker: this.#newBreaker(name) };
      this.#partitions.set(name, partition);
    }
    return partition;
  }

  /** Makes room for one breaker: the oldest closed one, or the oldest of all when none is closed. */
  #forgetOne(): void {
    for (const [name, partition] of this.#partitions) {
      if (partition.breaker.state === 'closed') {
        this.#partitions.delete(name);
        return;
      }
    }
    const oldest = this.#partitions.keys().next();
    if (oldest.done !== true) this.#partitions.delete(oldest.value);
  }

  async #call(
    partition: Partition,
    logger: Logger,
    run: (options: { timeoutMs: number }) => Promise<BucketResult>,
  ): Promise<BucketResult | Unavailable> {
    const { breaker } = partition;
    if (!breaker.tryAcquire()) {
      this.#observer?.storeCall('breaker_open', 0);
      return 'breaker_open';
    }
    const started = performance.now();
    try {
      const result = await withBackstop(run({ timeoutMs: this.#timeoutMs }), this.#timeoutMs + BACKSTOP_GRACE_MS);
      this.#observer?.storeCall('ok', (performance.now() - started) / 1000);
      if (breaker.recordSuccess()) {
        logger.info(
          `graphql-budget: the bucket store${where(partition)} answers again; budgets are enforced by it again.`,
        );
      }
      return result;
    } catch (error) {
      const outcome =
        error instanceof BucketStoreTimeoutError || error instanceof BackstopTimeout ? 'timeout' : 'error';
      this.#observer?.storeCall(outcome, (performance.now() - started) / 1000);
      const wasClosed = breaker.state === 'closed';
      const opened = breaker.recordFailure();
      const reason = error instanceof Error ? error.message : String(error);
      if (opened && wasClosed) {
        logger.warn(
          `graphql-budget: the bucket store failed (${reason}); not calling it for ${Math.ceil(breaker.msUntilProbe())} ms ` +
            `before probing it again${where(partition)}. onStoreError decides ` +
            `${partition.name === undefined ? 'requests' : 'the requests for keys in that partition'} meanwhile.`,
        );
      } else {
        logger.debug(`graphql-budget: bucket store call failed${where(partition)}: ${reason}`);
      }
      return outcome;
    }
  }
}

/** A part of the store that fails on its own, and its circuit breaker. */
interface Partition {
  /** `BucketStore.partitionOf`'s name; undefined for a store without partitions. */
  readonly name: string | undefined;
  readonly breaker: CircuitBreaker;
}

/** " (partition X)" for log lines, or nothing for a store without partitions. */
function where(partition: Partition): string {
  return partition.name === undefined ? '' : ` (partition ${partition.name})`;
}

/** Rejects when `call` has not settled after `ms`; its late result is dropped (and a late rejection handled). */
function withBackstop<T>(call: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new BackstopTimeout(`the bucket store did not answer within ${ms} ms`)), ms);
    call.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** The store ignored its deadline and the backstop gave up on it. */
class BackstopTimeout extends Error {}
