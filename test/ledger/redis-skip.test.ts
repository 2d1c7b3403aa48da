/**
 * `npm test` on a machine without Redis: the Redis suites are skipped, each saying which suite and
 * why, and everything else still runs. Proven by running vitest itself on the Redis-backed test files
 * with a `PATH` that holds no `redis-server`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const FILES = ['test/ledger/ledger.test.ts', 'test/bind/store.test.ts'];
const REASON = 'redis-server is not on PATH (install Debian\'s "redis-server"; .ci/run does)';
const emptyBin = mkdtempSync(join(tmpdir(), 'stateguard-no-redis-'));

afterAll(() => rmSync(emptyBin, { recursive: true, force: true }));

/** Run vitest on `FILES` with no `redis-server` reachable; bounded. */
function runWithoutRedis(): Promise<{ code: number | null; output: string }> {
  // The worker's own VITEST_* variables would make the inner run think it is a worker.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('VITEST')),
  );
  const child = spawn(process.execPath, [VITEST, 'run', ...FILES], {
    cwd: ROOT,
    env: { ...env, PATH: emptyBin, NO_COLOR: '1', FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('npm test without redis-server', () => {
  it('skips the Redis suites, says which and why, and passes everything else', async () => {
    const { code, output } = await runWithoutRedis();
    expect(code, output.slice(-2000)).toBe(0);
    expect(output).toContain(`[skipped] createRedisLedger: ${REASON}`);
    expect(output).toContain(`[skipped] createHandleStore on the Redis backend: ${REASON}`);
    // The in-memory suites of the same files ran and passed; only the Redis ones were skipped.
    expect(output).toMatch(/Tests\s+\d+ passed \| \d+ skipped/);
    expect(output).not.toMatch(/\bfailed\b/);
  }, 90_000);
});
