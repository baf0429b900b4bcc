/**
 * What a flood of spent identities erases in `MemoryBucketStore`: a caller empties its bucket, then
 * fresh identities each empty theirs, as fast as the store is called (the clock moves 1 µs per
 * call, so nothing refills meanwhile: the attacker's best case), until the caller's next cost-100
 * operation is admitted. Prints how many spent identities beyond `maxKeys` that took, over many
 * stores (each draws its own secret), next to the prediction P(Poisson(16n / slots) ≥ 16).
 * Run: npx tsx test/bucket/measure-eviction-flood.ts
 */
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';

const MAX_KEYS = 2_000;
const SLOTS = 4_096; // the ledger: 2 × maxKeys, rounded up to a power of two
const TRIALS = 200;
const LIMIT = 20_000;
const policy = { capacity: 100, refillPerSecond: 0.5 };

/** P(Poisson(mean) ≥ k). */
function tail(mean: number, k: number): number {
  let term = Math.exp(-mean);
  let below = 0;
  for (let i = 0; i < k; i++) {
    below += term;
    term *= mean / (i + 1);
  }
  return 1 - below;
}

const erasedAt: number[] = [];
for (let trial = 0; trial < TRIALS; trial++) {
  let now = 0;
  const store = new MemoryBucketStore({ now: () => now, maxKeys: MAX_KEYS });
  await store.consume('caller', 100, policy);
  let n = -MAX_KEYS;
  for (let i = 0; i < MAX_KEYS + LIMIT; i++, n++) {
    now += 0.001;
    await store.consume(`spent-${i}`, 100, policy);
    if (n >= 0 && n % 50 === 0 && (await store.peek('caller', policy)).remaining >= 99) break;
  }
  erasedAt.push(n);
}
erasedAt.sort((a, b) => a - b);
const at = (q: number) => erasedAt[Math.min(TRIALS - 1, Math.floor(q * TRIALS))];
console.log(`maxKeys ${MAX_KEYS}, ledger ${SLOTS} slots, ${TRIALS} stores`);
console.log(`spent identities beyond maxKeys when the caller's debt was gone (checked every 50):`);
console.log(`  min ${erasedAt[0]}, 10% ${at(0.1)}, median ${at(0.5)}, 90% ${at(0.9)}, max ${erasedAt[TRIALS - 1]}`);
for (const n of [500, 1_000, 2_000, 3_000, 4_000, 6_000]) {
  const measured = erasedAt.filter((value) => value <= n).length / TRIALS;
  console.log(
    `  n = ${n}: erased in ${(measured * 100).toFixed(1)} % (predicted ${(tail((16 * n) / SLOTS, 16) * 100).toPrecision(2)} %)`,
  );
}
