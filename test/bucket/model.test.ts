/**
 * Both stores against the reference model: random sequences of consume/refund/peek with random
 * costs and time steps, every result compared. Redis runs the real script on a test clock passed
 * as ARGV; memory runs on an injected clock.
 */
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketStep, roundTicks, toBucketResult } from '../../src/bucket/bucket-math.js';
import { runBucketScript } from '../../src/bucket/run-bucket-script.js';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import type { BucketPolicy, BucketResult } from '../../src/bucket/types.js';
import { CLIENTS, connectClient, type TestClient } from '../support/redis-clients.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { BucketModel, resultMismatch } from './model.js';

/**
 * Refill rates whose token time (1e6 / rate µs) is a whole number of µs, and costs in quarter
 * tokens: the stores' doubles then hold every instant exactly, so decisions can be compared with
 * the exact model without a tolerance (only `remaining` is a rounded division).
 */
const REFILLS = [0, 0.5, 1, 2, 2.5, 3.125, 4, 5, 8, 10, 16, 20, 25, 40, 50, 64, 100, 125, 200, 250, 500, 1000];

interface Op {
  kind: 'consume' | 'refund' | 'peek' | 'take';
  bucket: number;
  quarters: number;
  /** Time step before the op: ms for memory, µs (a multiple of 250) for Redis. */
  step: number;
}

const policyArb: fc.Arbitrary<BucketPolicy> = fc.record({
  capacity: fc.oneof(
    fc.integer({ min: 1, max: 60 }),
    fc.integer({ min: 1, max: 240 }).map((q) => q / 4),
  ),
  refillPerSecond: fc.constantFrom(...REFILLS),
});

function opsArb(stepArb: fc.Arbitrary<number>): fc.Arbitrary<Op[]> {
  return fc.array(
    fc.record({
      kind: fc.constantFrom<Op['kind']>('consume', 'consume', 'consume', 'refund', 'peek', 'take'),
      bucket: fc.integer({ min: 0, max: 1 }),
      quarters: fc.oneof(fc.integer({ min: 0, max: 16 }), fc.integer({ min: 0, max: 260 })),
      step: stepArb,
    }),
    { minLength: 1, maxLength: 40 },
  );
}

async function check(
  policies: BucketPolicy[],
  ops: Op[],
  toUs: (time: number) => bigint,
  call: (op: Op, policy: BucketPolicy, time: number) => Promise<BucketResult>,
): Promise<void> {
  const models = policies.map(() => new BucketModel());
  let time = 0;
  for (const [index, op] of ops.entries()) {
    time += op.step;
    const policy = policies[op.bucket] as BucketPolicy;
    const model = models[op.bucket] as BucketModel;
    const amount = op.quarters / 4;
    const nowUs = toUs(time);
    const expected = (
      op.kind === 'consume'
        ? model.consume(amount, policy, nowUs)
        : op.kind === 'refund'
          ? model.refund(amount, policy, nowUs)
          : op.kind === 'take'
            ? model.take(amount, policy, nowUs)
            : model.peek(policy, nowUs)
    ).result;
    const actual = await call(op, policy, time);
    const mismatch = resultMismatch(actual, expected);
    if (mismatch) throw new Error(`op #${index} ${op.kind}(${amount}) at +${time}: ${mismatch}`);
  }
}

describe('stores against the reference model', () => {
  it('MemoryBucketStore matches the model on an injected clock', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(policyArb, { minLength: 2, maxLength: 2 }),
        opsArb(fc.integer({ min: 0, max: 3000 })),
        async (policies, ops) => {
          let nowMs = 1_000_000;
          const store = new MemoryBucketStore({ now: () => nowMs });
          await check(
            policies,
            ops,
            (t) => BigInt(1_000_000 + t) * 1000n,
            async (op, policy, t) => {
              nowMs = 1_000_000 + t;
              const key = `b${op.bucket}`;
              if (op.kind === 'consume') return store.consume(key, op.quarters / 4, policy);
              if (op.kind === 'refund') return store.refund(key, op.quarters / 4, policy);
              if (op.kind === 'take')
                return (await store.takeAll([{ key, policy }], op.quarters / 4))[0] as BucketResult;
              return store.peek(key, policy);
            },
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  describe.each(CLIENTS)('Redis script on a test clock, over %s', (name) => {
    let server: RedisServer;
    /** Reads what the script wrote. */
    let client: Redis;
    let tested: TestClient;
    let baseUs: number;
    let run = 0;

    beforeAll(async () => {
      server = await startRedisServer();
      client = new Redis({ port: server.port, host: '127.0.0.1' });
      tested = await connectClient(name, server.port);
      const [seconds, micros] = await client.time();
      // Simulated time starts 100 days ahead, so keys (which expire in real time) outlive the test.
      baseUs = (Number(seconds) + 100 * 86_400) * 1_000_000 + Number(micros);
    });
    afterAll(async () => {
      client.disconnect();
      await tested.close();
      await server.stop();
    });

    it('RedisBucketStore script matches the model', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(policyArb, { minLength: 2, maxLength: 2 }),
          opsArb(fc.integer({ min: 0, max: 12_000 }).map((q) => q * 250)),
          async (policies, ops) => {
            const prefix = `model${run++}:`;
            await check(
              policies,
              ops,
              (t) => BigInt(baseUs + t),
              async (op, policy, t) => {
                const amount = op.kind === 'peek' ? 0 : op.quarters / 4;
                const reply = await runBucketScript(tested.client, `${prefix}${op.bucket}`, {
                  op: op.kind,
                  amount,
                  capacity: policy.capacity,
                  refillPerSecond: policy.refillPerSecond,
                  nowUs: baseUs + t,
                });
                if (reply.status === 'expired') throw new Error('unexpected expired reply');
                return toBucketResult(reply, amount, policy.capacity);
              },
            );
          },
        ),
        { numRuns: 150 },
      );
    });

    it('matches MemoryBucketStore step for step when the policy changes between calls', async () => {
      const baseMs = Math.floor(baseUs / 1000);
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.tuple(
              policyArb,
              fc.constantFrom<Op['kind']>('consume', 'refund', 'peek'),
              fc.integer({ min: 0, max: 120 }),
              fc.integer({ min: 0, max: 1500 }),
            ),
            { minLength: 1, maxLength: 30 },
          ),
          async (steps) => {
            const key = `policy-change-${run++}`;
            let t = 0;
            const memory = new MemoryBucketStore({ now: () => baseMs + t });
            for (const [policy, kind, quarters, stepMs] of steps) {
              t += stepMs;
              const amount = kind === 'peek' ? 0 : quarters / 4;
              const reply = await runBucketScript(tested.client, key, {
                op: kind,
                amount,
                ...policy,
                nowUs: (baseMs + t) * 1000,
              });
              if (reply.status === 'expired') throw new Error('unexpected expired reply');
              const fromRedis = toBucketResult(reply, amount, policy.capacity);
              const fromMemory =
                kind === 'consume'
                  ? await memory.consume('k', amount, policy)
                  : kind === 'refund'
                    ? await memory.refund('k', amount, policy)
                    : await memory.peek('k', policy);
              expect(fromRedis).toEqual(fromMemory);
            }
          },
        ),
        { numRuns: 100 },
      );
    });

    it('matches MemoryBucketStore step for step when a token time is not a whole number of µs, and keeps the state one short string', async () => {
      const baseMs = Math.floor(baseUs / 1000);
      const fractionalPolicy: fc.Arbitrary<BucketPolicy> = fc.record({
        capacity: fc.oneof(
          fc.integer({ min: 1, max: 60 }),
          fc.integer({ min: 1, max: 240 }).map((q) => q / 3),
        ),
        refillPerSecond: fc.constantFrom(3, 7, 0.3, 1 / 3, 6.5536, 333, 1e6 / 7, 5000 / 3600, 1.234567e-5),
      });
      await fc.assert(
        fc.asyncProperty(
          fractionalPolicy,
          fc.array(
            fc.tuple(
              fc.constantFrom<Op['kind']>('consume', 'consume', 'refund', 'peek'),
              fc.integer({ min: 0, max: 90 }),
              fc.integer({ min: 0, max: 700 }),
            ),
            { minLength: 1, maxLength: 30 },
          ),
          async (policy, steps) => {
            const key = `fractional-${run++}`;
            let t = 0;
            const memory = new MemoryBucketStore({ now: () => baseMs + t });
            for (const [kind, thirds, stepMs] of steps) {
              t += stepMs;
              const amount = kind === 'peek' ? 0 : thirds / 3;
              const reply = await runBucketScript(tested.client, key, {
                op: kind,
                amount,
                ...policy,
                nowUs: (baseMs + t) * 1000,
              });
              if (reply.status === 'expired') throw new Error('unexpected expired reply');
              const fromMemory =
                kind === 'consume'
                  ? await memory.consume('k', amount, policy)
                  : kind === 'refund'
                    ? await memory.refund('k', amount, policy)
                    : await memory.peek('k', policy);
              expect(toBucketResult(reply, amount, policy.capacity)).toEqual(fromMemory);
              const stored = await client.get(key);
              if (stored !== null) {
                // Whole ticks in hex, and the rate exactly: at most 39 characters.
                expect(stored).toMatch(/^[1-9a-f][0-9a-f]*:[0-9.e+-]+$/);
                expect(Number(stored.slice(stored.indexOf(':') + 1))).toBe(policy.refillPerSecond);
                expect(stored.length).toBeLessThanOrEqual(39);
                expect(await client.object('ENCODING', key)).toBe('embstr');
              }
            }
          },
        ),
        { numRuns: 60 },
      );
    });

    it('rounds the state to the nearest tick, ties to even, exactly as bucketStep does', async () => {
      // A clock far in the past (the keys expire at once): the instants are small doubles, so the
      // rounding is the script's own, not the doubles'. 2e6/s and 0.25 tokens: 0.5 tick per charge.
      const policy = { capacity: 10, refillPerSecond: 2e6 };
      const cases: Array<[number, number, BucketPolicy]> = [
        [1000, 0.25, policy], // tick 4000 + 0.5 → 4000 (even): the bucket stays full
        [1000.25, 0.25, policy], // tick 4001 + 0.5 → 4002 (even)
        [1000.25, 1, { capacity: 10, refillPerSecond: 3 }], // 4001 + 1333333.33… → 1337334
        [1000.5, 2, { capacity: 10, refillPerSecond: 3 }], // 4002 + 2666666.67… → 2670669
      ];
      for (const [nowUs, amount, p] of cases) {
        const reply = await runBucketScript(tested.client, `round-${run++}`, { op: 'consume', amount, ...p, nowUs });
        expect(reply).toEqual(bucketStep(undefined, 'consume', amount, p, nowUs).reply);
      }
      expect(bucketStep(undefined, 'consume', 0.25, policy, 1000).state).toBeUndefined();
      expect(bucketStep(undefined, 'consume', 0.25, policy, 1000.25).state).toEqual({ rate: 2e6, value: 4002 });
      expect(bucketStep(undefined, 'consume', 1, { capacity: 10, refillPerSecond: 3 }, 1000.25).state).toEqual({
        rate: 3,
        value: 1_337_334,
      });
      expect(bucketStep(undefined, 'consume', 2, { capacity: 10, refillPerSecond: 3 }, 1000.5).state).toEqual({
        rate: 3,
        value: 2_670_669,
      });
      expect([0.5, 1.5, 2.5, -0.5, 2.4999, 2.5001, 7184094203738611].map(roundTicks)).toEqual([
        0, 2, 2, 0, 2, 3, 7184094203738611,
      ]);
    });

    it('holds no key for a full bucket and expires each key when it is full again', async () => {
      const key = 'ttl-shape';
      const nowUs = baseUs + 7_000_000;
      await runBucketScript(tested.client, key, { op: 'consume', amount: 3, capacity: 10, refillPerSecond: 2, nowUs });
      // The state is the instant the bucket is full again, in whole quarter-µs ticks (hex), and the rate.
      expect(await client.get(key)).toBe(`${((nowUs + 1_500_000) * 4).toString(16)}:2`);
      const expireAtMs = await client.pexpiretime(key);
      expect(expireAtMs).toBe(Math.ceil((nowUs + 1_500_000) / 1000));
      await runBucketScript(tested.client, key, { op: 'refund', amount: 3, capacity: 10, refillPerSecond: 2, nowUs });
      expect(await client.exists(key)).toBe(0);
    });
  });
});

describe("the seed article's lost-refill case", () => {
  /** The seed script: refill = floor(elapsed * limit / window) tokens, and last_refill moves to now. */
  function seedAdmits(requests: number, stepMs: number): number {
    let tokens = 10;
    let last = 0;
    let admitted = 0;
    for (let i = 0; i < requests; i++) {
      const now = i * stepMs;
      tokens = Math.min(10, tokens + Math.floor(((now - last) * 10) / 1000));
      last = now;
      if (tokens >= 1) {
        tokens -= 1;
        admitted++;
      }
    }
    return admitted;
  }

  it('admits what the model says (capacity 10, 10/s, cost 1 every 50 ms for 2 s), not what the seed did', async () => {
    const policy = { capacity: 10, refillPerSecond: 10 };
    const model = new BucketModel();
    let nowMs = 0;
    const memory = new MemoryBucketStore({ now: () => nowMs });
    const server = await startRedisServer();
    const client = new Redis({ port: server.port, host: '127.0.0.1' });
    try {
      const [seconds] = await client.time();
      const baseUs = (Number(seconds) + 86_400) * 1_000_000;
      const admitted = { model: 0, memory: 0, redis: 0 };
      for (let i = 0; i < 40; i++) {
        nowMs = i * 50;
        if (model.consume(1, policy, BigInt(nowMs * 1000)).result.allowed) admitted.model++;
        if ((await memory.consume('caller', 1, policy)).allowed) admitted.memory++;
        const reply = await runBucketScript(client, 'caller', {
          op: 'consume',
          amount: 1,
          ...policy,
          nowUs: baseUs + nowMs * 1000,
        });
        if (reply.status === 'ok') admitted.redis++;
      }
      // 10 at once, then one per 100 ms of refill over the 1950 ms between the first and last request.
      expect(admitted).toEqual({ model: 29, memory: 29, redis: 29 });
      expect(seedAdmits(40, 50)).toBe(10);
    } finally {
      client.disconnect();
      await server.stop();
    }
  });
});
