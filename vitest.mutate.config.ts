import { defineConfig } from 'vitest/config';

// The tests a mutation run measures one module against (set by scripts/mutate.ts).
const tests = JSON.parse(process.env['STATEGUARD_MUTATE_TESTS'] ?? '[]') as string[];

export default defineConfig({
  test: {
    include: tests,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
