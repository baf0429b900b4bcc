import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  // One graphql-js instance: Node loads `graphql` as CommonJS for @apollo/server, so our sources must
  // get the same file (not `index.mjs`), or Apollo rejects our schema objects as "from another realm".
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/**/*.test.ts'],
    // The fault-injection suite runs on its own, one file at a time: `npm run test:faults`.
    exclude: [...configDefaults.exclude, 'test/faults/**'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
