/**
 * Integer costs on integer policies give integer answers, in both stores, equal to the exact model:
 * the tick rounding of the state (a token at 7/s is 571,428.57… ticks) never shows in `remaining`
 * (so `currentlyAvailable` and `RateLimit r=`, its floor, are never one low) nor in the decisions,
 * however many consumes and refunds meet at one instant, across policy changes between integer
 * policies and whole seconds of refill.
 */
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BucketOp } from '../../src/bucket/bucket-math.js';
import type { BucketPolicy } from '../../src/bucket/types.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { CLIENTS, connectClient, type TestClient } from '../support/redis-clients.js';
import { clockAhead, clockedMemory, clockedRedis, type ClockedStore } from './clocked-stores.js';
import { BucketModel } from './model.js';

/** Integer rates whose token time is mostly not a whole number of ticks (4e6 / rate), up to 8000/s. */
const RATES = [3, 7, 9, 11, 13, 17, 30, 60, 70, 90, 97, 120, 333, 999, 1000, 1024, 3001, 4999, 7919, 8000];

const policyArb: fc.Arbitrary<BucketPolicy> = fc.record({
  capacity: fc.oneof(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 100_000 })),
  refillPerSecond: fc.constantFrom(...RATES),
});

interface Step {
  policy: number;
  op: BucketOp;
  amount: number;
  /** Whole seconds before the step (mostly 0: the same instant). */
  seconds: number;
}

const stepsArb: fc.Arbitrary<Step[]> = fc.array(
  fc.record({
    policy: fc.nat(1),
    op: fc.constantFrom<BucketOp>('consume', 'consume', 'consume', 'refund', 'peek'),
    amount: fc.oneof(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 120_000 })),
    seconds: fc.oneof(
      { weight: 5, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }) },
    ),
  }),
  { minLength: 1, maxLength: 60 },
);

async function expectExact(store: ClockedStore, key: string, policies: BucketPolicy[], steps: Step[], startUs: number) {
  const model = new BucketModel({ keepRate: store.keepRate });
  let nowUs = startUs;
  for (const [index, step] of steps.entries()) {
    nowUs += step.seconds * 1_000_000;
    const policy = policies[step.policy] as BucketPolicy;
    const amount = step.op === 'peek' ? 0 : step.amount;
    const actual = await store.call(key, step.op, amount, policy, nowUs);
    const at = BigInt(nowUs);
    const expected =
      step.op === 'consume'
        ? model.consume(amount, policy, at)
        : step.op === 'refund'
          ? model.refund(amount, policy, at)
          : model.peek(policy, at);
    const where = `${store.name} step #${index} ${step.op}(${amount}) under ${JSON.stringify(policy)}`;
    expect(Number.isInteger(actual.remaining), `${where}: remaining ${actual.remaining}`).toBe(true);
    expect(actual, where).toEqual(expected.result);
  }
}

describe('integer costs on integer policies', () => {
  let server: RedisServer;
  let client: Redis;
  let nodeRedis: TestClient;
  let run = 0;

  beforeAll(async () => {
    server = await startRedisServer();
    client = new Redis({ port: server.port, host: '127.0.0.1' });
    nodeRedis = await connectClient('node-redis', server.port);
  });
  afterAll(async () => {
    client.disconnect();
    await nodeRedis.close();
    await server.stop();
  });
  /** The client of `name` on this suite's server. */
  const clientNamed = (name: string) => (name === 'ioredis' ? client : nodeRedis.client);

  it('capacity 10 at 7/s: ten consumes of 1 at one instant all pass, each leaving a whole token count', async () => {
    const startUs = await clockAhead(client);
    const policy = { capacity: 10, refillPerSecond: 7 };
    for (const store of [
      clockedMemory(),
      clockedRedis(client, 'seven:'),
      clockedRedis(nodeRedis.client, 'seven-nr:'),
    ]) {
      const left: number[] = [];
      for (let i = 0; i < 10; i++) {
        const result = await store.call('k', 'consume', 1, policy, startUs);
        expect(result.allowed).toBe(true);
        left.push(result.remaining);
      }
      expect(left).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
      expect(await store.call('k', 'consume', 7, policy, startUs)).toMatchObject({
        allowed: false,
        retryAfterMs: 1000,
      });
      expect(await store.call('k', 'refund', 3, policy, startUs)).toMatchObject({ remaining: 3, resetAfterMs: 1000 });
    }
  });

  it('MemoryBucketStore answers integers equal to the exact model', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(policyArb, { minLength: 2, maxLength: 2 }), stepsArb, async (policies, steps) => {
        await expectExact(clockedMemory(), 'k', policies, steps, 1_000_000_000);
      }),
      { numRuns: 300 },
    );
  });

  it.each(CLIENTS)('the Redis script answers integers equal to the exact model, over %s', async (name) => {
    const startUs = await clockAhead(client);
    const store = clockedRedis(clientNamed(name), `integers-${name}:`);
    await fc.assert(
      fc.asyncProperty(fc.array(policyArb, { minLength: 2, maxLength: 2 }), stepsArb, async (policies, steps) => {
        await expectExact(store, `run-${run++}`, policies, steps, startUs);
      }),
      { numRuns: 200 },
    );
  });
});
