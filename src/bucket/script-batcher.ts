import { MAX_KEYS_PER_CALL, type BucketOpReply, type BucketScriptOp, type BucketScriptReply } from './bucket-script.js';
import { BucketStoreError } from './errors.js';
import { localUs } from './redis-clock.js';
import { checkKnownOptions } from '../known-options.js';
import { describe } from './validate.js';

/** How `RedisBucketStore` gathers operations into script calls. */
export interface BatchOptions {
  /**
   * How long a batch may stay open after its first operation while calls of this store are still
   * awaiting Redis (µs): their answers often bring more operations. A batch is sent at the end of
   * the event-loop turn in which the window closes; it never waits when no call is in flight (no
   * company is coming), and never beyond `maxOperations`. While a window is open the event loop
   * polls instead of sleeping. 0: no window (a batch leaves at the end of the turn its first
   * operation came in, or sooner when no call is in flight). Must be an integer from 0 to 1000.
   * @default 0
   */
  windowUs?: number;
  /**
   * Most operations in one script call; a full batch is sent at once, and the operations after it
   * start the next. Bounds the script's run time (Redis serves nothing else meanwhile) and the
   * size of one command. A batch also closes before it would name more than 64 keys (a charge of
   * several buckets names one key per bucket). Must be an integer from 1 to 64.
   * @default 32
   */
  maxOperations?: number;
}

export const BATCH_DEFAULTS: Required<BatchOptions> = { windowUs: 0, maxOperations: 32 };

/** The batching options in force (undefined: batching off), checked, each named in its error. */
export function batchOptions(value: unknown): Required<BatchOptions> | undefined {
  if (value === undefined || value === true) return BATCH_DEFAULTS;
  if (value === false) return undefined;
  if (typeof value !== 'object' || value === null) {
    throw new TypeError(
      `options.batch must be a boolean or an object { windowUs?, maxOperations? }, got ${describe(value)}`,
    );
  }
  checkKnownOptions('RedisBucketStore options.batch', value, ['windowUs', 'maxOperations']);
  const { windowUs = BATCH_DEFAULTS.windowUs, maxOperations = BATCH_DEFAULTS.maxOperations } = value as BatchOptions;
  const integer = (name: string, number: unknown, min: number, max: number): number => {
    const rule = `an integer from ${min} to ${max}`;
    if (typeof number !== 'number')
      throw new TypeError(`options.batch.${name} must be ${rule}, got ${describe(number)}`);
    if (!Number.isInteger(number) || number < min || number > max) {
      throw new RangeError(`options.batch.${name} must be ${rule}, got ${describe(number)}`);
    }
    return number;
  };
  return {
    windowUs: integer('windowUs', windowUs, 0, 1000),
    maxOperations: integer('maxOperations', maxOperations, 1, MAX_KEYS_PER_CALL),
  };
}

interface Member {
  resolve(reply: BucketOpReply): void;
  reject(error: unknown): void;
}

interface Batch {
  ops: BucketScriptOp[];
  members: Member[];
  /** Keys the operations name, in all. */
  keys: number;
  /** When the first operation came in (local µs). */
  openedUs: number;
}

/**
 * Collects the operations issued close together (in the same event-loop turn while other calls are
 * awaiting Redis; in the same callback when none is; or within the window) into one script call
 * per group (a Cluster slot, or the single node), which applies them in order and answers each one:
 * the per-command cost, in Redis and in the client, is paid once for many operations. Each
 * operation keeps its own deadline; a failed call fails each of its operations with a
 * `BucketStoreError` naming the operation.
 */
export class ScriptBatcher {
  readonly #send: (ops: readonly BucketScriptOp[]) => Promise<BucketScriptReply>;
  readonly #groupOf: (op: BucketScriptOp) => number;
  readonly #windowUs: number;
  readonly #maxOperations: number;
  /** Open batches by group, in the order they opened. */
  readonly #open = new Map<number, Batch>();
  #scheduled = false;
  /** Script calls sent and not answered yet. */
  #inFlight = 0;

  constructor(
    send: (ops: readonly BucketScriptOp[]) => Promise<BucketScriptReply>,
    groupOf: (op: BucketScriptOp) => number,
    options: Required<BatchOptions>,
  ) {
    this.#send = send;
    this.#groupOf = groupOf;
    this.#windowUs = options.windowUs;
    this.#maxOperations = options.maxOperations;
  }

  /** Adds `op` to its group's open batch; resolves with the script's answer for it. */
  submit(op: BucketScriptOp): Promise<BucketOpReply> {
    const group = this.#groupOf(op);
    let batch = this.#open.get(group);
    if (batch !== undefined && batch.keys + op.keys.length > MAX_KEYS_PER_CALL) {
      this.#flush(group, batch);
      batch = undefined;
    }
    if (batch === undefined) {
      batch = { ops: [], members: [], keys: 0, openedUs: localUs() };
      this.#open.set(group, batch);
      this.#schedule();
    }
    const open = batch;
    return new Promise<BucketOpReply>((resolve, reject) => {
      open.ops.push(op);
      open.keys += op.keys.length;
      open.members.push({ resolve, reject });
      if (open.ops.length >= this.#maxOperations) this.#flush(group, open);
    });
  }

  /**
   * Sends the open batches soon: at the end of the event-loop turn while calls of this store are
   * awaiting Redis (their answers, and the other callbacks of the turn, bring company); as soon as
   * the current callback's promise chains have run when none is (nobody's answer can bring any, so
   * a lone call does not wait for the rest of the turn).
   */
  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    if (this.#inFlight > 0) setImmediate(this.#tick);
    else process.nextTick(this.#tick);
  }

  /** Sends every open batch whose window has closed; the others wait for the next turn. */
  readonly #tick = (): void => {
    this.#scheduled = false;
    const nowUs = localUs();
    for (const [group, batch] of this.#open) {
      if (this.#windowUs > 0 && this.#inFlight > 0 && nowUs - batch.openedUs < this.#windowUs) this.#schedule();
      else this.#flush(group, batch);
    }
  };

  #flush(group: number, batch: Batch): void {
    this.#open.delete(group);
    this.#inFlight++;
    this.#send(batch.ops).then(
      ({ replies }) => {
        this.#inFlight--;
        batch.members.forEach((member, index) => {
          member.resolve(replies[index] as BucketOpReply);
        });
      },
      (error: unknown) => {
        this.#inFlight--;
        batch.members.forEach((member, index) => {
          member.reject(failure(batch.ops[index] as BucketScriptOp, error));
        });
      },
    );
  }
}

/** The error an operation gets when its script call failed. */
export function failure(op: BucketScriptOp, error: unknown): BucketStoreError {
  if (error instanceof BucketStoreError) return error;
  return new BucketStoreError(`Redis bucket ${op.op} failed: ${(error as Error)?.message ?? String(error)}`, {
    cause: error,
  });
}
