/**
 * `lua/bucket.lua` as every client sends it: the source, its SHA1, how a list of operations is
 * encoded as KEYS and ARGV, and how the reply is decoded. `RedisBucketStore` uses this module
 * without a clock override; tests pass an explicit `nowUs` to drive the script through simulated
 * time (`runBucketOps`).
 */
import { createHash } from 'node:crypto';
import { BUCKET_LUA } from './bucket-lua.js';
import { bucketReply, type BucketOp, type BucketReply, type BucketStatus } from './bucket-math.js';
import { BucketStoreError } from './errors.js';
import type { BucketPolicy } from './types.js';

/** The Lua source of the bucket script. */
export const BUCKET_SCRIPT: string = BUCKET_LUA;

/** SHA1 of `BUCKET_SCRIPT`: what `SCRIPT LOAD` answers and `EVALSHA` sends. */
export const BUCKET_SCRIPT_SHA: string = createHash('sha1').update(BUCKET_SCRIPT).digest('hex');

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

const OP_LETTER: Readonly<Record<BucketOp, string>> = { consume: 'c', refund: 'r', peek: 'p', take: 't' };

/** Most keys one script call names: a batch closes before it would hold more. */
export const MAX_KEYS_PER_CALL = 64;

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
