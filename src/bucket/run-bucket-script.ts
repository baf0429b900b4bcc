/**
 * The bucket script run directly, one call at a time, over any supported client: for tests and
 * tools (a test clock, raw replies); `RedisBucketStore` uses its own path (batching, deadlines).
 */
import type { BucketOp, BucketReply } from './bucket-math.js';
import { bucketConnection } from './bucket-connection.js';
import {
  bucketScriptArgs,
  parseBucketScriptReply,
  type BucketScriptOp,
  type BucketScriptReply,
  type ExpiredReply,
} from './bucket-script.js';
import { BucketStoreError } from './errors.js';
import type { RedisBucketClient } from './redis-client.js';

/** Runs `ops` in one script call. For tests and tools; stores use their own path. */
export async function runBucketOps(
  client: RedisBucketClient,
  ops: readonly BucketScriptOp[],
  nowUs?: number,
): Promise<BucketScriptReply> {
  const [keyCount, ...args] = bucketScriptArgs(ops, nowUs) as [string, ...string[]];
  return parseBucketScriptReply(await bucketConnection(client).run(keyCount, ...args), ops);
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
