/**
 * `lua/bucket.lua` as ioredis sees it: the source, its SHA1, how a call is encoded as ARGV and how
 * a reply is decoded. `RedisBucketStore` uses this module without a clock override; tests call
 * `runBucketScript` with an explicit `nowUs` to drive the script through simulated time.
 */
import { createHash } from 'node:crypto';
import { BUCKET_LUA } from './bucket-lua.js';
import { bucketReply, type BucketOp, type BucketReply } from './bucket-math.js';
import { BucketStoreError } from './errors.js';
import type { RedisBucketClient } from './redis-client.js';

/** The Lua source of the bucket script. */
export const BUCKET_SCRIPT: string = BUCKET_LUA;

/** SHA1 of `BUCKET_SCRIPT`: what `SCRIPT LOAD` answers and `EVALSHA` sends. */
export const BUCKET_SCRIPT_SHA: string = createHash('sha1').update(BUCKET_SCRIPT).digest('hex');

/** The ioredis command name; versioned by the SHA so two copies of the library never clash. */
export const BUCKET_COMMAND = `graphqlBudgetBucket${BUCKET_SCRIPT_SHA.slice(0, 8)}`;

/** One script call. */
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

/** The script refused the call because Redis ran it after `deadlineUs`; nothing was written. */
export interface ExpiredReply {
  status: 'expired';
  nowUs: number;
}

type BucketCommand = (key: string, ...args: string[]) => Promise<unknown>;

/**
 * Registers the script on `client` with `defineCommand` (EVALSHA, with an EVAL fallback on
 * NOSCRIPT, e.g. after `SCRIPT FLUSH` or a restart) and returns the command.
 */
export function defineBucketCommand(client: RedisBucketClient): BucketCommand {
  const commands = client as unknown as Record<string, BucketCommand | undefined>;
  if (typeof commands[BUCKET_COMMAND] !== 'function') {
    client.defineCommand(BUCKET_COMMAND, { numberOfKeys: 1, lua: BUCKET_SCRIPT });
  }
  const command = commands[BUCKET_COMMAND] as BucketCommand;
  return (key, ...args) => command.call(client, key, ...args);
}

/** ARGV for one call, in the order of the script's header; absent trailing entries are left out. */
export function bucketArgs(call: BucketScriptCall): string[] {
  const args = [call.op, String(call.amount), String(call.capacity), String(call.refillPerSecond)];
  if (call.deadlineUs !== undefined || call.nowUs !== undefined) {
    args.push(call.deadlineUs === undefined ? '' : String(Math.floor(call.deadlineUs)));
  }
  if (call.nowUs !== undefined) args.push(String(call.nowUs));
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

function unexpected(raw: unknown): BucketStoreError {
  return new BucketStoreError(`unexpected bucket script reply ${JSON.stringify(raw)}`);
}

/**
 * Decodes the script's reply `{ status, state, now }` (or `{ 'expired', now }`) into the full reply
 * of the call it answers: tokens left, retry and reset times come from `bucketReply`, the same
 * arithmetic `MemoryBucketStore` uses.
 */
export function parseBucketReply(
  raw: unknown,
  call: Pick<BucketScriptCall, 'op' | 'amount' | 'capacity' | 'refillPerSecond'>,
): BucketReply | ExpiredReply {
  if (!Array.isArray(raw) || raw.length < 2) throw unexpected(raw);
  const status = String(raw[0]);
  if (status === 'expired') return { status, nowUs: decodeNumber(raw[1]) };
  if ((status !== 'ok' && status !== 'denied' && status !== 'never') || raw.length !== 3) throw unexpected(raw);
  const amount = call.op === 'peek' ? 0 : call.amount;
  return bucketReply(status, decodeNumber(raw[1]), amount, call, decodeNumber(raw[2]));
}

/** Runs the script once on `key` (already prefixed). For tests and tools; stores use their own path. */
export async function runBucketScript(
  client: RedisBucketClient,
  key: string,
  call: BucketScriptCall,
): Promise<BucketReply | ExpiredReply> {
  return parseBucketReply(await defineBucketCommand(client)(key, ...bucketArgs(call)), call);
}
