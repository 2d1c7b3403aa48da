/**
 * CPU time a test file costs, its child processes included, for ranking the suite's files by what
 * they take from the machine rather than by their wall time (which a loaded machine stretches).
 *
 * A worker runs its files one after another (vitest.config.ts), so the difference of the worker's
 * own CPU time plus that of every child it has waited for (`/proc/self/stat`: utime, stime, cutime,
 * cstime) across a file is that file's. A child's waited-for children count in its own figure, so
 * a CLI and the server it scanned both count. Linux only; elsewhere there is no figure.
 */
import { appendFileSync, readFileSync } from 'node:fs';

/** Clock ticks per second of `/proc/<pid>/stat` (USER_HZ, 100 on every Linux that node runs on). */
const TICKS = 100;

/** This process's CPU seconds, its waited-for children included; undefined off Linux. */
export function cpuSeconds(): number | undefined {
  let stat: string;
  try {
    stat = readFileSync('/proc/self/stat', 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the command name (which may hold spaces), from field 3 (state) on.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
  return ((utime ?? 0) + (stime ?? 0) + (cutime ?? 0) + (cstime ?? 0)) / TICKS;
}

/** The variable that names a file to append `<CPU seconds>\t<test file>` lines to, one per file. */
export const CPU_LOG_ENV = 'STATEGUARD_TEST_CPU_LOG';

/** Appends one file's CPU seconds to the log named by {@link CPU_LOG_ENV}, if one is named. */
export function logCpu(file: string, seconds: number): void {
  const log = process.env[CPU_LOG_ENV];
  if (log) appendFileSync(log, `${seconds.toFixed(2)}\t${file}\n`);
}
