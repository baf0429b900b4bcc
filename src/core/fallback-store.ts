import { MemoryBucketStore } from '../bucket/memory-store.js';
import type {
  BucketCallOptions,
  BucketLimit,
  BucketPolicy,
  BucketResult,
  BucketStore,
  MultiBucketResult,
} from '../bucket/types.js';
import type { LastKnown } from './last-known.js';

/**
 * The in-process buckets that stand in for the store while it is unavailable
 * (`onStoreError: 'local'`): each starts where the store last left the bucket it stands in for,
 * refilled since, less what its caller still owes the store (`owed`), rather than full; a bucket
 * this process never heard of starts full. When the store answers for a bucket again, its next
 * outage starts a fresh stand-in from that answer (`LastKnown.standInFor`).
 */
export class FallbackStore implements BucketStore {
  readonly #local: MemoryBucketStore;
  readonly #known: LastKnown;
  readonly #owed: (limit: BucketLimit) => number;

  constructor(known: LastKnown, owed: (limit: BucketLimit) => number, local = new MemoryBucketStore()) {
    this.#known = known;
    this.#owed = owed;
    this.#local = local;
  }

  consume(key: string, cost: number, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    const [limit] = this.#standIns([{ key, policy }]) as [BucketLimit];
    return this.#local.consume(limit.key, cost, policy, options);
  }

  refund(key: string, amount: number, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    const [limit] = this.#standIns([{ key, policy }]) as [BucketLimit];
    return this.#local.refund(limit.key, amount, policy, options);
  }

  peek(key: string, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    const [limit] = this.#standIns([{ key, policy }]) as [BucketLimit];
    return this.#local.peek(limit.key, policy, options);
  }

  consumeAll(limits: readonly BucketLimit[], cost: number, options?: BucketCallOptions): Promise<MultiBucketResult> {
    return this.#local.consumeAll(this.#standIns(limits), cost, options);
  }

  refundAll(limits: readonly BucketLimit[], amount: number, options?: BucketCallOptions): Promise<BucketResult[]> {
    return this.#local.refundAll(this.#standIns(limits), amount, options);
  }

  peekAll(limits: readonly BucketLimit[], options?: BucketCallOptions): Promise<BucketResult[]> {
    return this.#local.peekAll(this.#standIns(limits), options);
  }

  takeAll(limits: readonly BucketLimit[], amount: number, options?: BucketCallOptions): Promise<BucketResult[]> {
    return this.#local.takeAll(this.#standIns(limits), amount, options);
  }

  /**
   * A debt `limit`'s caller took on after its stand-in started (a settlement the store did not
   * take): taken from the stand-in as well, so that it cannot be spent locally either.
   */
  owe(limit: BucketLimit, amount: number): void {
    const key = this.#known.startedStandIn(limit);
    if (key !== undefined) void this.#local.takeAll([{ key, policy: limit.policy }], amount);
  }

  /** The stand-in buckets of `limits`, each started from what is known of its bucket on first use. */
  #standIns(limits: readonly BucketLimit[]): BucketLimit[] {
    return limits.map((limit) => {
      const { key, fresh } = this.#known.standInFor(limit);
      const standIn = { key, policy: limit.policy };
      if (fresh) {
        const missing = this.#known.missingNow(limit) + this.#owed(limit);
        // The memory store answers synchronously underneath: the take is done before anything else runs.
        if (missing > 0) void this.#local.takeAll([standIn], missing);
      }
      return standIn;
    });
  }
}
