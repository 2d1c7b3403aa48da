/**
 * Process groups of stdio targets. Each target runs in a group of its own (`detached` on POSIX), so
 * that stopping it stops what it started too: a wrapper script's `sleep`, a watcher, a server it
 * launched. Groups still running when the scanner exits are killed on the way out.
 */

/** Whether targets get a group of their own: a POSIX notion; on Windows the child is stopped alone. */
export const GROUPS = process.platform !== 'win32';

// Groups still running, stopped when the scanner exits however it exits (a signal handler in the CLI
// turns SIGINT into an exit): the target's processes must not outlive the scan.
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/** Sends `signal` to the group led by `pid` (or to `pid` alone without groups); gone is fine. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(GROUPS ? -pid : pid, signal);
  } catch {
    // ESRCH: the group is gone already.
  }
}

/** Remembers a running group, to be killed if the scanner exits before it is stopped. */
export function trackGroup(pid: number): void {
  liveGroups.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const group of liveGroups) signalGroup(group, 'SIGKILL');
  });
}

/** Forgets a group that has been stopped or has ended. */
export function untrackGroup(pid: number): void {
  liveGroups.delete(pid);
}
