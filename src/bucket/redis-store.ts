import clusterKeySlot from 'cluster-key-slot';
import { bucketKey } from './bucket-key.js';
import { toBucketResult, type BucketOp, type BucketReply } from './bucket-math.js';
import { bucketArgs, defineBucketCommand, parseBucketReply, type ExpiredReply } from './bucket-script.js';
import { BucketStoreError, BucketStoreTimeoutError } from './errors.js';
import type { RedisBucketClient } from './redis-client.js';
import { checkCall } from './validate.js';
import type { BucketCallOptions, BucketPolicy, BucketResult, BucketStore } from './types.js';

/** Options of `RedisBucketStore`. */
export interface RedisBucketStoreOptions {
  /**
   * Prepended to every bucket key (see `bucketKey`). A hash tag here (`{...}`) would put every
   * bucket of the store in one Cluster slot.
   * @default 'gb:'
   */
  prefix?: string;
}

const DEFAULT_PREFIX = 'gb:';

/** The partition of every bucket on a single Redis node (`partitionOf`). */
const SINGLE_NODE_PARTITION = 'redis';

/** A clock sample older than this is replaced by the next one, even a less precise one (µs). */
const CLOCK_REFRESH_US = 5_000_000;

/** Lower bound of (Redis time − local time) from one round trip, and when it was taken. */
interface ClockSample {
  offsetUs: number;
  takenUs: number;
}

/** Local monotonic time (µs). */
function localUs(): number {
  return performance.now() * 1000;
}

/**
 * Token buckets in Redis (a single node or a Cluster), one key per bucket, every operation one
 * atomic run of `lua/bucket.lua` on Redis time.
 *
 * Deadline (`options.timeoutMs` on every call): the promise settles within `timeoutMs`, with the
 * result or a `BucketStoreTimeoutError`. The script also receives the deadline in Redis time and
 * refuses to do anything when Redis runs it later, so a command that reaches Redis late (held in
 * ioredis' offline queue, retried after a reconnect, or sent to a paused server) has no effect.
 * Redis time is derived from the local monotonic clock plus the offset (Redis − local) measured from
 * the `now` every reply carries: each reply gives a lower bound (Redis time − local receive time),
 * the store keeps the largest (the one with the shortest round trip) and replaces it with a fresh
 * one after 5 s; before the first reply it sends one `TIME` under the same timeout. Because the
 * bound is low, the script's deadline is never later than the local one (it may be earlier by up
 * to one round trip, which only turns an answer into a timeout). Caveats: a Redis clock that steps
 * backwards, or Cluster nodes whose clocks disagree, widen the window by that amount. A consume
 * that Redis ran just before the deadline but whose reply arrived after it is given back with a
 * refund, so a timed-out consume costs nothing; a timed-out refund may still have been applied.
 *
 * Partitions (`partitionOf`, for the plugin's circuit breakers): a single node is one partition; on
 * a Cluster, the master that serves the bucket key's slot in the client's slot map, so a failing
 * master stops only the calls for the buckets it holds, and its promoted replica starts afresh.
 *
 * State: one key per bucket holding one short string, the instant the bucket is full again and the
 * refill rate it was written with, to 7 significant digits (`lua/bucket.lua`): a policy change keeps
 * the missing tokens, counted with that rate. The previous release's state (a bare instant) is read
 * under the call's own rate and replaced by the next write.
 *
 * Memory: a refilling bucket's key expires when the bucket is full again. Buckets with
 * `refillPerSecond` 0 never refill, so their keys have no TTL and stay until refunded to full:
 * their memory is unbounded by design (one key per such caller).
 */
export class RedisBucketStore implements BucketStore {
  readonly #client: RedisBucketClient;
  readonly #command: (key: string, ...args: string[]) => Promise<unknown>;
  readonly #prefix: string;
  #clock: ClockSample | undefined;
  #clockRequest: Promise<void> | undefined;

  constructor(client: RedisBucketClient, options: RedisBucketStoreOptions = {}) {
    if (typeof client !== 'object' || client === null || typeof client.defineCommand !== 'function') {
      throw new TypeError('client must be an ioredis Redis or Cluster instance');
    }
    const prefix = options.prefix ?? DEFAULT_PREFIX;
    if (typeof prefix !== 'string') throw new TypeError(`options.prefix must be a string, got ${typeof prefix}`);
    this.#client = client;
    this.#prefix = prefix;
    this.#command = defineBucketCommand(client);
  }

  /**
   * Where `key`'s bucket lives: `'redis'` over a single node; over a Cluster, the `host:port` of the
   * master serving the bucket key's slot in the client's current slot map (ioredis refreshes it
   * after a failover, so a promoted replica is a new partition), or `slot N` while the slot map
   * is not known. Cheap: the bucket key and a CRC16 over it, no Redis call.
   */
  partitionOf(key: string): string {
    const client = this.#client;
    if (!client.isCluster) return SINGLE_NODE_PARTITION;
    const slot = clusterKeySlot(bucketKey(this.#prefix, key));
    return client.slots?.[slot]?.[0] ?? `slot ${slot}`;
  }

  async consume(key: string, cost: number, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    checkCall(key, 'cost', cost, policy, options);
    return this.#run(key, 'consume', cost, policy, options?.timeoutMs);
  }

  async refund(key: string, amount: number, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    checkCall(key, 'amount', amount, policy, options);
    return this.#run(key, 'refund', amount, policy, options?.timeoutMs);
  }

  async peek(key: string, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    checkCall(key, undefined, 0, policy, options);
    return this.#run(key, 'peek', 0, policy, options?.timeoutMs);
  }

  async #run(
    identity: string,
    op: BucketOp,
    amount: number,
    policy: BucketPolicy,
    timeoutMs: number | undefined,
  ): Promise<BucketResult> {
    const key = bucketKey(this.#prefix, identity);
    const cost = op === 'peek' ? 0 : amount;
    if (timeoutMs === undefined) {
      const reply = await this.#send(key, op, amount, policy, undefined);
      return toBucketResult(reply as BucketReply, cost, policy.capacity);
    }

    const deadlineLocalUs = localUs() + timeoutMs * 1000;
    const work = (async () => {
      if (this.#clock === undefined) await this.#sampleClock();
      const deadlineUs = deadlineLocalUs + (this.#clock as ClockSample).offsetUs;
      const reply = await this.#send(key, op, amount, policy, deadlineUs);
      if (reply.status === 'expired') throw new BucketStoreTimeoutError(timeoutMs);
      return toBucketResult(reply, cost, policy.capacity);
    })();

    return new Promise<BucketResult>((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        reject(new BucketStoreTimeoutError(timeoutMs));
      }, timeoutMs);
      work.then(
        (result) => {
          clearTimeout(timer);
          if (!settled) {
            settled = true;
            resolve(result);
          } else if (op === 'consume' && result.allowed && amount > 0) {
            // Ran before the deadline but answered after it: the caller was told "timeout".
            this.#send(key, 'refund', amount, policy, undefined).catch(() => undefined);
          }
        },
        (error: unknown) => {
          clearTimeout(timer);
          if (!settled) {
            settled = true;
            reject(error);
          }
        },
      );
    });
  }

  async #send(
    key: string,
    op: BucketOp,
    amount: number,
    policy: BucketPolicy,
    deadlineUs: number | undefined,
  ): Promise<BucketReply | ExpiredReply> {
    const call = { op, amount, capacity: policy.capacity, refillPerSecond: policy.refillPerSecond, deadlineUs };
    const args = bucketArgs(call);
    const sentUs = localUs();
    let raw: unknown;
    try {
      raw = await this.#command(key, ...args);
    } catch (error) {
      throw new BucketStoreError(`Redis bucket ${op} failed: ${(error as Error)?.message ?? String(error)}`, {
        cause: error,
      });
    }
    const reply = parseBucketReply(raw, call);
    this.#observe(reply.nowUs, sentUs, localUs());
    return reply;
  }

  /** Gets a first clock sample with `TIME` (one request at a time, shared by concurrent calls). */
  #sampleClock(): Promise<void> {
    this.#clockRequest ??= (async () => {
      try {
        const sentUs = localUs();
        const [seconds, micros] = (await this.#client.time()) as unknown[];
        this.#observe(Number(seconds) * 1_000_000 + Number(micros), sentUs, localUs());
      } catch (error) {
        throw new BucketStoreError(`Redis TIME failed: ${(error as Error)?.message ?? String(error)}`, {
          cause: error,
        });
      } finally {
        this.#clockRequest = undefined;
      }
    })();
    return this.#clockRequest;
  }

  /** Redis ran the command at some local instant in [sent, received]: keep the tightest lower bound. */
  #observe(redisUs: number, sentUs: number, receivedUs: number): void {
    if (!Number.isFinite(redisUs) || receivedUs < sentUs) return;
    const offsetUs = redisUs - receivedUs;
    const current = this.#clock;
    if (current === undefined || offsetUs > current.offsetUs || receivedUs - current.takenUs > CLOCK_REFRESH_US) {
      this.#clock = { offsetUs, takenUs: receivedUs };
    }
  }
}
