/**
 * Suite "complexity": what a hostile server's size costs a scan. Each complexity server
 * (`harness/twins/complexity`: nested arrays in a readable JSON state, very many tokens, long
 * echoes, many minted-looking values) is grown from 1 KiB to 1 MiB and scanned whole over stdio, one scan
 * per process (`complexity-scan.ts`), so that one size's heap never weighs on the next. For each
 * run: the scan's CPU time, the rendering's (every format, full evidence), the peak resident memory
 * and whether the scan ended inside its deadline plus the documented grace.
 *
 * The fitted growth is the least-squares slope of log(cost above the 1 KiB run) against log(bytes),
 * over the sizes from 16 KiB up: the fixed cost of a scan (a process, a survey, nine probes) hides
 * the growth at small sizes, so the slope of the raw figures would flatter any algorithm. 1 is
 * linear; the target is at most 1.2 (linear, with the noise of a shared machine).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { COMPLEXITY_SHAPES, type ComplexityShape } from '../../twins/complexity/index.js';
import { STDIO_CLOSE_GRACE_MS } from '../../../src/probe/target/stdio.js';
import type { ComplexityRun } from '../complexity-scan.js';
import type { BenchSuite, Budget, Check } from '../harness.js';

const KiB = 1024;
/** The sizes every shape is grown to. */
const SIZES = [1, 4, 16, 64, 256, 1024].map((k) => k * KiB);
/** The smallest size the slope is fitted from (below it, the fixed cost dominates). */
const FIT_FROM = 16 * KiB;
/** The scans' deadline: the CLI's default. */
const DEADLINE_MS = 30_000;
/** Fitted exponent at or under which growth counts as linear. */
const EXPONENT_TARGET = 1.2;
/** Hard limit on one measuring process (a run past it is killed and counted outside). */
const CHILD_LIMIT_MS = DEADLINE_MS + 60_000;

const SCAN = fileURLToPath(new URL('../complexity-scan.js', import.meta.url));

/** One measured scan in a process of its own, or `undefined` when it failed or was killed. */
function measure(shape: ComplexityShape, bytes: number): Promise<ComplexityRun | undefined> {
  const args = [SCAN, '--shape', shape, '--bytes', String(bytes), '--deadline', `${DEADLINE_MS}`];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString().slice(0, 2000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_LIMIT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) process.stderr.write(`complexity ${shape} ${bytes}: exit ${code} ${err}\n`);
      try {
        resolve(code === 0 ? (JSON.parse(out) as ComplexityRun) : undefined);
      } catch {
        resolve(undefined);
      }
    });
  });
}

/** Least-squares slope of log(y) against log(x). */
export function logLogSlope(points: readonly (readonly [number, number])[]): number {
  const pts = points.filter(([x, y]) => x > 0 && y > 0).map(([x, y]) => [Math.log(x), Math.log(y)]);
  if (pts.length < 2) return NaN;
  const mx = pts.reduce((s, [x]) => s + (x as number), 0) / pts.length;
  const my = pts.reduce((s, [, y]) => s + (y as number), 0) / pts.length;
  let num = 0;
  let den = 0;
  for (const [x, y] of pts) {
    num += ((x as number) - mx) * ((y as number) - my);
    den += ((x as number) - mx) ** 2;
  }
  return num / den;
}

/** The growth of `cost` above the smallest run, fitted over the sizes from {@link FIT_FROM}. */
function growth(runs: readonly ComplexityRun[], cost: (r: ComplexityRun) => number): number {
  const base = runs[0];
  if (base === undefined) return NaN;
  return logLogSlope(
    runs.filter((r) => r.bytes >= FIT_FROM).map((r) => [r.bytes, cost(r) - cost(base)] as const),
  );
}

const size = (bytes: number): string =>
  bytes >= 1024 * KiB ? `${bytes / 1024 / KiB} MiB` : `${bytes / KiB} KiB`;
const cpu = (r: ComplexityRun): number => r.scanCpuMs + r.renderCpuMs;

/** The complexity suite. */
export const complexitySuite: BenchSuite = {
  name: 'complexity',
  summary: 'whole scans of hostile servers grown from 1 KiB to 1 MiB: CPU and memory against size',
  async run(_budget: Budget) {
    const limitMs = DEADLINE_MS + STDIO_CLOSE_GRACE_MS;
    const rows: string[][] = [];
    const fits: string[][] = [];
    const checks: Check[] = [];
    let outside = 0;
    let failed = 0;
    for (const shape of COMPLEXITY_SHAPES) {
      const runs: ComplexityRun[] = [];
      for (const bytes of SIZES) {
        const run = await measure(shape, bytes);
        if (run === undefined) {
          failed++;
          rows.push([shape, size(bytes), '-', '-', '-', '-', '-', 'no report']);
          continue;
        }
        runs.push(run);
        const inside = run.scanWallMs <= limitMs;
        if (!inside) outside++;
        const errored = Object.values(run.verdicts).filter((v) => v === 'errored').length;
        rows.push([
          shape,
          size(bytes),
          run.scanCpuMs.toFixed(0),
          run.renderCpuMs.toFixed(0),
          (run.scanWallMs / 1000).toFixed(1),
          run.maxBlockMs.toFixed(0),
          (run.maxRssKiB / 1024).toFixed(0),
          `${inside ? 'yes' : 'NO'}${errored > 0 ? ` (${errored} errored)` : ''}`,
        ]);
      }
      const cpuExp = growth(runs, cpu);
      const memExp = growth(runs, (r) => r.maxRssKiB);
      fits.push([shape, cpuExp.toFixed(2), memExp.toFixed(2)]);
      checks.push({
        label: `${shape}: CPU growth exponent (log-log slope above the 1 KiB run)`,
        actual: cpuExp.toFixed(2),
        target: `≤ ${EXPONENT_TARGET.toFixed(2)}`,
        met: cpuExp <= EXPONENT_TARGET,
      });
      checks.push({
        label: `${shape}: peak memory growth exponent`,
        actual: memExp.toFixed(2),
        target: `≤ ${EXPONENT_TARGET.toFixed(2)}`,
        met: memExp <= EXPONENT_TARGET,
      });
    }
    checks.push({
      label: `scans ended inside --deadline ${DEADLINE_MS / 1000}s + ${STDIO_CLOSE_GRACE_MS / 1000}s grace, with a report`,
      actual: `${outside + failed} outside`,
      target: '0 outside',
      met: outside + failed === 0,
    });
    return {
      tables: [
        {
          title: `whole stdio scans, every probe, one process per run (--deadline ${DEADLINE_MS / 1000}s)`,
          columns: [
            'shape',
            'size',
            'scan CPU ms',
            'render CPU ms',
            'scan s',
            'block ms',
            'peak MiB',
            'in deadline',
          ],
          rows,
          notes: [
            'size: what the server grows its state and answers to; scan CPU: the scanning',
            '  process (the server is a child, not counted); render: every format, full evidence;',
            "  block: the event loop's longest hold during the scan (how late a timer could fire);",
            `  peak: the process's maximum resident set; in deadline: scan ended ≤ ${limitMs / 1000} s.`,
          ],
        },
        {
          title: 'fitted growth (log-log least squares, cost above the 1 KiB run, 16 KiB to 1 MiB)',
          columns: ['shape', 'CPU exponent', 'memory exponent'],
          rows: fits,
          notes: ['1.00 is linear; below 1, the caps (leaves, markers, decoded state) bite first.'],
        },
      ],
      checks,
    };
  },
};
