import { keepsDeadline } from './deadline-keepers.js';
import clusterKeySlot from 'cluster-key-slot';
import { bucketKey } from './bucket-key.js';
import { toBucketResult, type BucketOp, type BucketReply } from './bucket-math.js';
import { bucketConnection } from './bucket-connection.js';
import {
  bucketScriptArgs,
  parseBucketScriptReply,
  type BucketOpReply,
  type BucketScriptOp,
  type BucketScriptReply,
} from './bucket-script.js';
import { CallDeadline } from './call-deadline.js';
import { BucketStoreError, BucketStoreTimeoutError } from './errors.js';
import { allowedResult, consumeGroupsInOrder, deniedResult, type GroupCalls } from './multi-charge.js';
import { localUs, RedisClock } from './redis-clock.js';
import type { RedisBucketClient } from './redis-client.js';
import type { RedisConnection } from './redis-connection.js';
import { batchOptions, failure, ScriptBatcher, type BatchOptions } from './script-batcher.js';
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

/** Options of `RedisBucketStore`. */
export interface RedisBucketStoreOptions {
  /**
   * Prepended to every bucket key (see `bucketKey`). A hash tag here (`{...}`) would put every
   * bucket of the store in one Cluster slot.
   * @default 'gb:'
   */
  prefix?: string;
  /**
   * Batching: the operations issued in the same event-loop turn (in the same callback when no
   * call of the store is awaiting Redis) whose keys can go in one script call (any keys on a
   * single node; keys of one slot on a Cluster) are sent as one call, which
   * applies them in order and answers each as if it had been sent alone (the same results, the
   * same state, each with its own deadline; one `TIME` for the call). This pays Redis' and the
   * client's per-command cost once for many operations. `false` sends every operation in a call
   * of its own; an object sets the window and the cap (see `BatchOptions`). A lone operation
   * leaves as soon as the callback that issued it has run: batching never waits for company that
   * is not coming.
   * @default true (`{ windowUs: 0, maxOperations: 32 }`)
   */
  batch?: boolean | BatchOptions;
}

const DEFAULT_PREFIX = 'gb:';

const OPTION_NAMES: readonly (keyof RedisBucketStoreOptions)[] = ['prefix', 'batch'];

/** The partition of every bucket on a single Redis node (`partitionOf`). */
const SINGLE_NODE_PARTITION = 'redis';

/** An operation as the store sends it: with the deadline of its call, and the store time it was given when queued (µs). */
interface TimedOp extends BucketScriptOp {
  deadline?: CallDeadline | undefined;
  storeUs?: number;
}

/** The buckets of an operation that the script refused or ran too late raise this. */
function answered(reply: BucketOpReply, timeoutMs: number | undefined): BucketReply[] {
  if (Array.isArray(reply)) return reply;
  if (reply instanceof BucketStoreError) throw reply;
  throw new BucketStoreTimeoutError(timeoutMs ?? 0);
}

/**
 * Token buckets in Redis (a single node or a Cluster), one key per bucket, every operation one
 * atomic run of `lua/bucket.lua` on Redis time, through ioredis or node-redis (the same script,
 * the same answers).
 *
 * Deadline (`options.timeoutMs` on every call): the promise settles with the result, or with a
 * `BucketStoreTimeoutError` once the store has had `timeoutMs` (`CallDeadline`): with the event loop
 * free, `timeoutMs` after the call plus one turn of the loop. Time the command spends in this
 * process is not the store's: a command held back by a busy event loop leaves with its whole
 * time, and a reply that has arrived is read before the call is judged, so a reply that came in
 * time is never a failure, however late the process gets to it. The script also receives a
 * deadline in Redis time, made when the command leaves (the local one plus one more `timeoutMs`,
 * for a client that writes it later still), and refuses to do anything when Redis runs it later,
 * so a command that reaches Redis late (held in the client's offline queue, retried after a
 * reconnect, or sent to a paused server) has no effect; one that Redis answers `expired` while the
 * caller still waits is sent again with its whole time, up to three times. Redis time is derived
 * from the local monotonic clock and the Redis time every reply carries (`RedisClock`); before the
 * first reply the store sends one `TIME` under the same deadline. A consume or take that Redis ran
 * but whose reply arrived after the caller was told "timeout" is given back with a refund, so a
 * timed-out consume costs nothing and a take tried again is taken once; a timed-out refund may
 * still have been applied.
 *
 * Several buckets at once (`consumeAll`, `refundAll`, `peekAll`, `takeAll`): on a single node, one script
 * call for all of them, atomic across the keys (one `TIME`, nothing written anywhere on a
 * denial). On a Cluster, the buckets whose keys share a slot (the same `hashTag`, or keys that
 * happen to hash alike) go in one atomic call; groups in different slots are charged one after
 * another in the order the limits first name them, and a later group's denial gives back what
 * the earlier ones took (`consumeGroupsInOrder`): a concurrent charge may then be denied
 * spuriously, but none is ever admitted that a bucket could not pay. Each group's call carries the
 * deadline; a group that misses it gives back the earlier groups' takes.
 *
 * Partitions (`partitionOf`, for the plugin's circuit breakers): a single node is one partition; on
 * a Cluster, the master that serves the bucket key's slot in the client's slot map, so a failing
 * master stops only the calls for the buckets it holds, and its promoted replica starts afresh.
 *
 * State: one key per bucket holding one short string, the instant the bucket is full again and the
 * refill rate it was written with, exactly (`lua/bucket.lua`): a policy change keeps the missing
 * tokens, counted with that rate. The previous release's state (a bare instant) is read
 * under the call's own rate and replaced by the next write.
 *
 * Memory: a refilling bucket's key expires when the bucket is full again. Buckets with
 * `refillPerSecond` 0 never refill, so their keys have no TTL and stay until refunded to full:
 * their memory is unbounded by design (one key per such caller).
 */
export class RedisBucketStore implements BucketStore {
  readonly #connection: RedisConnection;
  readonly #prefix: string;
  readonly #clock: RedisClock;
  readonly #batcher: ScriptBatcher | undefined;

  /**
   * @param client An ioredis `Redis` or `Cluster`, or a node-redis client (`createClient()`) or
   * cluster (`createCluster()`), connected; see docs/operations.md for the options a limiter
   * wants on each. Anything else throws a `TypeError` saying what is accepted.
   */
  constructor(client: RedisBucketClient, options: RedisBucketStoreOptions = {}) {
    if (typeof options !== 'object' || options === null) {
      throw new TypeError(`RedisBucketStore options must be an object, got ${describe(options)}`);
    }
    checkKnownOptions('RedisBucketStore options', options, OPTION_NAMES);
    const connection = bucketConnection(client);
    const prefix = options.prefix ?? DEFAULT_PREFIX;
    if (typeof prefix !== 'string') throw new TypeError(`options.prefix must be a string, got ${typeof prefix}`);
    const batch = batchOptions(options.batch);
    this.#connection = connection;
    this.#prefix = prefix;
    this.#clock = new RedisClock(connection);
    const groupOf = connection.isCluster ? (op: BucketScriptOp) => clusterKeySlot(op.keys[0] as string) : () => 0;
    this.#batcher = batch && new ScriptBatcher((ops) => this.#send(ops), groupOf, batch);
    keepsDeadline(this);
  }

  /**
   * Where `key`'s bucket lives: `'redis'` over a single node; over a Cluster, the `host:port` of the
   * master serving the bucket key's slot in the client's current slot map (both clients refresh it
   * after a failover, so a promoted replica is a new partition), or `slot N` while the slot map
   * is not known. With a `hashTag`, the slot of the tagged key (see `bucketKey`). Cheap: the
   * bucket key and a CRC16 over it, no Redis call.
   */
  partitionOf(key: string, hashTag?: string): string {
    const connection = this.#connection;
    if (!connection.isCluster) return SINGLE_NODE_PARTITION;
    const slot = clusterKeySlot(bucketKey(this.#prefix, key, hashTag));
    return connection.masterOf(slot) ?? `slot ${slot}`;
  }

  async consume(key: string, cost: number, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    checkCall(key, 'cost', cost, policy, options);
    return this.#single('consume', key, cost, policy, options?.timeoutMs);
  }

  async refund(key: string, amount: number, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    checkCall(key, 'amount', amount, policy, options);
    return this.#single('refund', key, amount, policy, options?.timeoutMs);
  }

  async peek(key: string, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    checkCall(key, undefined, 0, policy, options);
    return this.#single('peek', key, 0, policy, options?.timeoutMs);
  }

  async consumeAll(
    limits: readonly BucketLimit[],
    cost: number,
    options?: BucketCallOptions,
  ): Promise<MultiBucketResult> {
    checkLimits(limits);
    checkNumber('cost', cost, false);
    checkCallOptions(options);
    const timeoutMs = options?.timeoutMs;
    const keys = limits.map((limit) => bucketKey(this.#prefix, limit.key, limit.hashTag));
    const groups = this.#slotGroups(keys);
    return this.#withDeadline(
      timeoutMs,
      async (deadline) => {
        const calls = this.#groupCalls(keys, limits, cost, deadline, timeoutMs);
        if (groups.length > 1) return consumeGroupsInOrder(groups, limits, cost, calls);
        const results = await calls.consume(groups[0] as number[]);
        return results.every((result) => result.allowed) ? allowedResult(results) : deniedResult(results);
      },
      (late) => {
        if (!late.allowed || cost === 0) return;
        for (const group of groups) this.#giveBack(pick(keys, group), pick(limits, group), cost);
      },
    );
  }

  async refundAll(
    limits: readonly BucketLimit[],
    amount: number,
    options?: BucketCallOptions,
  ): Promise<BucketResult[]> {
    checkLimits(limits);
    checkNumber('amount', amount, false);
    checkCallOptions(options);
    return this.#eachGroup(limits, 'refund', amount, options?.timeoutMs);
  }

  async peekAll(limits: readonly BucketLimit[], options?: BucketCallOptions): Promise<BucketResult[]> {
    checkLimits(limits);
    checkCallOptions(options);
    return this.#eachGroup(limits, 'peek', 0, options?.timeoutMs);
  }

  async takeAll(limits: readonly BucketLimit[], amount: number, options?: BucketCallOptions): Promise<BucketResult[]> {
    checkLimits(limits);
    checkNumber('amount', amount, false);
    checkCallOptions(options);
    return this.#eachGroup(limits, 'take', amount, options?.timeoutMs);
  }

  /** One operation on one bucket. */
  #single(op: BucketOp, identity: string, amount: number, policy: BucketPolicy, timeoutMs: number | undefined) {
    const keys = [bucketKey(this.#prefix, identity)];
    const policies = [policy];
    return this.#withDeadline(
      timeoutMs,
      async (deadline) => {
        const [reply] = answered(await this.#submitInTime({ op, amount, keys, policies, deadline }), timeoutMs);
        return toBucketResult(reply as BucketReply, amount, policy.capacity);
      },
      (late) => {
        // Ran before the deadline but answered after it: the caller was told "timeout".
        if (op === 'consume' && late.allowed && amount > 0) this.#giveBack(keys, [{ policy }], amount);
      },
    );
  }

  /** A refund, peek or take of several buckets: one call per slot, all at once; results in the limits' order. */
  #eachGroup(
    limits: readonly BucketLimit[],
    op: 'refund' | 'peek' | 'take',
    amount: number,
    timeoutMs: number | undefined,
  ) {
    const keys = limits.map((limit) => bucketKey(this.#prefix, limit.key, limit.hashTag));
    const groups = this.#slotGroups(keys);
    // A take Redis ran but answered after the deadline is given back: the caller, told "timeout",
    // takes it again (so it is taken once).
    const undo =
      op === 'take' && amount > 0
        ? () => {
            for (const group of groups) this.#giveBack(pick(keys, group), pick(limits, group), amount);
          }
        : undefined;
    return this.#withDeadline(
      timeoutMs,
      async (deadline) => {
        const results = new Array<BucketResult>(limits.length);
        await Promise.all(
          groups.map(async (group) => {
            const policies = pick(limits, group).map((limit) => limit.policy);
            const replies = answered(
              await this.#submitInTime({ op, amount, keys: pick(keys, group), policies, deadline }),
              timeoutMs,
            );
            group.forEach((index, i) => {
              results[index] = toBucketResult(
                replies[i] as BucketReply,
                amount,
                (policies[i] as BucketPolicy).capacity,
              );
            });
          }),
        );
        return results;
      },
      undo,
    );
  }

  /**
   * The calls of a charge of several buckets, group by group: the consume carries the deadline; the
   * give-backs and reads that answer a denial do not (a give-back must happen even when late).
   */
  #groupCalls(
    keys: readonly string[],
    limits: readonly BucketLimit[],
    cost: number,
    deadline: CallDeadline | undefined,
    timeoutMs: number | undefined,
  ): GroupCalls {
    const call = async (op: BucketOp, group: readonly number[], opDeadline: CallDeadline | undefined) => {
      const policies = pick(limits, group).map((limit) => limit.policy);
      const scriptOp = {
        op,
        amount: op === 'peek' ? 0 : cost,
        keys: pick(keys, group),
        policies,
        deadline: opDeadline,
      };
      const replies = answered(await this.#submitInTime(scriptOp), timeoutMs);
      return replies.map((reply, i) => toBucketResult(reply, cost, (policies[i] as BucketPolicy).capacity));
    };
    return {
      consume: (group) => call('consume', group, deadline),
      refund: (group) => call('refund', group, undefined),
      peek: (group) => call('peek', group, undefined),
    };
  }

  /** Gives `amount` back to the buckets at `keys`, in the background (a lost give-back only overcharges). */
  #giveBack(keys: readonly string[], limits: readonly Pick<BucketLimit, 'policy'>[], amount: number): void {
    const policies = limits.map((limit) => limit.policy);
    this.#submit({ op: 'refund', amount, keys, policies }).catch(() => undefined);
  }

  /** Indexes of `keys` grouped by Cluster slot, in order of first appearance; one group on a single node. */
  #slotGroups(keys: readonly string[]): number[][] {
    if (!this.#connection.isCluster) return [keys.map((_, index) => index)];
    const bySlot = new Map<number, number[]>();
    keys.forEach((key, index) => {
      const slot = clusterKeySlot(key);
      const group = bySlot.get(slot);
      if (group === undefined) bySlot.set(slot, [index]);
      else group.push(index);
    });
    return [...bySlot.values()];
  }

  /**
   * Runs `work` under the call's deadline (none without `timeoutMs`), which every command of the
   * call carries (`CallDeadline`): the caller gets the result, or `BucketStoreTimeoutError` once
   * the store has had `timeoutMs`; a result that arrives after that goes to `undo` (a charge nobody
   * was told about is given back).
   */
  #withDeadline<T>(
    timeoutMs: number | undefined,
    work: (deadline: CallDeadline | undefined) => Promise<T>,
    undo?: (late: T) => void,
  ): Promise<T> {
    if (timeoutMs === undefined) return work(undefined);
    const deadline = new CallDeadline(timeoutMs);
    const clock = this.#clock;
    const running = clock.known ? work(deadline) : clock.sample().then(() => work(deadline));
    return deadline.race(running, undo);
  }

  /**
   * Sends `op` and, when Redis answers `expired` (the command reached it after its Redis-side
   * deadline, typically held back by this process' busy event loop or by the client's own deferred
   * write) while the caller is still waiting, sends it again with the call's whole time (a few
   * times at most, `CallDeadline.mayRetry`): an expired operation did nothing.
   */
  async #submitInTime(op: TimedOp): Promise<BucketOpReply> {
    let reply = await this.#submit(op);
    while (isExpired(reply) && op.deadline?.mayRetry() === true) {
      reply = await this.#submit(op, op.deadline.timeoutMs * 1000);
    }
    return reply;
  }

  /**
   * Sends one operation: in the open batch of its slot, or (batching off) in a call of its own.
   * `storeUs`: the store time it gets (µs); by default what is left of its call's.
   */
  #submit(op: TimedOp, storeUs?: number): Promise<BucketOpReply> {
    if (op.deadline !== undefined) op.storeUs = storeUs ?? op.deadline.queued();
    if (this.#batcher) return this.#batcher.submit(op);
    return this.#send([op]).then(
      ({ replies }) => replies[0] as BucketOpReply,
      (error: unknown) => {
        throw failure(op, error);
      },
    );
  }

  /**
   * One script call for `ops` (keys of one slot); learns the Redis clock from its reply. Each
   * operation's Redis-side deadline is made now, from its call's deadline as it stands when the
   * command leaves (`CallDeadline.sent`), and the deadlines are moved on again once the client has
   * written the command (node-redis writes in a `setImmediate` of its own, run just before ours).
   */
  async #send(ops: readonly TimedOp[]): Promise<BucketScriptReply> {
    const sentUs = localUs();
    let timed = false;
    for (const op of ops) {
      if (op.deadline === undefined) continue;
      // The client may write the command later still (auto-pipelining, node-redis' own turn), a
      // busy stretch between: Redis runs it up to one more timeout after the local deadline, and
      // what it runs after the caller was told "timeout" is given back (`#withDeadline`'s undo).
      const localUs = op.deadline.sent(sentUs, op.storeUs ?? 0) + op.deadline.timeoutMs * 1000;
      op.deadlineUs = this.#clock.redisUs(localUs);
      timed = true;
    }
    const [keyCount, ...args] = bucketScriptArgs(ops) as [string, ...string[]];
    const running = this.#connection.run(keyCount, ...args);
    if (timed) setImmediate(written, ops);
    const raw = await running;
    const reply = parseBucketScriptReply(raw, ops);
    this.#clock.observe(reply.nowUs, sentUs, localUs());
    return reply;
  }
}

/** After the client has written the command: each operation's store time counts from now. */
function written(ops: readonly TimedOp[]): void {
  const atUs = localUs();
  for (const op of ops) op.deadline?.sent(atUs, op.storeUs ?? 0);
}

function isExpired(reply: BucketOpReply): boolean {
  return !Array.isArray(reply) && !(reply instanceof BucketStoreError) && reply.status === 'expired';
}

function pick<T>(values: readonly T[], indexes: readonly number[]): T[] {
  return indexes.map((index) => values[index] as T);
}
