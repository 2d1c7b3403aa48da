import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Suites spawn real child processes and HTTP servers and mostly wait on them: on CI's two cores,
    // three workers keep both busy (whole suite, idle machine: 175 s with 2, 148 s with 3, 141 s
    // with 4, where a loaded machine starts to crowd the waits).
    maxWorkers: 3,
    // A worker runs its files one after another in one module graph instead of a fresh one per file:
    // loading vitest and the source again for each of ~170 files cost about 0.35 CPU-s a file.
    // Measured side by side on two loaded cores (CPU-s, user+sys): test/cli 104 -> 91, test/probe
    // 142 -> 116; the other folders 226 -> 158 (a noisier pair); 53 small files 49.6 -> 30.1. Safe
    // here because no test mocks a module, stubs a global or fakes timers, the one test that sets an
    // environment variable removes it, and the reaper (setup.ts) keeps its children per worker.
    isolate: false,
    // No child process outlives the file that started it, whether its tests passed, failed or timed out.
    setupFiles: ['./test/helpers/setup.ts'],
    // The source transpiled to JavaScript once per run: the CLI and fixtures that tests start as
    // child processes run from there, at a tenth of the CPU time tsx takes to load them.
    globalSetup: ['./test/helpers/built.ts'],
    // One line at the end when anything was skipped, and why (a missing redis-server, mostly).
    reporters: ['default', './test/helpers/skip-summary.ts'],
  },
});
