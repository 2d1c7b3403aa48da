/**
 * Nothing of a stdio target outlives the scan. Two ways a helper used to escape:
 *
 * - started with its stdio closed (`cmd >/dev/null 2>&1 &`): it holds no pipe, so once the target's
 *   pipes closed the group was never signalled;
 * - started through `setsid` (or a double fork into a session of its own): it leaves the process
 *   group altogether, and only a cgroup still holds it.
 *
 * Each helper writes its pid to a file; after the CLI exits the pid must be gone (bounded polling).
 * The closed-stdio form runs with both holds (the cgroup, and `STATEGUARD_HOLD=group`: the group
 * alone must catch it); the setsid forms need the cgroup, and skip, naming why, where this machine
 * cannot make one.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { holdKind } from '../../src/probe/target/hold.js';
import { builtPath, runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/spawn-stdio.js';

const dir = mkdtempSync(join(tmpdir(), 'stateguard-outlive-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Running, not a zombie: a sandbox's init may never reap an orphan that was killed. */
const running = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (!existsSync(`/proc/${pid}/stat`)) return true;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
};

/** Polls (bounded) until `pid` is gone; true if it went. */
async function goneWithin(pid: number, ms: number): Promise<boolean> {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    if (!running(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !running(pid);
}

const readPid = async (file: string): Promise<number> => {
  const end = performance.now() + 5000;
  while (performance.now() < end) {
    if (existsSync(file)) {
      const pid = Number(readFileSync(file, 'utf8').trim());
      if (pid > 0) return pid;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return 0;
};

// A real MCP server after the helper started: the scan runs to its end, then closes the target.
const SERVER = `exec "${process.execPath}" ${builtPath('test/servers/stdio-server.ts')} modern`;
const HELPER = {
  'closed stdio': `sleep 120 </dev/null >/dev/null 2>&1 & echo $! > "$1"; ${SERVER}`,
  'closed stdio, the target gone first': `sleep 120 </dev/null >/dev/null 2>&1 & echo $! > "$1"`,
  setsid: `setsid sh -c 'echo $$ > "$0"; exec sleep 120' "$1" </dev/null >/dev/null 2>&1 & ${SERVER}`,
  'double fork into a new session': `( ( setsid sh -c 'echo $$ > "$0"; exec sleep 120' "$1" </dev/null >/dev/null 2>&1 & ) & ); ${SERVER}`,
} as const;

async function scanWith(script: string, env: NodeJS.ProcessEnv): Promise<number> {
  const pidFile = join(dir, `${Math.random().toString(36).slice(2)}.pid`);
  const run = await runCli(
    [
      'scan',
      '--stdio',
      `sh -c '${script.replace(/'/g, `'"'"'`)}' sh ${pidFile}`,
      '--deadline',
      '20s',
    ],
    env,
    60_000,
    REPO_ROOT,
  );
  expect(run.code, run.stderr).not.toBeNull();
  const pid = await readPid(pidFile);
  expect(pid).toBeGreaterThan(0);
  return pid;
}

const CGROUP = holdKind() === 'cgroup';

describe.skipIf(process.platform === 'win32')(
  'no process of a stdio target outlives the scan',
  () => {
    it.each([['closed stdio'], ['closed stdio, the target gone first']] as const)(
      'a helper with %s is stopped by the group alone',
      async (form) => {
        const pid = await scanWith(HELPER[form], { STATEGUARD_HOLD: 'group' });
        expect(await goneWithin(pid, 3000)).toBe(true);
      },
    );

    describe.skipIf(!CGROUP)(
      'a helper that leaves the group (needs a writable cgroup v2 hierarchy: skipped where holdKind() is not "cgroup")',
      () => {
        it.each([['closed stdio'], ['setsid'], ['double fork into a new session']] as const)(
          'a helper started through %s is stopped',
          async (form) => {
            const pid = await scanWith(HELPER[form], {});
            expect(await goneWithin(pid, 3000)).toBe(true);
          },
        );

        it('the group alone lets a setsid helper go, as the docs say (the cgroup is what holds it)', async () => {
          const pid = await scanWith(HELPER.setsid, { STATEGUARD_HOLD: 'group' });
          try {
            expect(running(pid)).toBe(true);
          } finally {
            process.kill(pid, 'SIGKILL');
          }
        });
      },
    );
  },
);
