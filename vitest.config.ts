import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Suites spawn real child processes and HTTP servers; two cores are all CI has.
    maxWorkers: 2,
    // One line at the end when anything was skipped, and why (a missing redis-server, mostly).
    reporters: ['default', './test/helpers/skip-summary.ts'],
  },
});
