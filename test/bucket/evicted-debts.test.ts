/** EvictedDebts: what MemoryBucketStore remembers of evicted buckets, in sets of 16 slots. */
import { describe, expect, it } from 'vitest';
import { EvictedDebts, WAYS } from '../../src/bucket/evicted-debts.js';

const SECOND = 4_000_000; // ticks
const noRefill = (missing: number) => ({ rate: 0, value: missing });

describe('EvictedDebts', () => {
  it('rounds its slots up to a power of two, at least one set', () => {
    expect(new EvictedDebts(1).slots).toBe(WAYS);
    expect(new EvictedDebts(4000).slots).toBe(4096);
    expect(new EvictedDebts(4096).slots).toBe(4096);
  });

  it('keeps the largest debts of a full set: the least one is forgotten, the newcomer included', () => {
    const debts = new EvictedDebts(WAYS); // one set: every key lands in it
    for (let i = 1; i <= WAYS; i++) debts.put(`k${i}`, noRefill(10 * i), 0);
    expect(debts.size).toBe(WAYS);
    debts.put('small', noRefill(5), 0); // owes less than every debt held: forgiven
    expect(debts.get('small', 0)).toBeUndefined();
    debts.put('big', noRefill(1000), 0); // takes the place of k1 (10)
    expect(debts.get('big', 0)).toEqual(noRefill(1000));
    expect(debts.get('k1', 0)).toBeUndefined();
    for (let i = 2; i <= WAYS; i++) expect(debts.get(`k${i}`, 0)).toEqual(noRefill(10 * i));
    expect(debts.size).toBe(WAYS);
  });

  it('compares debts at the moment: a refilled one owes nothing and makes room first', () => {
    const debts = new EvictedDebts(WAYS);
    debts.put('refilling', { rate: 10, value: 2 * SECOND }, 0); // 20 tokens now, full at 2 s
    for (let i = 1; i < WAYS; i++) debts.put(`k${i}`, noRefill(15), 0);
    debts.put('late', noRefill(16), 0); // at 0 s, 'refilling' owes 20: one of the 15s goes
    expect(debts.get('refilling', 0)).toEqual({ rate: 10, value: 2 * SECOND });
    debts.put('later', noRefill(1), 2 * SECOND); // at 2 s 'refilling' owes nothing
    expect(debts.get('later', 2 * SECOND)).toEqual(noRefill(1));
    expect(debts.get('refilling', 2 * SECOND)).toBeUndefined();
  });

  it('forgets a debt when read after it has refilled, or when deleted, and overwrites a key in place', () => {
    const debts = new EvictedDebts(64);
    debts.put('a', { rate: 1, value: SECOND }, 0);
    debts.put('b', noRefill(3), 0);
    debts.put('b', noRefill(4), 0);
    expect(debts.size).toBe(2);
    expect(debts.get('b', 0)).toEqual(noRefill(4));
    expect(debts.get('a', SECOND / 2)).toEqual({ rate: 1, value: SECOND });
    expect(debts.get('a', SECOND)).toBeUndefined();
    debts.delete('b');
    expect(debts.get('b', 0)).toBeUndefined();
    expect(debts.size).toBe(0);
    debts.put('full', { rate: 1, value: SECOND }, SECOND); // owes nothing: not kept
    expect(debts.size).toBe(0);
  });

  it('spreads keys over its sets: 4,096 slots keep nearly all of 2,048 debts', () => {
    // 8 keys per set of 16 on average: a set that draws 17 or more (about one in 250) drops its
    // least debts, so a handful of the smallest may go.
    const debts = new EvictedDebts(4096);
    for (let i = 0; i < 2048; i++) debts.put(`caller-${i}`, noRefill(1 + (i % 7)), 0);
    let kept = 0;
    for (let i = 0; i < 2048; i++) if (debts.get(`caller-${i}`, 0) !== undefined) kept++;
    expect(kept).toBe(debts.size);
    expect(kept).toBeGreaterThan(2048 - 30);
  });
});
