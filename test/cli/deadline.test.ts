/**
 * `--deadline` holds whatever the target's process tree does. A stdio command whose own child keeps
 * the pipes open (a wrapper script running `sleep`, a server it started) once kept the CLI alive
 * until that child ended: the report came at the deadline, the exit a minute later.
 *
 * The one timed assertion the issue asks for: the CLI exits within the deadline plus the stated
 * grace (STDIO_CLOSE_GRACE_MS to stop the target's group, LINGER_MS at most before the process
 * ends), plus an allowance for starting Node and tsx on a busy two-core machine.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { STDIO_CLOSE_GRACE_MS } from '../../src/probe/target/stdio.js';
import type { RunReport } from '../../src/probe/model/report.js';
import { builtPath, CLI_MAIN, runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/spawn-stdio.js';
import { startHttpServer } from '../servers/http-server.js';

const DEADLINE_MS = 2000;
const LINGER_MS = 1000;
const STARTUP_ALLOWANCE_MS = 5000;
const dir = mkdtempSync(join(tmpdir(), 'stateguard-deadline-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Running, not a zombie: a sandbox's init may never reap an orphan that was killed. */
const running = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (!existsSync('/proc')) return true;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
};

describe.skipIf(process.platform === 'win32')('--deadline with a stdio process tree', () => {
  it.each([
    ['a wrapper that waits on a child holding the pipes', 'sleep 120 & echo $! > "$1"; wait'],
    ['a wrapper that exits and leaves the child holding the pipes', 'sleep 120 & echo $! > "$1"'],
    ['a wrapper that ignores SIGTERM', 'trap "" TERM; sleep 120 & echo $! > "$1"; wait'],
  ])(
    '%s: the CLI exits within the deadline plus the grace, the tree stopped',
    async (_, script) => {
      const pidFile = join(dir, `${Math.random().toString(36).slice(2)}.pid`);
      const started = performance.now();
      const run = await runCli(
        ['scan', '--stdio', `sh -c '${script}' sh ${pidFile}`, '--deadline', `${DEADLINE_MS}ms`],
        {},
        60_000,
      );
      const took = performance.now() - started;
      expect(run.code).toBe(4);
      expect(took).toBeLessThan(
        DEADLINE_MS + STDIO_CLOSE_GRACE_MS + LINGER_MS + STARTUP_ALLOWANCE_MS,
      );
      const grandchild = Number(readFileSync(pidFile, 'utf8').trim());
      expect(grandchild).toBeGreaterThan(0);
      expect(running(grandchild)).toBe(false);
      expect(run.stdout).toContain('errored · nothing decided (target: stdio:sh -c');
    },
  );
});

describe('--deadline with an HTTP server that never answers', () => {
  it('the CLI exits within the deadline plus the grace, with a report', async () => {
    const server = await startHttpServer('modern', () => 'hang');
    try {
      const started = performance.now();
      const run = await runCli(
        [
          'scan',
          '--http',
          server.url,
          '--timeout',
          '60s',
          '--deadline',
          `${DEADLINE_MS}ms`,
          '--format',
          'json',
        ],
        {},
        60_000,
      );
      const took = performance.now() - started;
      expect(run.code).toBe(4);
      expect(took).toBeLessThan(DEADLINE_MS + LINGER_MS + STARTUP_ALLOWANCE_MS);
      expect((JSON.parse(run.stdout) as RunReport).problem).toContain(
        `the scan deadline (${DEADLINE_MS} ms, set by --deadline) passed`,
      );
    } finally {
      await server.close();
    }
  });
});

describe.skipIf(process.platform === 'win32')('Ctrl-C during a stdio scan', () => {
  it("stops the target's whole tree too, though it runs in a group of its own", async () => {
    const pidFile = join(dir, 'interrupted.pid');
    const child = spawn(
      process.execPath,
      [
        CLI_MAIN,
        'scan',
        '--stdio',
        `sh -c 'sleep 120 & echo $! > "$1"; wait' sh ${pidFile}`,
        '--deadline',
        '60s',
      ],
      { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    // Interrupt once the target is up: its grandchild has written its pid.
    const limit = performance.now() + 20_000;
    while (!existsSync(pidFile) || readFileSync(pidFile, 'utf8').trim() === '') {
      if (performance.now() > limit) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => {
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.once('close', (c) => {
        clearTimeout(killer);
        resolve(c);
      });
    });
    expect(code).toBe(130);
    expect(stderr).toContain('stateguard scan: stopped by SIGINT');
    // The group is signalled as the scanner exits; a loaded machine may take a moment to end it.
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    const until = performance.now() + 3_000;
    while (running(pid) && performance.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(running(pid)).toBe(false);
  });
});

describe('a discovery cut short by its time cap', () => {
  // Every tools/call of `slow-calls` is answered after 1.5 s; with --deadline 3s the survey's cap
  // is a third of it, so its first call is still unanswered when the cap passes.
  it('is said in a full sentence that says "raise --deadline", on stderr and in the reports', async () => {
    const server = `${process.execPath} ${builtPath('test/servers/stdio-server.ts')} slow-calls`;
    const output = join(dir, 'cut-short.md');
    const run = await runCli(
      ['scan', '--stdio', server, '--deadline', '3s', '--format', 'markdown', '--output', output],
      {},
      60_000,
    );
    expect(run.code, run.stderr).toBe(4);
    const sentence =
      'Discovery was cut short by its time cap (a third of --deadline) before it reached 1 tool; raise --deadline to reach it.';
    expect(run.stderr).toContain(`stateguard scan: ${sentence}\n`);
    expect(readFileSync(output, 'utf8')).toContain(`\n${sentence}\n`);
    const json = await runCli(
      ['scan', '--stdio', server, '--deadline', '3s', '--format', 'json', '--quiet'],
      {},
      60_000,
    );
    const report = JSON.parse(json.stdout) as RunReport;
    // The probes that needed discovery say why, whole, with the flag that helps.
    const tamper = report.probes.find((p) => p.id === 'state/tamper');
    expect(tamper?.verdict).toBe('errored');
    expect(tamper?.reason).toContain(
      'discovery did not finish within the survey time cap (a third of --deadline)',
    );
    expect(tamper?.reason).toContain(
      'raise --deadline to let it finish), so its absence proves nothing',
    );
    expect(report.surface?.tried).toContain(
      "not reached: 1 tool(s), the survey's time cap passed first (raise --deadline to reach them)",
    );
  });
});
