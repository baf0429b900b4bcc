import { defineConfig } from 'vitest/config';

/**
 * The fault-injection suite (`npm run test:faults`): kills, pauses and fails over real Redis
 * processes under HTTP load through two app-server processes. Files run one at a time so that
 * their latency bounds measure the limiter, not the other suites sharing the CPU.
 */
export default defineConfig({
  // One graphql-js instance, as in vitest.config.ts (Apollo Server loads graphql as CommonJS).
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/faults/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
