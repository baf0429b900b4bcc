import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The suites that hold on every server: run again on GraphQL Yoga (the Envelop plugin) by the
 * `yoga` project. Left out of it: tests of what only Apollo Server has (its cache-control policy:
 * cacheable-budget-leaks) and tests that start no HTTP server of the budget's (subscriptions,
 * `chargeOperation`, the heap probe of Apollo Server). test/client/ runs once, in the `apollo`
 * project: its files start the servers they need (the bookstore on Apollo Server and on Yoga).
 */
const onEveryServer = [
  'test/security/**/*.test.ts',
  'test/property/**/*.test.ts',
  ...[
    'http-contract',
    'cost-model',
    'decision-hook',
    'introspection',
    'metrics',
    'multi-bucket',
    'partitioned-breakers',
    'per-request-control',
    'rate-limit-field',
    'store-errors',
  ].map((name) => `test/plugin/${name}.test.ts`),
];
const apolloOnly = [
  'test/security/cacheable-budget-leaks.test.ts',
  'test/security/failing-subscribe-refund.test.ts',
  'test/security/hostile-documents-grow-heap.test.ts',
  'test/security/inline-analyzer-options-leak.test.ts',
  'test/security/late-work-charged-to-next-caller.test.ts',
  'test/security/shared-context-value.test.ts',
  'test/security/subscription-outlives-budget.test.ts',
];

export default defineConfig({
  // One graphql-js instance: Node loads `graphql` as CommonJS for @apollo/server, so our sources must
  // get the same file (not `index.mjs`), or Apollo rejects our schema objects as "from another realm".
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    // The fault-injection suite runs on its own, one file at a time: `npm run test:faults`.
    exclude: [...configDefaults.exclude, 'test/faults/**'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/property-seed.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'apollo', include: ['test/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'yoga',
          include: onEveryServer,
          exclude: [...configDefaults.exclude, ...apolloOnly],
          env: { BUDGET_SERVER: 'yoga' },
        },
      },
    ],
  },
});
