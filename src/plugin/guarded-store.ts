import type { GraphQLServerContext } from '@apollo/server';
import type { BucketPolicy, BucketResult, BucketStore } from '../bucket/types.js';
import type { CircuitBreaker } from './circuit-breaker.js';

type Logger = GraphQLServerContext['logger'];

/** How long after the store's own deadline the plugin stops waiting for a store that ignores it (ms). */
export const BACKSTOP_GRACE_MS = 20;

/** What happens to a request when the bucket store errors or misses its deadline. */
export type StoreErrorPolicy = 'allow' | 'deny' | 'local';

/** The outcome of charging a caller. */
export type Charge =
  | {
      status: 'answered';
      result: BucketResult;
      /** The store that answered (the primary, or the in-process fallback). Refunds go there. */
      store: BucketStore;
    }
  | {
      /** Neither the store nor a fallback answered; `onStoreError` is `'allow'` or `'deny'`. */
      status: 'unavailable';
      /** When it is worth trying again (ms). */
      retryAfterMs: number;
    };

export interface GuardedStoreOptions {
  store: BucketStore;
  timeoutMs: number;
  breaker: CircuitBreaker;
  /** The in-process store used while the primary is unavailable (`onStoreError: 'local'`). */
  fallback: BucketStore | undefined;
}

/**
 * The bucket store behind a deadline and a circuit breaker: every call either answers within
 * `timeoutMs` or is reported as unavailable (or answered by the fallback), never thrown.
 *
 * The deadline itself is the store's (`timeoutMs` call option): a store call that misses it rejects,
 * and the command has no effect if it reaches Redis later, so a late answer never charges. A store
 * that ignores `timeoutMs` (a custom one) is still cut off here, `BACKSTOP_GRACE_MS` after the
 * deadline, so no request waits on it; such a store's late answer is not undone.
 */
export class GuardedStore {
  readonly #store: BucketStore;
  readonly #timeoutMs: number;
  readonly #breaker: CircuitBreaker;
  readonly #fallback: BucketStore | undefined;

  constructor(options: GuardedStoreOptions) {
    this.#store = options.store;
    this.#timeoutMs = options.timeoutMs;
    this.#breaker = options.breaker;
    this.#fallback = options.fallback;
  }

  /** Takes `cost` tokens from `key`'s bucket if they exist (see `BucketStore.consume`). */
  async consume(key: string, cost: number, policy: BucketPolicy, logger: Logger): Promise<Charge> {
    const answer = await this.#call(logger, (options) => this.#store.consume(key, cost, policy, options));
    if (answer) return { status: 'answered', result: answer, store: this.#store };
    if (this.#fallback) {
      return { status: 'answered', result: await this.#fallback.consume(key, cost, policy), store: this.#fallback };
    }
    return { status: 'unavailable', retryAfterMs: Math.max(this.#breaker.msUntilProbe(), 1) };
  }

  /**
   * Gives `amount` tokens back to the store that charged them, in one call. Returns the bucket
   * afterwards, or undefined when the store did not answer (the refund is then lost: the caller
   * paid the estimate, never more).
   */
  async refund(store: BucketStore, key: string, amount: number, policy: BucketPolicy, logger: Logger): Promise<BucketResult | undefined> {
    if (store !== this.#store) return store.refund(key, amount, policy);
    return this.#call(logger, (options) => this.#store.refund(key, amount, policy, options));
  }

  async #call(
    logger: Logger,
    run: (options: { timeoutMs: number }) => Promise<BucketResult>,
  ): Promise<BucketResult | undefined> {
    if (!this.#breaker.tryAcquire()) return undefined;
    try {
      const result = await withBackstop(run({ timeoutMs: this.#timeoutMs }), this.#timeoutMs + BACKSTOP_GRACE_MS);
      if (this.#breaker.recordSuccess()) logger.info('graphql-budget: the bucket store answers again; budgets are enforced by it again.');
      return result;
    } catch (error) {
      const wasClosed = this.#breaker.state === 'closed';
      const opened = this.#breaker.recordFailure();
      const reason = error instanceof Error ? error.message : String(error);
      if (opened && wasClosed) {
        logger.warn(
          `graphql-budget: the bucket store failed (${reason}); not calling it for ${Math.ceil(this.#breaker.msUntilProbe())} ms ` +
            'before probing it again. onStoreError decides requests meanwhile.',
        );
      } else {
        logger.debug(`graphql-budget: bucket store call failed: ${reason}`);
      }
      return undefined;
    }
  }
}

/** Rejects when `call` has not settled after `ms`; its late result is dropped (and a late rejection handled). */
function withBackstop<T>(call: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const backstop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the bucket store did not answer within ${ms} ms`)), ms);
  });
  call.catch(() => undefined);
  return Promise.race([call, backstop]).finally(() => clearTimeout(timer));
}
