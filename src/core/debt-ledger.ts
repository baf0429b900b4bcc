import type { BucketLimit, BucketResult, BucketStore } from '../bucket/types.js';
import type { GuardedStore } from './guarded-store.js';
import { bucketIdOf } from './last-known.js';
import type { BudgetLogger } from './logger.js';

/** Buckets that may owe the store at once, at most (see `DebtLedger`). */
export const MAX_DEBTORS = 100_000;

/** Bytes the owing buckets' keys may hold in all (UTF-16): identities long enough to matter are few. */
export const MAX_DEBTOR_KEY_BYTES = 16 * 1024 * 1024;

/** Debts paid at once in a round: the store's batching sends them together, and a round yields between them. */
const PAY_CHUNK = 64;

/** How long after a failed payment the ledger tries again: doubling from the first to the last (ms). */
export const DEBT_RETRY_MS = { first: 250, last: 5000 } as const;

/** What one bucket owes the store. */
interface Debt {
  readonly limit: BucketLimit;
  amount: number;
}

/** Bytes a debt's bucket names hold. */
const keyBytes = (limit: BucketLimit) => 2 * (limit.key.length + (limit.hashTag?.length ?? 0));

/**
 * Tokens operations owe the store after the fact (a list longer than priced, taken after the
 * response), kept in this process until the store takes them, so that no outage forgives a debt
 * while the process lives:
 *
 * - a take the store does not answer is kept, per bucket (the amounts of one bucket add up), and
 *   tried again for as long as the store stays away, after 0.25 s, then twice as long each time,
 *   up to 5 s (while the circuit breaker is open a try costs no store call);
 * - a bucket's next charge pays its debt first (`payFirst`), and the in-process bucket that stands
 *   in for it during an outage starts that much lower (`owedBy`), so a debtor cannot spend it
 *   locally;
 * - a server that stops gracefully pays what it can within a deadline (`settleAll`).
 *
 * A take the store did not answer had no effect (`RedisBucketStore` gives back one applied after its
 * deadline), so trying it again takes it once. Debts are paid 64 at a time, so that thousands of
 * debtors do not flood the store at once. At most `MAX_DEBTORS` buckets owe at once, their keys
 * at most `MAX_DEBTOR_KEY_BYTES`; beyond that the smallest debt is forgiven, and logged. What a
 * process owes when it dies is lost.
 *
 * One ledger per store and process (`sharedStoreState`): every budget charging the store pays
 * through the guard it was first given.
 */
export class DebtLedger {
  #guard: GuardedStore | undefined;
  readonly #store: BucketStore;
  readonly #onOwe: (limit: BucketLimit, amount: number) => void;
  readonly #debts = new Map<string, Debt>();
  #keyBytes = 0;
  #logger: BudgetLogger | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #delayMs: number = DEBT_RETRY_MS.first;
  #paying: Promise<void> | undefined;

  /** `onOwe`: told of every new debt (the stand-in bucket of an outage takes it too). */
  constructor(store: BucketStore, onOwe: (limit: BucketLimit, amount: number) => void) {
    this.#store = store;
    this.#onOwe = onOwe;
  }

  /** The guard debts are paid through, if none was given yet (the first budget's). */
  attach(guard: GuardedStore): void {
    this.#guard ??= guard;
  }

  /** What `limit`'s bucket owes the store now. */
  owedBy(limit: BucketLimit): number {
    return this.#debts.get(bucketIdOf(limit))?.amount ?? 0;
  }

  /** Whether any bucket owes the store. */
  get owing(): boolean {
    return this.#debts.size > 0;
  }

  /**
   * Takes `amount` from every bucket of `limits`, in the store that charged them, into debt where
   * one lacks it; the buckets after, or undefined when the store did not answer (then it is owed).
   */
  async take(
    guard: GuardedStore,
    store: BucketStore,
    limits: readonly BucketLimit[],
    amount: number,
    logger: BudgetLogger,
  ): Promise<BucketResult[] | undefined> {
    if (limits.length === 1) {
      const after = await guard.take(store, limits, amount, logger);
      if (after === undefined) this.#owe(limits[0] as BucketLimit, amount, logger);
      return after;
    }
    // Bucket by bucket (the store's batching sends them together), so that what one bucket did not
    // take is owed by it alone: a take across Cluster slots may land in some and not in others.
    const each = await Promise.all(limits.map((limit) => guard.take(store, [limit], amount, logger)));
    const after: BucketResult[] = [];
    for (const [index, limit] of limits.entries()) {
      const result = each[index]?.[0];
      if (result === undefined) this.#owe(limit, amount, logger);
      else after.push(result);
    }
    return after.length === limits.length ? after : undefined;
  }

  /** Before one of `limits` is charged: what they owe is taken first, where the store answers. */
  async payFirst(limits: readonly BucketLimit[], logger: BudgetLogger): Promise<void> {
    if (this.#debts.size === 0) return;
    for (const limit of limits) {
      const debt = this.#debts.get(bucketIdOf(limit));
      if (debt !== undefined) await this.#pay(debt, logger);
    }
  }

  /** Pays every debt the store takes within `deadlineMs` (a server stopping); what is left is logged. */
  async settleAll(deadlineMs: number, logger: BudgetLogger): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const deadline = performance.now() + deadlineMs;
    while (this.#debts.size > 0 && performance.now() < deadline) {
      await this.#payAll(logger);
      if (this.#debts.size > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(250, deadlineMs)));
    }
    if (this.#debts.size > 0) {
      logger.error(
        `graphql-budget: stopping with ${this.#debts.size} bucket(s) still owing the store ${this.#total()} tokens; they are lost.`,
      );
    }
  }

  #owe(limit: BucketLimit, amount: number, logger: BudgetLogger): void {
    const id = bucketIdOf(limit);
    const debt = this.#debts.get(id);
    if (debt !== undefined) {
      debt.amount += amount;
    } else {
      this.#debts.set(id, { limit, amount });
      this.#keyBytes += keyBytes(limit);
      while (this.#debts.size > MAX_DEBTORS || this.#keyBytes > MAX_DEBTOR_KEY_BYTES) this.#forgiveSmallest(logger);
    }
    this.#onOwe(limit, amount);
    this.#logger = logger;
    this.#schedule();
  }

  #forgiveSmallest(logger: BudgetLogger): void {
    let smallest: [string, Debt] | undefined;
    for (const entry of this.#debts) {
      if (smallest === undefined || entry[1].amount < smallest[1].amount) smallest = entry;
    }
    if (smallest === undefined) return;
    this.#forget(smallest[0], smallest[1]);
    logger.error(
      `graphql-budget: more buckets owe the store than this process keeps (${MAX_DEBTORS}, or their keys over ` +
        `${MAX_DEBTOR_KEY_BYTES} bytes); ${smallest[1].amount} owed tokens are forgiven.`,
    );
  }

  #forget(id: string, debt: Debt): void {
    if (this.#debts.get(id) !== debt) return;
    this.#debts.delete(id);
    this.#keyBytes -= keyBytes(debt.limit);
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#paying !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      const logger = this.#logger;
      if (logger === undefined) return;
      this.#paying = this.#payAll(logger).finally(() => {
        this.#paying = undefined;
        if (this.#debts.size === 0) {
          this.#delayMs = DEBT_RETRY_MS.first;
          return;
        }
        this.#delayMs = Math.min(this.#delayMs * 2, DEBT_RETRY_MS.last);
        this.#schedule();
      });
    }, this.#delayMs);
    this.#timer.unref();
  }

  /**
   * One try at every debt, `PAY_CHUNK` at a time (the store's batching sends a chunk together); a
   * round stops at the first chunk the store does not take, to try again later.
   */
  async #payAll(logger: BudgetLogger): Promise<void> {
    const debts = [...this.#debts.values()];
    for (let start = 0; start < debts.length; start += PAY_CHUNK) {
      const paid = await Promise.all(debts.slice(start, start + PAY_CHUNK).map((debt) => this.#pay(debt, logger)));
      if (paid.includes(false)) return;
    }
  }

  /** Tries to pay one debt; false when the store did not take it. */
  async #pay(debt: Debt, logger: BudgetLogger): Promise<boolean> {
    const { amount } = debt;
    const guard = this.#guard;
    if (amount <= 0) return true;
    if (guard === undefined) return false;
    // Taken out of the ledger while the store is asked, and put back (with what was added meanwhile) if it does not answer.
    debt.amount -= amount;
    const after = await guard.take(this.#store, [debt.limit], amount, logger);
    if (after === undefined) {
      debt.amount += amount;
      return false;
    }
    if (debt.amount <= 0) this.#forget(bucketIdOf(debt.limit), debt);
    return true;
  }

  #total(): number {
    let total = 0;
    for (const debt of this.#debts.values()) total += debt.amount;
    return total;
  }
}
