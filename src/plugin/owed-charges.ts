import type { BucketLimit, BucketResult, BucketStore } from '../bucket/types.js';
import type { GuardedStore } from './guarded-store.js';

type Logger = Parameters<GuardedStore['take']>[3];

/** When to try a take of owed tokens again after a store failure (ms after the failure). */
export const OWED_RETRY_DELAYS_MS: readonly number[] = [250, 1000, 4000];

/**
 * Tokens an operation owes after the fact (what it did beyond its charge, or work that finished
 * after its response), taken from its buckets into debt through the guard. A take that the store
 * does not answer (a missed deadline, an outage) is tried again on its own, a few times, so that a
 * slow store at the wrong moment does not forgive the debt; a take Redis ran but answered late is
 * then taken twice (the caller is overcharged, never undercharged).
 */
export class OwedCharges {
  readonly #guard: GuardedStore;
  readonly #retryDelaysMs: readonly number[];

  constructor(guard: GuardedStore, retryDelaysMs: readonly number[] = OWED_RETRY_DELAYS_MS) {
    this.#guard = guard;
    this.#retryDelaysMs = retryDelaysMs;
  }

  /** Takes `amount` now; the buckets after it, or undefined when the store did not answer (retried later). */
  async take(
    store: BucketStore,
    limits: readonly BucketLimit[],
    amount: number,
    logger: Logger,
  ): Promise<BucketResult[] | undefined> {
    const after = await this.#attempt(store, limits, amount, logger);
    if (after === undefined) this.#retry(store, limits, amount, logger, 0);
    return after;
  }

  async #attempt(
    store: BucketStore,
    limits: readonly BucketLimit[],
    amount: number,
    logger: Logger,
  ): Promise<BucketResult[] | undefined> {
    try {
      return await this.#guard.take(store, limits, amount, logger);
    } catch (error) {
      logger.debug(
        `graphql-budget: taking owed tokens failed: ${error instanceof Error ? error.message : String(error)}`,
      );
      return undefined;
    }
  }

  #retry(store: BucketStore, limits: readonly BucketLimit[], amount: number, logger: Logger, attempt: number): void {
    const delay = this.#retryDelaysMs[attempt];
    if (delay === undefined) {
      logger.warn(
        `graphql-budget: could not take ${amount} owed tokens after ${this.#retryDelaysMs.length + 1} tries; the store did not answer.`,
      );
      return;
    }
    const timer = setTimeout(() => {
      void this.#attempt(store, limits, amount, logger).then((after) => {
        if (after === undefined) this.#retry(store, limits, amount, logger, attempt + 1);
      });
    }, delay);
    timer.unref();
  }
}
