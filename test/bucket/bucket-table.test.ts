/** BucketTable against a plain Map scanned in full: the same buckets, the same eviction order. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BucketState } from '../../src/bucket/bucket-math.js';
import { BucketTable } from '../../src/bucket/bucket-table.js';

type Command =
  | { kind: 'set'; key: number; state: BucketState }
  | { kind: 'delete'; key: number }
  | { kind: 'evict' }
  | { kind: 'dropFull'; at: number };

const stateArb: fc.Arbitrary<BucketState> = fc.oneof(
  fc.record({ rate: fc.constantFrom(1, 7, 0.5), value: fc.integer({ min: 1, max: 60 }) }),
  fc.record({ rate: fc.constant(0), value: fc.integer({ min: 1, max: 20 }) }),
);

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('set' as const), key: fc.nat(12), state: stateArb }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), key: fc.nat(12) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('evict' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('dropFull' as const), at: fc.integer({ min: 0, max: 60 }) }) },
);

/** Rank of a state: lower is closer to full (refilling first, by instant; then by missing tokens). */
const rank = (state: BucketState): [number, number] => [state.rate > 0 ? 0 : 1, state.value];
const before = (a: BucketState, b: BucketState): boolean => {
  const [ra, va] = rank(a);
  const [rb, vb] = rank(b);
  return ra < rb || (ra === rb && va < vb);
};

describe('BucketTable', () => {
  it('evicts a bucket no other is closer to full than, and drops exactly the full ones', () => {
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 300 }), (commands) => {
        const table = new BucketTable();
        const reference = new Map<string, BucketState>();
        for (const command of commands) {
          if (command.kind === 'set') {
            const state = { ...command.state };
            table.set(`k${command.key}`, state);
            reference.set(`k${command.key}`, state);
          } else if (command.kind === 'delete') {
            table.delete(`k${command.key}`);
            reference.delete(`k${command.key}`);
          } else if (command.kind === 'evict') {
            const key = table.evict();
            if (reference.size === 0) {
              expect(key).toBeUndefined();
              continue;
            }
            const evicted = reference.get(key as string) as BucketState;
            expect(evicted).toBeDefined();
            for (const state of reference.values()) expect(before(state, evicted)).toBe(false);
            reference.delete(key as string);
          } else {
            const full = [...reference].filter(([, s]) => s.rate > 0 && s.value <= command.at).map(([k]) => k);
            expect(table.dropFull(command.at)).toBe(full.length);
            for (const key of full) reference.delete(key);
          }
          expect(table.size).toBe(reference.size);
          expect(table.entries).toBeLessThanOrEqual(2 * reference.size + 32);
          for (const [key, state] of reference) expect(table.get(key)).toBe(state);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('stays ordered and small through many rewrites of few keys (stale entries are compacted away)', () => {
    const table = new BucketTable();
    for (let i = 0; i < 100_000; i++) table.set(`k${i % 10}`, { rate: 1, value: 1_000_000 - i });
    expect(table.size).toBe(10);
    expect(table.entries).toBeLessThanOrEqual(2 * 10 + 32);
    const order: string[] = [];
    for (let key = table.evict(); key !== undefined; key = table.evict()) order.push(key);
    // The last writes (largest i, smallest instant) are closest to full.
    expect(order).toEqual(['k9', 'k8', 'k7', 'k6', 'k5', 'k4', 'k3', 'k2', 'k1', 'k0']);
  });
});
