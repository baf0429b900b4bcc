/** BucketTable against a plain Map scanned in full: the same buckets, the same eviction order. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BucketState } from '../../src/bucket/bucket-math.js';
import { BucketTable } from '../../src/bucket/bucket-table.js';

type Command =
  | { kind: 'set'; key: number; state: BucketState }
  | { kind: 'delete'; key: number }
  | { kind: 'evict'; at: number }
  | { kind: 'dropFull'; at: number };

/** Ticks per second (0.25 µs ticks), as the states count time. */
const TICKS_PER_SECOND = 4_000_000;

const stateArb: fc.Arbitrary<BucketState> = fc.oneof(
  fc.record({
    rate: fc.constantFrom(1, 7, 0.5, 3_000_000),
    value: fc.integer({ min: 1, max: 60 }).map((s) => s * 1_000_000),
  }),
  fc.record({ rate: fc.constant(0), value: fc.integer({ min: 1, max: 20 }) }),
);
const instantArb = fc.integer({ min: 0, max: 60 }).map((s) => s * 1_000_000);

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('set' as const), key: fc.nat(12), state: stateArb }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), key: fc.nat(12) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('evict' as const), at: instantArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('dropFull' as const), at: instantArb }) },
);

/** What a bucket owes at `at` (ticks): the tokens it misses then. */
function owed(state: BucketState, at: number): number {
  if (state.rate === 0) return state.value;
  return Math.max(0, state.value - at) * (state.rate / TICKS_PER_SECOND);
}

describe('BucketTable', () => {
  it('evicts a bucket that owes least at that instant, and drops exactly the full ones', () => {
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
            const evicted = table.evict(command.at);
            if (reference.size === 0) {
              expect(evicted).toBeUndefined();
              continue;
            }
            const key = evicted?.key as string;
            expect(reference.get(key)).toBe(evicted?.state);
            const least = Math.min(...[...reference.values()].map((state) => owed(state, command.at)));
            expect(owed(reference.get(key) as BucketState, command.at)).toBeCloseTo(least, 9);
            reference.delete(key);
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
    for (let entry = table.evict(0); entry !== undefined; entry = table.evict(0)) order.push(entry.key);
    // The last writes (largest i, smallest instant) owe least.
    expect(order).toEqual(['k9', 'k8', 'k7', 'k6', 'k5', 'k4', 'k3', 'k2', 'k1', 'k0']);
  });

  it('compares buckets of different rates by what they owe at the eviction, not by when they are full', () => {
    const table = new BucketTable();
    const second = TICKS_PER_SECOND;
    table.set('fast', { rate: 1000, value: 10 * second }); // full at 10 s, 1,000 tokens/s
    table.set('slow', { rate: 1 / 3600, value: 3600 * 5 * second }); // 1 token an hour, full in 5 h
    table.set('never', { rate: 0, value: 3 }); // 3 tokens, never refilled
    // At 0 s: fast owes 10,000 tokens, slow 5, never 3.
    expect(table.evict(0)?.key).toBe('never');
    table.set('never', { rate: 0, value: 3 });
    // At 9.999 s: fast owes 1 token.
    expect(table.evict(9.999 * second)?.key).toBe('fast');
    expect(table.evict(9.999 * second)?.key).toBe('never');
    expect(table.evict(9.999 * second)?.key).toBe('slow');
  });
});
