import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores in CI: keep the number of concurrent test files small so that
    // network tests against the simulated web are not starved.
    maxWorkers: 2,
  },
});
