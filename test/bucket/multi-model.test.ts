/**
 * Charges of several buckets at once, in both stores, against the reference model (model.ts):
 * random sequences of all-or-nothing consumes over random ordered subsets of three buckets (one
 * of them shared, as an app bucket is), refunds and reads of several buckets, and single-bucket
 * consumes, with random costs and time steps. Every bucket's result, the decision, the wait and
 * the binding bucket are compared. Redis runs the real script on a test clock; memory runs on an
 * injected clock.
 */
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { toBucketResult } from '../../src/bucket/bucket-math.js';
import type { BucketScriptOp } from '../../src/bucket/bucket-script.js';
import { runBucketOps } from '../../src/bucket/run-bucket-script.js';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { allowedResult, deniedResult } from '../../src/bucket/multi-charge.js';
import type { BucketPolicy, BucketResult, MultiBucketResult } from '../../src/bucket/types.js';
import { CLIENTS, connectClient, type TestClient } from '../support/redis-clients.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { BucketModel, consumeAllModel, resultMismatch, type ModelAnswer } from './model.js';

/** Refill rates whose token time is a whole number of µs: decisions compare without tolerance. */
const REFILLS = [0, 0.5, 1, 2, 4, 5, 10, 20, 25, 50, 100, 250, 1000];
const BUCKETS = ['alice', 'alice-hour', 'app'];

const policyArb: fc.Arbitrary<BucketPolicy> = fc.record({
  capacity: fc.oneof(
    fc.integer({ min: 1, max: 60 }),
    fc.integer({ min: 1, max: 240 }).map((q) => q / 4),
  ),
  refillPerSecond: fc.constantFrom(...REFILLS),
});

interface Op {
  kind: 'consumeAll' | 'refundAll' | 'peekAll' | 'consume';
  /** Indexes into BUCKETS, distinct, in the order the call names them. */
  buckets: number[];
  quarters: number;
  /** µs before the op (multiples of 250). */
  stepUs: number;
}

const opsArb: fc.Arbitrary<Op[]> = fc
  .array(
    fc.record({
      kind: fc.constantFrom<Op['kind']>('consumeAll', 'consumeAll', 'consumeAll', 'refundAll', 'peekAll', 'consume'),
      buckets: fc.shuffledSubarray([0, 1, 2], { minLength: 1 }),
      quarters: fc.oneof(fc.integer({ min: 0, max: 16 }), fc.integer({ min: 0, max: 260 })),
      stepUs: fc.oneof(
        fc.constant(0),
        fc.integer({ min: 0, max: 8000 }).map((q) => q * 250),
      ),
    }),
    { minLength: 1, maxLength: 40 },
  )
  .map((ops) => ops.map((op) => (op.kind === 'consume' ? { ...op, buckets: op.buckets.slice(0, 1) } : op)));

/** A store under test: runs one op at `nowUs` and answers one result per bucket (and the charge's). */
type Run = (op: Op, policies: BucketPolicy[], nowUs: number) => Promise<MultiBucketResult>;

function expectedOf(models: BucketModel[], op: Op, policies: BucketPolicy[], nowUs: bigint) {
  const amount = op.kind === 'peekAll' ? 0 : op.quarters / 4;
  const chosen = op.buckets.map((b) => models[b] as BucketModel);
  if (op.kind === 'consumeAll') return consumeAllModel(chosen, policies, amount, nowUs);
  const answers: ModelAnswer[] = chosen.map((model, i) => {
    const policy = policies[i] as BucketPolicy;
    if (op.kind === 'refundAll') return model.refund(amount, policy, nowUs);
    if (op.kind === 'consume') return model.consume(amount, policy, nowUs);
    return model.peek(policy, nowUs);
  });
  const first = (answers[0] as ModelAnswer).result;
  return { allowed: first.allowed, answers, retryAfterMs: first.retryAfterMs, binding: 0 };
}

async function check(policies: BucketPolicy[], ops: Op[], startUs: number, run: Run): Promise<void> {
  const models = BUCKETS.map(() => new BucketModel());
  let nowUs = startUs;
  for (const [index, op] of ops.entries()) {
    nowUs += op.stepUs;
    const chosen = op.buckets.map((b) => policies[b] as BucketPolicy);
    const expected = expectedOf(models, op, chosen, BigInt(nowUs));
    const actual = await run(op, chosen, nowUs);
    const where = `op #${index} ${op.kind}(${op.quarters / 4}) on ${op.buckets.map((b) => BUCKETS[b]).join(',')}`;
    expected.answers.forEach((answer, i) => {
      const mismatch = resultMismatch(actual.results[i] as BucketResult, answer.result);
      if (mismatch) throw new Error(`${where}, bucket ${BUCKETS[op.buckets[i] as number]}: ${mismatch}`);
    });
    if (op.kind !== 'consumeAll') continue;
    const got = { allowed: actual.allowed, retryAfterMs: actual.retryAfterMs, binding: actual.binding };
    const want = { allowed: expected.allowed, retryAfterMs: expected.retryAfterMs, binding: expected.binding };
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      throw new Error(`${where}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
    }
  }
}

/** The charge's answer from one result per bucket (for ops that are not an all-or-nothing consume). */
const asMulti = (results: BucketResult[]): MultiBucketResult =>
  results.every((result) => result.allowed) ? allowedResult(results) : deniedResult(results);

describe('charges of several buckets against the reference model', () => {
  it('MemoryBucketStore matches the model on an injected clock', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(policyArb, { minLength: 3, maxLength: 3 }), opsArb, async (policies, ops) => {
        let nowMs = 0;
        const store = new MemoryBucketStore({ now: () => nowMs });
        await check(policies, ops, 1_000_000_000, async (op, chosen, nowUs) => {
          nowMs = nowUs / 1000;
          const limits = op.buckets.map((b, i) => ({ key: BUCKETS[b] as string, policy: chosen[i] as BucketPolicy }));
          const amount = op.quarters / 4;
          if (op.kind === 'consumeAll') return store.consumeAll(limits, amount);
          if (op.kind === 'refundAll') return asMulti(await store.refundAll(limits, amount));
          if (op.kind === 'peekAll') return asMulti(await store.peekAll(limits));
          const [only] = limits as [{ key: string; policy: BucketPolicy }];
          return asMulti([await store.consume(only.key, amount, only.policy)]);
        });
      }),
      { numRuns: 300 },
    );
  });

  describe.each(CLIENTS)('Redis script on a test clock, over %s', (name) => {
    let server: RedisServer;
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

    it('matches the model, one script call per charge', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(policyArb, { minLength: 3, maxLength: 3 }), opsArb, async (policies, ops) => {
          const prefix = `multi${run++}:`;
          await check(policies, ops, baseUs, async (op, chosen, nowUs) => {
            const amount = op.quarters / 4;
            const scriptOp: BucketScriptOp = {
              op:
                op.kind === 'consumeAll' || op.kind === 'consume'
                  ? 'consume'
                  : op.kind === 'refundAll'
                    ? 'refund'
                    : 'peek',
              amount,
              keys: op.buckets.map((b) => `${prefix}${BUCKETS[b]}`),
              policies: chosen,
            };
            const [reply] = (await runBucketOps(tested.client, [scriptOp], nowUs)).replies;
            if (!Array.isArray(reply)) throw new Error(`unexpected reply ${String(reply)}`);
            const cost = op.kind === 'peekAll' ? 0 : amount;
            return asMulti(reply.map((r, i) => toBucketResult(r, cost, (chosen[i] as BucketPolicy).capacity)));
          });
        }),
        { numRuns: 200 },
      );
    });
  });
});
