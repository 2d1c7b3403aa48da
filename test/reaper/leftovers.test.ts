/**
 * A test that fails or times out leaves no process behind: the suite's config runs a file whose
 * tests leave an HTTP fixture server listening and a command's own child sleeping (then throw), and
 * a detached process group sleeping (then time out), and once that run ends, none of them is left.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCommand } from '../helpers/cli.js';
import { groupRunning, processRunning } from '../helpers/reaper.js';
import { REPO_ROOT } from '../helpers/spawn-stdio.js';

const dir = mkdtempSync(join(tmpdir(), 'stateguard-reaper-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Whether process `pid` (or, with `group`, any process of group `pid`) still runs. */
const running = (pid: number, group: boolean): boolean =>
  group ? groupRunning(pid) : processRunning(pid);

/** Whether `pid` (or its group) stops running within `ms` (a SIGKILL takes a moment). */
async function stops(pid: number, group: boolean, ms = 5_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (running(pid, group)) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

describe('processes left by a failed test file', () => {
  it('are gone once the file ends: a thrown test its server and grandchild, a timed-out one its whole group', async () => {
    const pids = join(dir, 'pids');
    const left: { kind: string; pid: number }[] = [];
    try {
      const run = await runCommand(
        process.execPath,
        [
          join(REPO_ROOT, 'node_modules/vitest/vitest.mjs'),
          'run',
          '--config',
          'test/reaper/leaky.config.ts',
        ],
        { LEAKY_PIDS: pids, NO_COLOR: '1' },
        60_000,
      );
      left.push(
        ...readFileSync(pids, 'utf8')
          .trim()
          .split('\n')
          .map((line) => {
            const [kind = '', pid = '0'] = line.split(' ');
            return { kind, pid: Number(pid) };
          }),
      );
      // Every test failed as written: two threw, one timed out.
      const output = run.stdout + run.stderr;
      expect(run.code, output).toBe(1);
      expect(output).toContain('the test body failed, its server still listening');
      expect(output).toContain('the test body failed, a grandchild still sleeping');
      expect(output).toContain('Test timed out in 1000ms');
      expect(left.map((p) => p.kind).sort()).toEqual(['grandchild', 'group', 'server']);
      expect(left.every((p) => p.pid > 0)).toBe(true);
      expect(output).toContain('[reaper] stopped 3 child process(es) left running');
      for (const { kind, pid } of left) expect(await stops(pid, kind === 'group'), kind).toBe(true);
    } finally {
      // Should this proof fail, it must not leave them either.
      for (const { kind, pid } of left)
        if (running(pid, kind === 'group')) process.kill(kind === 'group' ? -pid : pid, 'SIGKILL');
    }
  }, 90_000);
});
