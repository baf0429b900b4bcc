/**
 * `lua/bucket.lua` as ioredis sees it: the source, its SHA1, how a list of operations is encoded as
 * KEYS and ARGV, and how the reply is decoded. `RedisBucketStore` uses this module without a clock
 * override; tests pass an explicit `nowUs` to drive the script through simulated time.
 */
import { createHash } from 'node:crypto';
import { BUCKET_LUA } from './bucket-lua.js';
import { bucketReply, type BucketOp, type BucketReply, type BucketStatus } from './bucket-math.js';
import { BucketStoreError } from './errors.js';
import type { RedisBucketClient } from './redis-client.js';
import type { BucketPolicy } from './types.js';

/** The Lua source of the bucket script. */
export const BUCKET_SCRIPT: string = BUCKET_LUA;

/** SHA1 of `BUCKET_SCRIPT`: what `SCRIPT LOAD` answers and `EVALSHA` sends. */
export const BUCKET_SCRIPT_SHA: string = createHash('sha1').update(BUCKET_SCRIPT).digest('hex');

/** The ioredis command name; versioned by the SHA so two copies of the library never clash. */
export const BUCKET_COMMAND = `graphqlBudgetBucket${BUCKET_SCRIPT_SHA.slice(0, 8)}`;

/** One operation of a script call: a consume (all or nothing), refund, peek or take over its buckets. */
export interface BucketScriptOp {
  op: BucketOp;
  /** consume: cost; refund: tokens to give back; take: tokens to take; peek: ignored (tokens). */
  amount: number;
  /** The buckets' Redis keys (already prefixed); a consume names each at most once. */
  keys: readonly string[];
  /** One policy per key. */
  policies: readonly BucketPolicy[];
  /** Redis time after which the operation must do nothing (µs). */
  deadlineUs?: number;
}

/** The script did nothing for an operation because Redis ran it after its `deadlineUs`. */
export interface ExpiredReply {
  status: 'expired';
  nowUs: number;
}

/** What the script answered for one operation: one reply per bucket, expired, or an error. */
export type BucketOpReply = BucketReply[] | ExpiredReply | BucketStoreError;

/** The script's reply to a whole call: the Redis time it used and one answer per operation. */
export interface BucketScriptReply {
  nowUs: number;
  replies: BucketOpReply[];
}

/** Runs the script: the number of keys, then the keys and the other arguments (`bucketScriptArgs`). */
export type BucketCommand = (keyCount: string, ...args: string[]) => Promise<unknown>;

const OP_LETTER: Readonly<Record<BucketOp, string>> = { consume: 'c', refund: 'r', peek: 'p', take: 't' };

/** Most keys one script call names: a batch closes before it would hold more. */
export const MAX_KEYS_PER_CALL = 64;

/**
 * Registers the script on `client` with `defineCommand` (EVALSHA, with an EVAL fallback on
 * NOSCRIPT, e.g. after `SCRIPT FLUSH` or a restart) and returns a function that runs it with the
 * arguments of `bucketScriptArgs`. One command per number of keys (1 to `MAX_KEYS_PER_CALL`), each
 * with that `numberOfKeys`: the client then sees the first key as the call's first argument, which
 * is what ioredis' auto-pipelining routes a Cluster command by (with the number of keys first, it
 * would send every call to the node serving the slot of "1"). All are defined here, at once:
 * ioredis gives an auto-pipeline the commands the client had when the pipeline opened, so a
 * command defined while one is open would be missing from it.
 */
export function defineBucketCommand(client: RedisBucketClient): BucketCommand {
  const commands = client as unknown as Record<string, ((...args: string[]) => Promise<unknown>) | undefined>;
  const byKeyCount: string[] = [];
  for (let count = 1; count <= MAX_KEYS_PER_CALL; count++) {
    const name = `${BUCKET_COMMAND}k${count}`;
    if (typeof commands[name] !== 'function') client.defineCommand(name, { numberOfKeys: count, lua: BUCKET_SCRIPT });
    byKeyCount[count] = name;
  }
  return (keyCount, ...args) => {
    const name = byKeyCount[Number(keyCount)];
    if (name === undefined) {
      throw new RangeError(`a bucket script call names 1 to ${MAX_KEYS_PER_CALL} keys, got ${keyCount}`);
    }
    return (commands[name] as (...args: string[]) => Promise<unknown>).apply(client, args);
  };
}

/**
 * The command's arguments for `ops`, in the order of the script's header: the number of keys, the
 * keys, the clock (`nowUs`, a test clock; '' for Redis `TIME`), then each operation.
 */
export function bucketScriptArgs(ops: readonly BucketScriptOp[], nowUs?: number): string[] {
  let keyCount = 0;
  for (const op of ops) keyCount += op.keys.length;
  const args: string[] = [String(keyCount)];
  for (const op of ops) for (const key of op.keys) args.push(key);
  args.push(nowUs === undefined ? '' : String(nowUs));
  for (const op of ops) {
    const { policies } = op;
    args.push(
      OP_LETTER[op.op] + policies.length,
      op.op === 'peek' ? '0' : String(op.amount),
      op.deadlineUs === undefined ? '' : String(Math.floor(op.deadlineUs)),
    );
    for (const policy of policies) args.push(String(policy.capacity), String(policy.refillPerSecond));
  }
  return args;
}

/** A reply number: an integer reply, or a string (bulk string or Buffer) when it is not a whole number. */
function decodeNumber(raw: unknown): number {
  if (typeof raw === 'number') return raw;
  const text = typeof raw === 'string' ? raw : Buffer.isBuffer(raw) ? raw.toString() : undefined;
  const value = text === undefined || text === '' ? Number.NaN : Number(text);
  if (Number.isNaN(value)) throw new BucketStoreError(`unexpected bucket script reply value ${String(raw)}`);
  return value;
}

function decodeStatus(raw: unknown): string {
  return typeof raw === 'string' ? raw : Buffer.isBuffer(raw) ? raw.toString() : String(raw);
}

/**
 * Decodes the script's reply `{ now, status, state, … }` into one answer per operation of `ops`:
 * tokens left, retry and reset times come from `bucketReply`, the same arithmetic
 * `MemoryBucketStore` uses. Throws `BucketStoreError` when the reply does not fit the call.
 */
export function parseBucketScriptReply(raw: unknown, ops: readonly BucketScriptOp[]): BucketScriptReply {
  let pairs = 0;
  for (const op of ops) pairs += op.keys.length;
  if (!Array.isArray(raw) || raw.length !== 1 + 2 * pairs) {
    throw new BucketStoreError(`unexpected bucket script reply ${JSON.stringify(raw)}`);
  }
  const nowUs = decodeNumber(raw[0]);
  const replies: BucketOpReply[] = [];
  let at = 1;
  for (const op of ops) {
    const first = decodeStatus(raw[at]);
    if (first === 'expired') {
      replies.push({ status: 'expired', nowUs });
    } else if (first === 'error') {
      replies.push(new BucketStoreError(`Redis bucket ${op.op} refused: ${decodeStatus(raw[at + 1])}`));
    } else {
      const amount = op.op === 'peek' ? 0 : op.amount;
      const buckets: BucketReply[] = [];
      for (let i = 0; i < op.policies.length; i++) {
        const status = decodeStatus(raw[at + 2 * i]);
        if (status !== 'ok' && status !== 'denied' && status !== 'never') {
          throw new BucketStoreError(`unexpected bucket script reply status ${JSON.stringify(status)}`);
        }
        const state = decodeNumber(raw[at + 2 * i + 1]);
        buckets.push(bucketReply(status as BucketStatus, state, amount, op.policies[i] as BucketPolicy, nowUs));
      }
      replies.push(buckets);
    }
    at += 2 * op.keys.length;
  }
  return { nowUs, replies };
}

/** Runs `ops` in one script call. For tests and tools; stores use their own path. */
export async function runBucketOps(
  client: RedisBucketClient,
  ops: readonly BucketScriptOp[],
  nowUs?: number,
): Promise<BucketScriptReply> {
  const [keyCount, ...args] = bucketScriptArgs(ops, nowUs) as [string, ...string[]];
  return parseBucketScriptReply(await defineBucketCommand(client)(keyCount, ...args), ops);
}

/** One operation on one bucket, as tests write it. */
export interface BucketScriptCall {
  op: BucketOp;
  /** consume: cost; refund: tokens to give back; peek: ignored (tokens). */
  amount: number;
  capacity: number;
  refillPerSecond: number;
  /** Redis time after which the call must do nothing (µs). */
  deadlineUs?: number;
  /** Test clock (µs) used instead of Redis `TIME`. Production code never sets it. */
  nowUs?: number;
}

/** Runs the script once for one operation on `key` (already prefixed). For tests and tools. */
export async function runBucketScript(
  client: RedisBucketClient,
  key: string,
  call: BucketScriptCall,
): Promise<BucketReply | ExpiredReply> {
  const op: BucketScriptOp = {
    op: call.op,
    amount: call.amount,
    keys: [key],
    policies: [{ capacity: call.capacity, refillPerSecond: call.refillPerSecond }],
    deadlineUs: call.deadlineUs,
  };
  const [reply] = (await runBucketOps(client, [op], call.nowUs)).replies;
  if (reply instanceof BucketStoreError) throw reply;
  return Array.isArray(reply) ? (reply[0] as BucketReply) : (reply as ExpiredReply);
}
