/**
 * A stdio target's process: started in a hold of its own (see `hold.ts`), and stopped as the spec
 * orders it (close stdin, wait, SIGTERM, wait, SIGKILL, to everything held), after which its pipes
 * are let go whether or not they closed.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { Hold } from './hold.js';
import { createHold } from './hold.js';
import { GROUPS, untrackGroup } from './process-group.js';

// Shutdown, as the spec orders it: close stdin, wait, SIGTERM, wait, SIGKILL (to the whole group).
const GRACE_MS = [300, 1000, 500] as const;
/** The longest a stdio session takes to close after the scan ends: the sum of the waits above. */
export const STDIO_CLOSE_GRACE_MS = GRACE_MS[0] + GRACE_MS[1] + GRACE_MS[2];
const POLL_MS = 25;

/** A started child and its hold, or why it could not be started. */
export type Started =
  { readonly child: ChildProcess; readonly hold: Hold } | { readonly error: string };

/** Spawns `command` (no shell) in a hold of its own, in a process group of its own. */
export function startChild(
  command: string,
  args: readonly string[],
  options: { readonly env?: NodeJS.ProcessEnv; readonly cwd?: string },
): Started {
  let hold: Hold | undefined;
  try {
    const env = options.env ?? process.env;
    hold = createHold(command, args, env, options.cwd);
    const child = spawn(hold.command, [...hold.args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      windowsHide: true,
      // Its own process group, so that closing can stop everything the target started.
      detached: GROUPS,
    });
    return { child, hold };
  } catch (err) {
    hold?.dispose();
    return { error: (err as Error).message };
  }
}

/**
 * Whether the child is gone: every pipe closed and nothing left in the hold (without groups: the
 * child exited). 'close' (every pipe closed: the child and all it started are gone, or let go of
 * them) and 'exit' (the direct child alone) are watched apart: a grandchild may hold the pipes for
 * minutes.
 */
export function goneWatch(child: ChildProcess, held: Hold): () => boolean {
  let hasClosed = false;
  let hasExited = false;
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void closed.then(() => (hasClosed = true));
  void exited.then(() => (hasExited = true));
  return () => (GROUPS ? hasClosed && held.empty() : hasExited);
}

/** Resolves true once `done()`, false when `ms` passed first. */
function until(done: () => boolean, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const deadline = performance.now() + ms;
    const tick = (): void => {
      if (done()) resolve(true);
      else if (performance.now() >= deadline) resolve(false);
      else setTimeout(tick, POLL_MS);
    };
    tick();
  });
}

/** Lets go of the pipes and the child: nothing the target left running can hold the scanner. */
function release(child: ChildProcess, held: Hold, pid: number): void {
  untrackGroup(pid);
  held.dispose();
  child.stdin?.destroy();
  child.stdout?.destroy();
  child.stderr?.destroy();
  child.unref();
}

/** Stops the child `pid` and everything held, then lets go of it (see the module comment). */
export async function stopChild(
  child: ChildProcess,
  held: Hold,
  pid: number | undefined,
  gone: () => boolean,
): Promise<void> {
  if (pid === undefined) {
    held.dispose();
    return;
  }
  // Well behaved: stdin closes, the server and all it started exit, the pipes close. Whatever is
  // left then, the direct child or what it started (a helper with its stdio closed holds no
  // pipe), is asked to stop, then made to.
  child.stdin?.end();
  if (!(await until(gone, GRACE_MS[0]))) {
    if (GROUPS) held.signal('SIGTERM');
    else child.kill('SIGTERM');
    if (!(await until(gone, GRACE_MS[1]))) {
      if (GROUPS) held.signal('SIGKILL');
      else child.kill('SIGKILL');
      await until(gone, GRACE_MS[2]);
    }
  }
  release(child, held, pid);
}
