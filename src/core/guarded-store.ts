import { isDeadlineKeeper } from '../bucket/deadline-keepers.js';
import { BucketStoreTimeoutError } from '../bucket/errors.js';
import { allowedResult, consumeInOrder, deniedResult } from '../bucket/multi-charge.js';
import type { BucketCallOptions, BucketLimit, BucketResult, BucketStore, MultiBucketResult } from '../bucket/types.js';
import { CircuitBreaker, type CircuitBreakerOptions, type CircuitState } from './circuit-breaker.js';
import type { LastKnown } from './last-known.js';
import type { BudgetLogger } from './logger.js';
import type { StoreOutcome } from './outcomes.js';

type Logger = BudgetLogger;

/** How long after the store's own deadline the plugin stops waiting for a store that ignores it (ms). */
export const BACKSTOP_GRACE_MS = 20;

/** Circuit breakers kept at most, one per store partition (see `BucketStore.partitionOf`). */
export const MAX_BREAKERS = 1024;

/** The outcome of charging a caller's buckets. */
export type Charge =
  | {
      status: 'answered';
      /** Every bucket's answer, all-or-nothing. */
      answer: MultiBucketResult;
      /** The store that answered (the primary, or the in-process fallback). Refunds go there. */
      store: BucketStore;
      /** `ok` (the store) or `fallback` (the in-process buckets, the store being unavailable). */
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
  storeCall(outcome: Exclude<StoreOutcome, 'not_called' | 'deny_cache'>, seconds: number): void;
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
  /** Told every bucket the primary answered for (where the fallback starts from). */
  known?: LastKnown;
  observer?: StoreObserver;
}

type Operation = 'consume' | 'refund' | 'peek';

/**
 * The bucket store behind a deadline and circuit breakers: every call either answers within
 * `timeoutMs` or is reported as unavailable (or answered by the fallback), never thrown.
 *
 * An operation's buckets are charged all-or-nothing: one bucket with the store's `consume`, several
 * with its `consumeAll` (atomic where the store can be), or, for a store without one, one after
 * another with give-back (`consumeInOrder`). The in-process fallback charges the same buckets the
 * same way.
 *
 * One breaker per partition of the store (`BucketStore.partitionOf`: a Redis Cluster master, say),
 * created when the partition is first seen, so a failing partition stops only the calls for the
 * keys it holds. A call over buckets of several partitions needs every one of their breakers to let
 * it through, and its success or failure counts for each of them. A store without `partitionOf` is
 * one partition. At most `MAX_BREAKERS` are kept: beyond that a closed breaker is forgotten first
 * (it holds only a count of recent failures), and an open one only when none is closed.
 *
 * The deadline itself is the store's (`timeoutMs` call option): a store call that misses it rejects,
 * and the command has no effect if it reaches Redis later, so a late answer never charges. A store
 * that ignores `timeoutMs` (a custom one) is still cut off here, `BACKSTOP_GRACE_MS` after the
 * deadline, so no request waits on it; such a store's late answer is not undone. This library's
 * own stores keep their deadline themselves, and get no timer of the guard's.
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
  readonly #known: LastKnown | undefined;
  /** Whether the store cuts its calls off at their deadline itself (this library's stores do). */
  readonly #keepsDeadline: boolean;

  constructor(options: GuardedStoreOptions) {
    this.#observer = options.observer;
    this.#store = options.store;
    this.#timeoutMs = options.timeoutMs;
    this.#breakerOptions = options.breaker;
    this.#now = options.now ?? (() => performance.now());
    this.#fallback = options.fallback;
    this.#known = options.known;
    this.#keepsDeadline = isDeadlineKeeper(options.store);
    this.#single =
      typeof options.store.partitionOf === 'function'
        ? undefined
        : { name: undefined, breaker: this.#newBreaker(undefined) };
  }

  /** Takes `cost` tokens from every bucket if each holds them, otherwise from none (see `BucketStore.consumeAll`). */
  async consume(limits: readonly BucketLimit[], cost: number, logger: Logger): Promise<Charge> {
    return this.#charge('consume', limits, cost, logger);
  }

  /** Reads the buckets without changing them (a dry run), with the same deadline, breakers and fallback. */
  async peek(limits: readonly BucketLimit[], logger: Logger): Promise<Charge> {
    return this.#charge('peek', limits, 0, logger);
  }

  /**
   * Gives `amount` tokens back to every bucket, in the store that charged them. Returns the buckets
   * afterwards, or undefined when the store did not answer (the refund is then lost: the caller
   * paid the estimate, never more).
   */
  async refund(
    store: BucketStore,
    limits: readonly BucketLimit[],
    amount: number,
    logger: Logger,
  ): Promise<BucketResult[] | undefined> {
    if (store !== this.#store) return refundOn(store, limits, amount);
    const partitions = this.#partitionsOf(limits, logger);
    const answer = await this.#call(partitions, logger, (options) => refundOn(this.#store, limits, amount, options));
    if (typeof answer !== 'object') return undefined;
    this.#remember(limits, answer);
    return answer;
  }

  /**
   * Takes `amount` more tokens from every bucket, in the store that charged them, into debt where a
   * bucket lacks them (`BucketStore.takeAll`; a store without it has what each bucket still holds
   * taken with `consume`). Returns the buckets afterwards, or undefined when the store did not
   * answer (the excess is then lost).
   */
  /** The store it guards. */
  get primary(): BucketStore {
    return this.#store;
  }

  async take(
    store: BucketStore,
    limits: readonly BucketLimit[],
    amount: number,
    logger: Logger,
  ): Promise<BucketResult[] | undefined> {
    if (store !== this.#store) return takeOn(store, limits, amount);
    const partitions = this.#partitionsOf(limits, logger);
    const answer = await this.#call(partitions, logger, (options) => takeOn(this.#store, limits, amount, options));
    if (typeof answer !== 'object') return undefined;
    this.#remember(limits, answer);
    return answer;
  }

  /** The state of the breaker of `key`'s partition (`'closed'` for a partition not seen yet). */
  stateOf(key: string, hashTag?: string): CircuitState {
    if (this.#single) return this.#single.breaker.state;
    const name = this.#store.partitionOf?.(key, hashTag);
    return (name === undefined ? undefined : this.#partitions.get(name))?.breaker.state ?? 'closed';
  }

  async #charge(operation: Operation, limits: readonly BucketLimit[], cost: number, logger: Logger): Promise<Charge> {
    const partitions = this.#partitionsOf(limits, logger);
    const answer = await this.#call(partitions, logger, (options) =>
      chargeOn(this.#store, operation, limits, cost, options),
    );
    if (typeof answer === 'object') {
      this.#remember(limits, answer.results);
      return { status: 'answered', answer, store: this.#store, outcome: 'ok' };
    }
    if (this.#fallback) {
      const started = performance.now();
      const fallback = await chargeOn(this.#fallback, operation, limits, cost, undefined);
      this.#observer?.storeCall('fallback', (performance.now() - started) / 1000);
      return { status: 'answered', answer: fallback, store: this.#fallback, outcome: 'fallback' };
    }
    const retryAfterMs = Math.max(1, ...partitions.map((partition) => partition.breaker.msUntilProbe()));
    return { status: 'unavailable', retryAfterMs, outcome: answer };
  }

  /** What the primary said of each bucket, for the fallback to start from. */
  #remember(limits: readonly BucketLimit[], results: readonly BucketResult[]): void {
    const known = this.#known;
    if (known === undefined) return;
    for (const [index, limit] of limits.entries()) {
      const result = results[index];
      if (result !== undefined) known.record(limit, result);
    }
  }

  #newBreaker(name: string | undefined): CircuitBreaker {
    const observer = this.#observer;
    const onTransition =
      observer === undefined ? undefined : (state: CircuitState) => observer.breakerTransition(name ?? 'store', state);
    return new CircuitBreaker(this.#breakerOptions, this.#now, onTransition);
  }

  /** The breakers of the partitions holding the buckets (each once). */
  #partitionsOf(limits: readonly BucketLimit[], logger: Logger): Partition[] {
    if (this.#single) return [this.#single];
    const found: Partition[] = [];
    for (const limit of limits) {
      const partition = this.#partitionOf(limit, logger);
      if (!found.includes(partition)) found.push(partition);
    }
    return found;
  }

  /** The breaker of the partition holding a bucket, created on first sight. */
  #partitionOf(limit: BucketLimit, logger: Logger): Partition {
    let name: string;
    try {
      const partitionOf = this.#store.partitionOf as (key: string, hashTag?: string) => string;
      name = String(partitionOf.call(this.#store, limit.key, limit.hashTag));
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

  async #call<T>(
    partitions: readonly Partition[],
    logger: Logger,
    run: (options: BucketCallOptions) => Promise<T>,
  ): Promise<T | Unavailable> {
    // Every breaker must let the call through; checked first, so a probe is never taken for nothing.
    if (!partitions.every((partition) => partition.breaker.canAcquire())) {
      this.#observer?.storeCall('breaker_open', 0);
      return 'breaker_open';
    }
    for (const partition of partitions) partition.breaker.tryAcquire();
    const started = performance.now();
    try {
      const running = run({ timeoutMs: this.#timeoutMs });
      const result = await (this.#keepsDeadline ? running : withBackstop(running, this.#timeoutMs + BACKSTOP_GRACE_MS));
      this.#observer?.storeCall('ok', (performance.now() - started) / 1000);
      for (const partition of partitions) {
        if (partition.breaker.recordSuccess()) {
          logger.info(
            `graphql-budget: the bucket store${where(partition)} answers again; budgets are enforced by it again.`,
          );
        }
      }
      return result;
    } catch (error) {
      const outcome =
        error instanceof BucketStoreTimeoutError || error instanceof BackstopTimeout ? 'timeout' : 'error';
      this.#observer?.storeCall(outcome, (performance.now() - started) / 1000);
      const reason = error instanceof Error ? error.message : String(error);
      for (const partition of partitions) {
        const { breaker } = partition;
        const wasClosed = breaker.state === 'closed';
        const opened = breaker.recordFailure();
        if (opened && wasClosed) {
          logger.warn(
            `graphql-budget: the bucket store failed (${reason}); not calling it for ${Math.ceil(breaker.msUntilProbe())} ms ` +
              `before probing it again${where(partition)}. onStoreError decides ` +
              `${partition.name === undefined ? 'requests' : 'the requests for keys in that partition'} meanwhile.`,
          );
        } else {
          logger.debug(`graphql-budget: bucket store call failed${where(partition)}: ${reason}`);
        }
      }
      return outcome;
    }
  }
}

/** One store call for the operation's buckets: the single-bucket methods for one untagged bucket. */
async function chargeOn(
  store: BucketStore,
  operation: Operation,
  limits: readonly BucketLimit[],
  cost: number,
  options: BucketCallOptions | undefined,
): Promise<MultiBucketResult> {
  const only = limits.length === 1 && limits[0]?.hashTag === undefined ? limits[0] : undefined;
  if (operation === 'peek') {
    if (only) return allowedResult([await store.peek(only.key, only.policy, options)]);
    if (store.peekAll) return allowedResult(await store.peekAll(limits, options));
    return allowedResult(await Promise.all(limits.map((limit) => store.peek(limit.key, limit.policy, options))));
  }
  if (only) {
    const result = await store.consume(only.key, cost, only.policy, options);
    return result.allowed ? allowedResult([result]) : deniedResult([result]);
  }
  if (store.consumeAll) return store.consumeAll(limits, cost, options);
  return consumeInOrder(store, limits, cost, options);
}

async function refundOn(
  store: BucketStore,
  limits: readonly BucketLimit[],
  amount: number,
  options?: BucketCallOptions,
): Promise<BucketResult[]> {
  const only = limits.length === 1 && limits[0]?.hashTag === undefined ? limits[0] : undefined;
  if (only) return [await store.refund(only.key, amount, only.policy, options)];
  if (store.refundAll) return store.refundAll(limits, amount, options);
  return Promise.all(limits.map((limit) => store.refund(limit.key, amount, limit.policy, options)));
}

/**
 * Takes `amount` from every bucket, into debt: `takeAll`, or for a store without it whatever each
 * bucket still holds, with `consume` (a denial answers what is left; that much is then taken).
 */
async function takeOn(
  store: BucketStore,
  limits: readonly BucketLimit[],
  amount: number,
  options?: BucketCallOptions,
): Promise<BucketResult[]> {
  if (store.takeAll) return store.takeAll(limits, amount, options);
  return Promise.all(
    limits.map(async (limit) => {
      const taken = await store.consume(limit.key, amount, limit.policy, options);
      if (taken.allowed || taken.remaining <= 0) return taken;
      return store.consume(limit.key, Math.min(amount, taken.remaining), limit.policy, options);
    }),
  );
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

/**
 * Rejects when `call` has not settled after `ms`; its late result is dropped (and a late rejection
 * handled). Node runs due timers before it reads sockets: when the timer fires, an answer that
 * already arrived is read first (one turn of the event loop), and only then is the call judged.
 */
function withBackstop<T>(call: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const giveUp = () => reject(new BackstopTimeout(`the bucket store did not answer within ${ms} ms`));
    const timer = setTimeout(() => setImmediate(giveUp), ms);
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
