/**
 * Vitest setup, run before every test file: the harness's twins start from this run's build, and whatever child process the file left running is stopped
 * once the file ends, however it ended (see reaper.ts), and named on stderr, since a test that
 * leaves one behind has a cleanup to fix. With `STATEGUARD_TEST_CPU_LOG=<file>`, each file's CPU
 * seconds, its child processes included, are appended there (see cpu.ts).
 */
import { relative } from 'node:path';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { SUITE_BUILD_ENV } from '../../harness/node-entry.js';
import { cpuSeconds, logCpu } from './cpu.js';
import { stopChildren } from './reaper.js';

// The harness starts its twins from this run's build, as plain JavaScript (see node-entry.ts).
process.env[SUITE_BUILD_ENV] = inject('builtRoot');

let started: number | undefined;
let file = '';
beforeAll(() => {
  started = cpuSeconds();
  file = relative(process.cwd(), expect.getState().testPath ?? '');
});

afterAll(async () => {
  const stopped = await stopChildren();
  if (stopped.length > 0)
    console.warn(
      `[reaper] stopped ${stopped.length} child process(es) left running: ${stopped.join(' ')}`,
    );
  const ended = cpuSeconds();
  if (started !== undefined && ended !== undefined) logCpu(file, ended - started);
});
