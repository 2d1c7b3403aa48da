/**
 * The suite's own vitest config, run on `leaky.fixture.ts` alone: how `leftovers.test.ts` shows
 * that a test file which fails and times out leaves no process behind.
 */
import { defineConfig } from 'vitest/config';
import suite from '../../vitest.config.js';

export default defineConfig({
  ...suite,
  test: { ...suite.test, include: ['test/reaper/leaky.fixture.ts'], reporters: ['default'] },
});
