/**
 * Invariant: a `MemoryBucketStore` that evicts answers exactly as one that never does, as long as
 * its table and its ledger of evicted debts can hold every bucket that owes something: eviction
 * moves a debt, it never changes one. Here `maxKeys` 4 and a ledger of one set of 16 slots, with 20
 * identities, so nothing is ever forgotten, under consumes, refunds, takes, peeks and charges of
 * several buckets, on mixed policies and a clock that moves.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import type { BucketPolicy } from '../../src/bucket/types.js';

const policies: BucketPolicy[] = [
  { capacity: 10, refillPerSecond: 1 },
  { capacity: 100, refillPerSecond: 50 },
  { capacity: 5, refillPerSecond: 0 },
];

type Step =
  | { kind: 'consume' | 'refund' | 'take' | 'peek'; key: number; amount: number; policy: number; advanceMs: number }
  | { kind: 'consumeAll'; keys: number[]; amount: number; policy: number; advanceMs: number };

const keyArb = fc.nat(19);
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constantFrom('consume' as const, 'refund' as const, 'take' as const, 'peek' as const),
    key: keyArb,
    amount: fc.integer({ min: 0, max: 12 }),
    policy: fc.nat(2),
    advanceMs: fc.constantFrom(0, 0, 1, 30, 400),
  }),
  fc.record({
    kind: fc.constant('consumeAll' as const),
    keys: fc.uniqueArray(keyArb, { minLength: 1, maxLength: 3 }),
    amount: fc.integer({ min: 0, max: 6 }),
    policy: fc.nat(2),
    advanceMs: fc.constantFrom(0, 1, 30),
  }),
);

describe('MemoryBucketStore eviction', () => {
  it('forgets what the ledger held for a bucket that is back in the table', async () => {
    const store = new MemoryBucketStore({ now: () => 0, maxKeys: 2 });
    const policy = { capacity: 10, refillPerSecond: 0 };
    await store.consume('a', 1, policy);
    await store.consume('b', 2, policy);
    await store.consume('c', 3, policy); // a (owing 1) goes to the ledger
    await store.consume('a', 1, policy); // a is back in the table, owing 2; b goes to the ledger
    await store.refund('a', 2, policy); // a is full: not kept anywhere
    expect((await store.peek('a', policy)).remaining).toBe(10);
    expect((await store.peek('b', policy)).remaining).toBe(8);
  });

  it('answers as a store that never evicts, while table and ledger hold every debt', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { maxLength: 120 }), async (steps) => {
        let now = 1_000;
        const evicting = new MemoryBucketStore({ now: () => now, maxKeys: 4 });
        const unbounded = new MemoryBucketStore({ now: () => now, maxKeys: 1_000 });
        for (const step of steps) {
          now += step.advanceMs;
          const policy = policies[step.policy] as BucketPolicy;
          if (step.kind === 'consumeAll') {
            const limits = step.keys.map((key) => ({ key: `k${key}`, policy }));
            expect(await evicting.consumeAll(limits, step.amount)).toEqual(
              await unbounded.consumeAll(limits, step.amount),
            );
          } else if (step.kind === 'peek') {
            expect(await evicting.peek(`k${step.key}`, policy)).toEqual(await unbounded.peek(`k${step.key}`, policy));
          } else if (step.kind === 'take') {
            const limits = [{ key: `k${step.key}`, policy }];
            expect(await evicting.takeAll(limits, step.amount)).toEqual(await unbounded.takeAll(limits, step.amount));
          } else {
            expect(await evicting[step.kind](`k${step.key}`, step.amount, policy)).toEqual(
              await unbounded[step.kind](`k${step.key}`, step.amount, policy),
            );
          }
          expect(evicting.size).toBeLessThanOrEqual(4);
        }
      }),
      { numRuns: 1000, seed: 42 },
    );
  });
});
