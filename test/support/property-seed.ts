/**
 * The seed of every fast-check property in a run (a vitest setup file). `npm test` uses one fixed
 * seed, so that CI decides on the same generated cases each time; `FUZZ=1` draws a new one for each
 * test file (or `FUZZ_SEED` sets it), so that `FUZZ=1 npm test` searches cases no run has tried.
 * A failure prints its seed and shrunk counterexample either way; a case found that way becomes a
 * fixed test of its own. A property given its own `seed` keeps it.
 */
import fc from 'fast-check';

const FIXED_SEED = 20261206;

function runSeed(): number {
  if (process.env.FUZZ_SEED !== undefined) return Number(process.env.FUZZ_SEED);
  if (process.env.FUZZ === '1') return Math.floor(Math.random() * 2 ** 31);
  return FIXED_SEED;
}

fc.configureGlobal({ seed: runSeed() });
