/**
 * A tiny benchmark harness: time-boxed, interleaved measurement of competing operations, and the
 * plain-text tables and target checks every suite prints.
 *
 * Contenders of one comparison run in alternating short rounds rather than one after the other, and
 * the median round counts. On a shared two-core machine a neighbour's burst then lands on every
 * contender alike instead of skewing whichever happened to run during it. Ratios are taken round by
 * round (a contender's round against the other's in the same round, milliseconds apart), and their
 * median and interquartile range are reported, so load that drifts during the run cancels out. The
 * order reverses every round, so no contender always runs first. A suite may count CPU time instead
 * of elapsed time (`clock: 'cpu'`): a neighbour holding the core then shortens a round instead of
 * inflating it. With `--expose-gc`, the young generation is collected before every timed run, so
 * one contender's garbage is never collected on another's clock.
 */
import { performance } from 'node:perf_hooks';
import { cpuUsage } from 'node:process';

/** One operation under measurement. It may return a promise; it is then awaited, one at a time. */
export interface Contender {
  readonly label: string;
  readonly op: () => unknown;
}

/** What one contender measured. */
export interface Measurement {
  readonly label: string;
  /** Median nanoseconds per operation over the rounds, by the budget's clock. */
  readonly nsPerOp: number;
  /** Median elapsed nanoseconds per operation, whatever the budget's clock. */
  readonly wallNsPerOp: number;
  readonly opsPerSec: number;
  /** Operations run across all timed rounds. */
  readonly iterations: number;
  /** Nanoseconds per operation of each timed round (budget's clock), in round order. */
  readonly samples: readonly number[];
}

/** A ratio taken round by round: its median and interquartile range. */
export interface RatioStats {
  readonly median: number;
  /** First quartile of the per-round ratios. */
  readonly low: number;
  /** Third quartile of the per-round ratios. */
  readonly high: number;
}

/** How long to warm up and measure. */
export interface Budget {
  /** Warm-up per contender (lets V8 optimise and the cipher contexts settle). */
  readonly warmupMs: number;
  /** Timed rounds per contender, interleaved. */
  readonly rounds: number;
  /** Length of one timed round (wall clock). */
  readonly roundMs: number;
  /**
   * What `nsPerOp` and the ratios count. `wall` (default): elapsed time, what a caller waits,
   * including waits on other processes (Redis) and threads. `cpu`: this process's CPU time (user +
   * system, every thread), which a neighbour holding the core cannot inflate: the steadier measure
   * for synchronous work on a shared machine.
   */
  readonly clock?: 'wall' | 'cpu';
}

/** The budget suites use unless they have a reason not to; main.ts may scale it. */
export const DEFAULT_BUDGET: Budget = { warmupMs: 150, rounds: 7, roundMs: 120 };

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** CPU time this process has used, in nanoseconds (user + system, every thread). */
function cpuNs(): number {
  const { user, system } = cpuUsage();
  return (user + system) * 1e3;
}

/** Run `op` for about `ms` milliseconds of wall time; returns [operations, CPU ns, wall ns]. */
async function runFor(
  op: () => unknown,
  async: boolean,
  ms: number,
): Promise<[number, number, number]> {
  const start = performance.now();
  const end = start + ms;
  const cpuStart = cpuNs();
  let count = 0;
  let now = start;
  // Sync operations run in batches so that reading the clock costs nothing measurable.
  const batch = async ? 1 : 64;
  while (now < end) {
    if (async) {
      await op();
    } else {
      for (let i = 0; i < batch; i++) op();
    }
    count += batch;
    now = performance.now();
  }
  return [count, cpuNs() - cpuStart, (now - start) * 1e6];
}

/** The `q` quantile (0…1) of values, interpolating between neighbours. */
function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const below = Math.floor(at);
  const lower = sorted[below] as number;
  const upper = sorted[Math.min(below + 1, sorted.length - 1)] as number;
  return lower + (upper - lower) * (at - below);
}

function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** `a`'s time over `b`'s, round by round (both from the same `compare`). */
export function pairedRatio(a: Measurement, b: Measurement): RatioStats {
  if (a.samples.length !== b.samples.length || a.samples.length === 0) {
    throw new RangeError('pairedRatio needs measurements from the same comparison');
  }
  const ratios = a.samples.map((ns, i) => ns / (b.samples[i] as number));
  return { median: median(ratios), low: quantile(ratios, 0.25), high: quantile(ratios, 0.75) };
}

type Collector = (options?: { type: 'minor' | 'major' }) => void;
const exposedGc = (globalThis as { gc?: unknown }).gc;

/** Whether the harness collects garbage between timed runs (`node --expose-gc`). */
export const COLLECTS_GARBAGE = typeof exposedGc === 'function';

/**
 * Collect garbage when Node runs with `--expose-gc`, else do nothing. A minor collection empties
 * the young generation, where an operation's garbage lives, in a fraction of a millisecond; a
 * major one (tens of milliseconds with the SDK loaded) is kept for once per comparison.
 */
function collect(type: 'minor' | 'major'): void {
  if (COLLECTS_GARBAGE) (exposedGc as Collector)({ type });
}

/** Measure contenders side by side: warm each up, then interleave the timed rounds. */
export async function compare(
  contenders: readonly Contender[],
  budget: Budget = DEFAULT_BUDGET,
): Promise<Measurement[]> {
  const asyncFlags = contenders.map((c) => isThenable(c.op()));
  for (const [i, c] of contenders.entries()) {
    if (asyncFlags[i]) await c.op();
    await runFor(c.op, asyncFlags[i] as boolean, budget.warmupMs);
  }
  const samples = contenders.map(() => [] as number[]);
  const wallSamples = contenders.map(() => [] as number[]);
  const totals = contenders.map(() => 0);
  const forward = [...contenders.keys()];
  const backward = [...forward].reverse();
  collect('major');
  for (let round = 0; round < budget.rounds; round++) {
    for (const i of round % 2 === 0 ? forward : backward) {
      collect('minor');
      const c = contenders[i] as Contender;
      const [ops, cpu, wall] = await runFor(c.op, asyncFlags[i] as boolean, budget.roundMs);
      (samples[i] as number[]).push((budget.clock === 'cpu' ? cpu : wall) / ops);
      (wallSamples[i] as number[]).push(wall / ops);
      totals[i] = (totals[i] as number) + ops;
    }
  }
  return contenders.map((c, i) => {
    const nsPerOp = median(samples[i] as number[]);
    return {
      label: c.label,
      nsPerOp,
      wallNsPerOp: median(wallSamples[i] as number[]),
      opsPerSec: 1e9 / nsPerOp,
      iterations: totals[i] as number,
      samples: samples[i] as number[],
    };
  });
}

/** A target a suite states up front, checked against what it measured. */
export interface Check {
  readonly label: string;
  /** The measured value, already formatted (`1.31×`, `223 chars`). */
  readonly actual: string;
  /** The target, formatted (`≤ 1.50×`). */
  readonly target: string;
  readonly met: boolean;
}

/** A table: a title, a header row and data rows of already-formatted cells. */
export interface Table {
  readonly title: string;
  readonly columns: readonly string[];
  readonly rows: readonly (readonly string[])[];
  /** Lines printed under the table (what was compared, and how). */
  readonly notes?: readonly string[];
}

/** What a suite hands back for printing. */
export interface SuiteResult {
  readonly tables: readonly Table[];
  readonly checks: readonly Check[];
}

/** A benchmark suite. Register it in `main.ts`. */
export interface BenchSuite {
  /** Short id, used to pick suites on the command line. */
  readonly name: string;
  /** One line: what the suite compares. */
  readonly summary: string;
  run(budget: Budget): Promise<SuiteResult>;
}

/** Format a number with thin grouping, e.g. `1 234 567`. */
export function formatCount(n: number): string {
  return Math.round(n)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
}

/** Format a ratio, e.g. `1.31×`. */
export function formatRatio(r: number): string {
  return `${r.toFixed(2)}×`;
}

/** Format a ratio's interquartile range, e.g. `1.27–1.36`. */
export function formatSpread(r: RatioStats): string {
  return `${r.low.toFixed(2)}–${r.high.toFixed(2)}`;
}

/** Render a table as aligned plain text: first column left-aligned, the others right-aligned. */
export function renderTable(table: Table): string {
  const widths = table.columns.map((col, i) =>
    Math.max(col.length, ...table.rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, i) =>
        i === 0 ? cell.padEnd(widths[i] as number) : cell.padStart(widths[i] as number),
      )
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  const out = [table.title, line(table.columns), rule, ...table.rows.map(line)];
  for (const note of table.notes ?? []) out.push(`  ${note}`);
  return out.join('\n');
}

/** Render checks as `[met]`/`[MISSED]` lines. */
export function renderChecks(checks: readonly Check[]): string {
  return checks
    .map((c) => `${c.met ? '[met]   ' : '[MISSED]'} ${c.label}: ${c.actual} (target ${c.target})`)
    .join('\n');
}
