/**
 * Process groups of stdio targets. Each target runs in a group of its own (`detached` on POSIX), so
 * that stopping it stops what it started too: a wrapper script's `sleep`, a watcher, a server it
 * launched. Groups still running when the scanner exits are killed on the way out, and so is
 * whatever else must not outlive the scanner (a target's cgroup, see `hold.ts`).
 */

/** Whether targets get a group of their own: a POSIX notion; on Windows the child is stopped alone. */
export const GROUPS = process.platform !== 'win32';

// Groups and holds still running, stopped when the scanner exits however it exits (a signal handler
// in the CLI turns SIGINT into an exit): the target's processes must not outlive the scan.
const liveGroups = new Set<number>();
const onExit = new Set<() => void>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const group of liveGroups) signalGroup(group, 'SIGKILL');
    for (const stop of onExit) {
      try {
        stop();
      } catch {
        // On the way out, a hold that cannot be stopped is left as it is.
      }
    }
  });
}

/** Sends `signal` to the group led by `pid` (or to `pid` alone without groups); gone is fine. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(GROUPS ? -pid : pid, signal);
  } catch {
    // ESRCH: the group is gone already.
  }
}

/**
 * Whether any process of the group led by `pid` is left (without groups: `pid` itself). A zombie
 * counts: a sandbox's init may never reap one, and the caller's wait is bounded anyway.
 */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(GROUPS ? -pid : pid, 0);
    return true;
  } catch {
    // ESRCH: none left. EPERM: what holds that id now is not ours to wait for.
    return false;
  }
}

/** Remembers a running group, to be killed if the scanner exits before it is stopped. */
export function trackGroup(pid: number): void {
  liveGroups.add(pid);
  installExitHook();
}

/** Forgets a group that has been stopped. */
export function untrackGroup(pid: number): void {
  liveGroups.delete(pid);
}

/** Runs `stop` (synchronous) if the scanner exits before {@link forgetOnExit} is called with it. */
export function stopOnExit(stop: () => void): void {
  onExit.add(stop);
  installExitHook();
}

/** Forgets a stop registered with {@link stopOnExit}. */
export function forgetOnExit(stop: () => void): void {
  onExit.delete(stop);
}
