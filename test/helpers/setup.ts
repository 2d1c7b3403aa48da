/**
 * Vitest setup, run before every test file: whatever child process the file left running is stopped
 * once the file ends, however it ended (see reaper.ts), and named on stderr, since a test that
 * leaves one behind has a cleanup to fix.
 */
import { afterAll } from 'vitest';
import { stopChildren } from './reaper.js';

afterAll(async () => {
  const stopped = await stopChildren();
  if (stopped.length > 0)
    console.warn(
      `[reaper] stopped ${stopped.length} child process(es) left running: ${stopped.join(' ')}`,
    );
});
