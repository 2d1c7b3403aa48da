/**
 * A tiny benchmark harness: time-boxed, interleaved measurement of competing operations, and the
 * plain-text tables and target checks every suite prints.
 *
 * Contenders of one comparison run in alternating short rounds rather than one after the other, and
 * the median round counts. On a shared two-core machine a neighbour's burst then lands on every
 * contender alike instead of skewing whichever happened to run during it.
 */
import { performance } from 'node:perf_hooks';

/** One operation under measurement. It may return a promise; it is then awaited, one at a time. */
export interface Contender {
  readonly label: string;
  readonly op: () => unknown;
}

/** What one contender measured. */
export interface Measurement {
  readonly label: string;
  /** Median nanoseconds per operation over the rounds. */
  readonly nsPerOp: number;
  readonly opsPerSec: number;
  /** Operations run across all timed rounds. */
  readonly iterations: number;
}

/** How long to warm up and measure. */
export interface Budget {
  /** Warm-up per contender (lets V8 optimise and the cipher contexts settle). */
  readonly warmupMs: number;
  /** Timed rounds per contender, interleaved. */
  readonly rounds: number;
  /** Length of one timed round. */
  readonly roundMs: number;
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

/** Run `op` for about `ms` milliseconds; returns [operations, elapsed ns]. */
async function runFor(op: () => unknown, async: boolean, ms: number): Promise<[number, number]> {
  const start = performance.now();
  const end = start + ms;
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
  return [count, (now - start) * 1e6];
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
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
  const totals = contenders.map(() => 0);
  for (let round = 0; round < budget.rounds; round++) {
    for (const [i, c] of contenders.entries()) {
      const [ops, ns] = await runFor(c.op, asyncFlags[i] as boolean, budget.roundMs);
      (samples[i] as number[]).push(ns / ops);
      totals[i] = (totals[i] as number) + ops;
    }
  }
  return contenders.map((c, i) => {
    const nsPerOp = median(samples[i] as number[]);
    return { label: c.label, nsPerOp, opsPerSec: 1e9 / nsPerOp, iterations: totals[i] as number };
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
