/**
 * Last week's scanner beside this one, in the same run: commit 724f1f3 (before the scan shared its
 * setup between probes, issue 36) built into `.scratch/baseline-724f1f3/` by `npm run
 * bench:baseline`, and both scanners run the same way, as a CLI child process, so their walls carry
 * the same start-up cost and the same load. Without that build the suite prints the figures
 * recorded at that commit instead, and says so.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import type { Target } from '../../src/probe/model/target.js';

/** The commit last week's figures come from. */
export const BASELINE_COMMIT = '724f1f3';

/** The checkout: the nearest folder above this module with a tsconfig.json (dist-harness has a package.json of its own). */
function checkoutRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8 && !existsSync(join(dir, 'tsconfig.json')); i++) dir = dirname(dir);
  return dir;
}

/** Where `npm run bench:baseline` builds it (gitignored, beside the suite's other scratch). */
export const BASELINE_DIR = join(checkoutRoot(), '.scratch', `baseline-${BASELINE_COMMIT}`);

/** Longest one CLI scan may take before it is killed and the cell fails. */
const CLI_SCAN_TIMEOUT_MS = 180_000;

/** Last week's CLI, when it has been built. */
export function baselineCli(): string | undefined {
  const cli = join(BASELINE_DIR, 'dist', 'cli', 'main.js');
  return existsSync(cli) ? cli : undefined;
}

/** This scanner's CLI, as the harness build compiles it. */
export function currentCli(): string {
  return fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
}

/** The CLI arguments naming `target`; a stdio command is quoted as one shell-like line. */
function targetArgs(target: Target): string[] {
  if (target.kind === 'http') return ['--http', target.url];
  return ['--stdio', quote([target.command, ...(target.args ?? [])])];
}

/**
 * One whole scan (every probe, `--include-destructive`, JSON report to a scratch file) of `target`
 * by the CLI at `cli`; the wall from spawn to exit. A scan that ran writes its report whatever it
 * found (exit 0, 1, 3, 4 or 5); a usage error (2), a timeout, or no report is no scan.
 */
export async function cliScanWall(cli: string, target: Target): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'sg-cli-scan-'));
  const args = [
    cli,
    'scan',
    ...targetArgs(target),
    '--include-destructive',
    '--format',
    'json',
    '--output',
    join(dir, 'report.json'),
  ];
  const started = performance.now();
  try {
    await new Promise<void>((done, fail) => {
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (s: string) => {
        if (stderr.length < 4096) stderr += s;
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), CLI_SCAN_TIMEOUT_MS);
      child.on('error', fail);
      child.on('exit', (c) => {
        clearTimeout(timer);
        if (c === 2 || c === null || !existsSync(join(dir, 'report.json')))
          fail(new Error(`${cli} exited ${c}: ${stderr}`));
        else done();
      });
    });
    return performance.now() - started;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
