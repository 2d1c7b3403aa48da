// StrykerJS configuration, driven by `npm run mutate` (scripts/mutate.ts), which sets the module to
// mutate and its tests. Not part of `npm test` or CI.
const name = process.env.STATEGUARD_MUTATE;
if (name === undefined) {
  throw new Error('run Stryker through `npm run mutate [module…]`, which says what to mutate');
}
const mutate = JSON.parse(process.env.STATEGUARD_MUTATE_FILES ?? '[]');

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  // The test files come from vitest.mutate.config.ts (STATEGUARD_MUTATE_TESTS), not from `related`.
  vitest: { configFile: 'vitest.mutate.config.ts', related: false },
  coverageAnalysis: 'perTest',
  // Set per module by scripts/mutate.ts (see MODULES there).
  ignoreStatic: process.env.STATEGUARD_MUTATE_IGNORE_STATIC === '1',
  mutate,
  // Two cores: one test process each.
  concurrency: 2,
  timeoutMS: 10_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${name}/index.html` },
  jsonReporter: { fileName: `reports/mutation/${name}/mutation.json` },
  // Later runs re-test only the mutants whose code or tests changed.
  incremental: true,
  incrementalFile: `reports/mutation/${name}/incremental.json`,
  tempDirName: '.stryker-tmp',
  ignorePatterns: [
    'dist',
    'dist-harness',
    'coverage',
    'reports',
    '.stryker-tmp',
    '.stateguard-tmp',
  ],
  cleanTempDir: 'always',
};
