/**
 * Batching: a script call of many operations answers each exactly as a call of its own would, and
 * leaves the same state; RedisBucketStore sends the operations of one event-loop turn together,
 * within its cap, each with its own deadline.
 */
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { BucketOpReply, BucketScriptOp } from '../../src/bucket/bucket-script.js';
import { runBucketOps } from '../../src/bucket/run-bucket-script.js';
import { BucketStoreTimeoutError } from '../../src/bucket/errors.js';
import { RedisBucketStore } from '../../src/bucket/redis-store.js';
import { CLIENTS, connectClient, type TestClient } from '../support/redis-clients.js';
import type { BucketPolicy, BucketResult, MultiBucketResult } from '../../src/bucket/types.js';

/** Reads what the stores wrote, on a connection of its own. */
let admin: Redis;
let run = 0;
beforeAll(() => {
  admin = new Redis({ port: inject('redisPort'), host: '127.0.0.1' });
});
afterAll(() => admin.disconnect());

/** How many times Redis ran a script (EVAL or EVALSHA). */
async function scriptRuns(): Promise<number> {
  const stats = await admin.info('commandstats');
  let runs = 0;
  for (const match of stats.matchAll(/cmdstat_(?:eval|evalsha):calls=(\d+)/g)) runs += Number(match[1]);
  return runs;
}

const POLICIES: BucketPolicy[] = [
  { capacity: 10, refillPerSecond: 0 },
  { capacity: 25, refillPerSecond: 4 },
  { capacity: 7.5, refillPerSecond: 1 / 3 },
  { capacity: 100, refillPerSecond: 5000 / 3600 },
];
const NAMES = ['a', 'b', 'c', 'app'];

interface RandomOp {
  op: 'consume' | 'refund' | 'peek';
  /** Distinct indexes into NAMES (one policy each, fixed per key). */
  buckets: number[];
  quarters: number;
  /** Whether the deadline is already past when the call runs. */
  late: boolean;
}

const opArb: fc.Arbitrary<RandomOp> = fc.record({
  op: fc.constantFrom<RandomOp['op']>('consume', 'consume', 'consume', 'refund', 'peek'),
  buckets: fc.shuffledSubarray([0, 1, 2, 3], { minLength: 1, maxLength: 3 }),
  quarters: fc.oneof(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 120 })),
  late: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
});

const scriptOp = (prefix: string, op: RandomOp, nowUs: number): BucketScriptOp => ({
  op: op.op,
  amount: op.quarters / 4,
  keys: op.buckets.map((b) => `${prefix}${NAMES[b]}`),
  policies: op.buckets.map((b) => POLICIES[b] as BucketPolicy),
  deadlineUs: op.late ? nowUs - 1 : nowUs + 1_000_000,
});

describe.each(CLIENTS)('over %s', (name) => {
  const policy = { capacity: 50, refillPerSecond: 0 };
  let tested: TestClient;
  beforeAll(async () => {
    tested = await connectClient(name, inject('redisPort'));
  });
  afterAll(() => tested.close());

  describe('one script call of many operations', () => {
    it('answers each as a call of its own at the same instant, and leaves the same state', async () => {
      const [seconds] = await admin.time();
      const nowUs = (Number(seconds) + 86_400) * 1_000_000; // a day ahead: no key expires meanwhile
      await fc.assert(
        fc.asyncProperty(
          fc.array(opArb, { minLength: 1, maxLength: 40 }),
          fc.integer({ min: 0, max: 5_000_000 }),
          async (ops, offsetUs) => {
            const at = nowUs + offsetUs;
            const batched = `batched${run}:`;
            const single = `single${run++}:`;
            const together = await runBucketOps(
              tested.client,
              ops.map((op) => scriptOp(batched, op, at)),
              at,
            );
            const apart: BucketOpReply[] = [];
            for (const op of ops)
              apart.push(...(await runBucketOps(tested.client, [scriptOp(single, op, at)], at)).replies);
            expect(together.replies).toEqual(apart);
            const keys = (prefix: string) => NAMES.map((name) => `${prefix}${name}`);
            expect(await admin.mget(...keys(batched))).toEqual(await admin.mget(...keys(single)));
            const expiries = async (prefix: string) => Promise.all(keys(prefix).map((key) => admin.pexpiretime(key)));
            expect(await expiries(batched)).toEqual(await expiries(single));
          },
        ),
        { numRuns: 150 },
      );
    });
  });

  describe('RedisBucketStore batching', () => {
    it('sends the operations of one turn in one call and answers each as the unbatched store does', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 30 }), async (ops) => {
          const batching = new RedisBucketStore(tested.client, { prefix: `turn${run}:` });
          const alone = new RedisBucketStore(tested.client, { prefix: `alone${run++}:`, batch: false });
          const frozen = (b: number): BucketPolicy => ({
            capacity: (POLICIES[b] as BucketPolicy).capacity,
            refillPerSecond: 0,
          });
          const call = (
            store: RedisBucketStore,
            op: RandomOp,
          ): Promise<BucketResult | BucketResult[] | MultiBucketResult> => {
            const limits = op.buckets.map((b) => ({ key: NAMES[b] as string, policy: frozen(b) }));
            const [first] = limits as [{ key: string; policy: BucketPolicy }];
            const amount = op.quarters / 4;
            if (limits.length > 1) {
              if (op.op === 'consume') return store.consumeAll(limits, amount);
              return op.op === 'refund' ? store.refundAll(limits, amount) : store.peekAll(limits);
            }
            if (op.op === 'peek') return store.peek(first.key, first.policy);
            return store[op.op](first.key, amount, first.policy);
          };
          const runsBefore = await scriptRuns();
          const together = await Promise.all(ops.map((op) => call(batching, op)));
          expect(await scriptRuns()).toBe(runsBefore + 1);
          const apart = [];
          for (const op of ops) apart.push(await call(alone, op));
          expect(together).toEqual(apart);
        }),
        { numRuns: 60 },
      );
    });

    it('never puts more than maxOperations in one call', async () => {
      const store = new RedisBucketStore(tested.client, { prefix: `cap${run++}:`, batch: { maxOperations: 10 } });
      const runsBefore = await scriptRuns();
      const results = await Promise.all(Array.from({ length: 95 }, (_, i) => store.consume(`k${i % 7}`, 1, policy)));
      expect(results.every((r) => r.allowed)).toBe(true);
      expect(await scriptRuns()).toBe(runsBefore + 10);
      expect((await store.peek('k0', policy)).remaining).toBe(50 - 14);
    });

    it('closes a batch before it names more than 64 keys', async () => {
      const store = new RedisBucketStore(tested.client, { prefix: `keys${run++}:`, batch: { maxOperations: 64 } });
      const limits = (i: number) => ['a', 'b', 'c'].map((name) => ({ key: `${name}${i}`, policy }));
      const runsBefore = await scriptRuns();
      // 40 charges of 3 buckets: 21 per call (63 keys), then 19.
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => store.consumeAll(limits(i), 1)));
      expect(results.every((r) => r.allowed)).toBe(true);
      expect(await scriptRuns()).toBe(runsBefore + 2);
      const many = Array.from({ length: 65 }, (_, i) => ({ key: `k${i}`, policy }));
      await expect(store.consumeAll(many, 1)).rejects.toThrow(
        new RangeError('limits must name at most 64 buckets, got 65'),
      );
      expect((await store.consumeAll(many.slice(0, 64), 1)).allowed).toBe(true);
    });

    it('works next to other commands of an auto-pipelining client, whatever the number of keys', async () => {
      // ioredis gives an auto-pipeline the commands its client had when it opened: every command the
      // store needs must exist before any pipeline does. node-redis writes every command of a turn
      // together.
      const pipelining = await connectClient(name, inject('redisPort'), { autoPipelining: true });
      try {
        const store = new RedisBucketStore(pipelining.client, { prefix: `pipelined${run++}:` });
        const other = pipelining.command('GET', 'unrelated');
        const charges = Array.from({ length: 6 }, (_, n) =>
          store.consumeAll(
            Array.from({ length: n + 1 }, (_, i) => ({ key: `k${n}-${i}`, policy })),
            1,
          ),
        );
        await other;
        expect((await Promise.all(charges)).every((r) => r.allowed)).toBe(true);
        const more = Array.from({ length: 10 }, (_, n) =>
          store.consumeAll(
            [
              { key: `x${n}`, policy },
              { key: `y${n}`, policy },
            ],
            1,
          ),
        );
        expect((await Promise.all([pipelining.command('GET', 'unrelated'), ...more])).length).toBe(11);
      } finally {
        await pipelining.close();
      }
    });

    it('with a window, still sends at once when nothing else is in flight', async () => {
      const store = new RedisBucketStore(tested.client, { prefix: `window${run++}:`, batch: { windowUs: 1000 } });
      const unbatched = new RedisBucketStore(tested.client, { prefix: `window${run++}:`, batch: false });
      await store.peek('warm', policy);
      await unbatched.peek('warm', policy);
      // 40 calls one after another, with the window and without batching, best of three each: a store
      // that waited out the window would take at least 40 ms longer. Compared with the unbatched
      // store on the same client, so that a loaded machine slows both alike.
      const loop = async (on: RedisBucketStore): Promise<number> => {
        const started = performance.now();
        for (let i = 0; i < 40; i++) await on.consume('alone', 1, policy);
        return performance.now() - started;
      };
      const windowed: number[] = [];
      const plain: number[] = [];
      for (let round = 0; round < 3; round++) {
        windowed.push(await loop(store));
        plain.push(await loop(unbatched));
      }
      expect(Math.min(...windowed) - Math.min(...plain)).toBeLessThan(20);
      const runsBefore = await scriptRuns();
      await Promise.all([store.consume('x', 1, policy), store.consume('y', 1, policy)]);
      expect(await scriptRuns()).toBe(runsBefore + 1);
    });

    it('gives each operation its own deadline: a late one does nothing, the others are applied', async () => {
      const store = new RedisBucketStore(tested.client, { prefix: `deadline${run++}:` });
      await store.peek('warm', policy, { timeoutMs: 1000 });
      const [seconds, micros] = await admin.time();
      const now = Number(seconds) * 1_000_000 + Number(micros);
      const replies = await runBucketOps(tested.client, [
        { op: 'consume', amount: 5, keys: [`deadline${run}:late`], policies: [policy], deadlineUs: now - 1 },
        { op: 'consume', amount: 5, keys: [`deadline${run}:late`], policies: [policy], deadlineUs: now + 10_000_000 },
      ]);
      expect(replies.replies[0]).toEqual({ status: 'expired', nowUs: replies.nowUs });
      expect(replies.replies[1]).toMatchObject([{ status: 'ok', remaining: 45 }]);
      // Through the store: a refund and a consume in one turn; the refund's answer is the bucket after it.
      await store.consume('rider', 20, policy);
      const [refunded, charged] = await Promise.all([
        store.refund('rider', 5, policy, { timeoutMs: 1000 }),
        store.consume('rider', 10, policy, { timeoutMs: 1000 }),
      ]);
      expect(refunded.remaining).toBe(35);
      expect(charged.remaining).toBe(25);
      await expect(store.consume('rider', 1, policy, { timeoutMs: 1e-9 })).rejects.toBeInstanceOf(
        BucketStoreTimeoutError,
      );
    });
  });
});

describe('batching options', () => {
  let client: Redis;
  beforeAll(() => {
    client = new Redis({ port: inject('redisPort'), host: '127.0.0.1', lazyConnect: true });
  });
  afterAll(() => client.disconnect());
  it('rejects bad batching options at construction, naming them', () => {
    const make = (batch: unknown) => () => new RedisBucketStore(client, { batch: batch as never });
    expect(make('yes')).toThrow(
      new TypeError('options.batch must be a boolean or an object { windowUs?, maxOperations? }, got "yes"'),
    );
    expect(make({ windowUs: 1001 })).toThrow(
      new RangeError('options.batch.windowUs must be an integer from 0 to 1000, got 1001'),
    );
    expect(make({ windowUs: -1 })).toThrow(RangeError);
    expect(make({ windowUs: 0.5 })).toThrow(RangeError);
    expect(make({ maxOperations: 0 })).toThrow(/options\.batch\.maxOperations must be an integer from 1 to 64, got 0/);
    expect(make({ maxOperations: '8' })).toThrow(TypeError);
    expect(make({ maxOperations: 65 })).toThrow(RangeError);
    expect(make(false)).not.toThrow();
    expect(make({})).not.toThrow();
  });
});
