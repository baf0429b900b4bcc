import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// The test files that exercise the files `npm run test:mutation` mutates (stryker.config.json), and
// nothing else: every mutant runs the tests that cover it, so a slow unrelated file costs minutes.
// The base config is spread, not merged: mergeConfig would append to `include` instead of replacing it.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    // One project, Apollo Server's: the mutated files are the same code on every server.
    projects: undefined,
    include: [
      'test/cost/**/*.test.ts',
      'test/bucket/model.test.ts',
      'test/bucket/policy-model.test.ts',
      'test/bucket/memory-store.test.ts',
      'test/bucket/policy-change.test.ts',
      'test/bucket/integer-answers.test.ts',
      'test/bucket/bucket-math.test.ts',
      'test/plugin/errors.test.ts',
      'test/plugin/http-contract.test.ts',
    ],
    // Instrumented code runs several times slower: the CPU-time budgets in the hostile-input tests
    // get this factor of headroom (test/cost/hostile.test.ts).
    env: { ...base.test?.env, CPU_BUDGET_HEADROOM: '10' },
  },
});
