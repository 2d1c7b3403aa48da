/**
 * No child process outlives the test file that started it. Loaded from the vitest setup file: every
 * child the worker starts (a fixture server, a CLI run, redis-server, a scan's stdio target, through
 * `spawn`, `execFile`, `exec` or `fork`, from a test, a helper or the code under test) is
 * remembered, and whatever is still running when the file ends, passed, failed or timed out, is
 * stopped with everything it started in turn: SIGTERM, then SIGKILL after a bounded wait. A process
 * that leads a group of its own (`detached`) is stopped as a group. If the worker itself exits
 * first, what is left gets SIGKILL on the way out.
 */
import { ChildProcess, type SpawnOptions } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** A child this worker started, and whether it leads a process group of its own. */
interface Started {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly group: boolean;
}

/** One line of the process table. */
interface Proc {
  readonly pid: number;
  readonly ppid: number;
  readonly pgrp: number;
  /** `Z` for a zombie: stopped, waiting only to be reaped. */
  readonly state: string;
}

const GROUPS = process.platform !== 'win32';
const PROC = process.platform === 'linux';
// One set per worker, however often this module is evaluated in it (a setup file runs per test file).
const KEY = Symbol.for('stateguard.test.children');
const holder = globalThis as { [KEY]?: Set<Started> };
const installed = holder[KEY] !== undefined;
const started: Set<Started> = (holder[KEY] ??= new Set<Started>());

/** Every process in /proc (Linux; elsewhere none, and only what was started directly is stopped). */
function processTable(): Proc[] {
  if (!PROC) return [];
  const table: Proc[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so read after the last ')'.
    const [state = '', ppid = '', pgrp = ''] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    table.push({ pid: Number(entry), ppid: Number(ppid), pgrp: Number(pgrp), state });
  }
  return table;
}

function kill(pid: number, name: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    // ESRCH: gone already. EPERM: no longer ours.
    return false;
  }
}

/**
 * Whether any process of the group `pgid` still runs. A zombie does not: it has stopped, and waits
 * only for whoever inherited it to reap it (a sandbox's init may take its time, or never do it).
 */
export function groupRunning(pgid: number): boolean {
  if (!kill(-pgid, 0)) return false; // none at all, zombie or not: the usual case, and cheap
  if (!PROC) return true;
  return processTable().some((p) => p.pgrp === pgid && p.state !== 'Z');
}

/** Whether process `pid` still runs (a zombie does not: see {@link groupRunning}). */
export function processRunning(pid: number): boolean {
  if (!PROC) return kill(pid, 0);
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Whether anything of `entry` still runs: the child itself, or any process of its group. */
function alive(entry: Started): boolean {
  if (!entry.group) return entry.child.exitCode === null && entry.child.signalCode === null;
  return groupRunning(entry.pid);
}

/**
 * What to signal to stop `roots` and everything they started: each running root (a group leader
 * as its group), then every running descendant (one that leads a group, as its group).
 */
function targets(roots: readonly Started[], table: readonly Proc[]): number[] {
  const children = new Map<number, Proc[]>();
  for (const p of table) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const out = new Set<number>();
  const seen = new Set<number>();
  const walk = (pid: number): void => {
    for (const child of children.get(pid) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      if (child.state !== 'Z') out.add(child.pgrp === child.pid && GROUPS ? -child.pid : child.pid);
      walk(child.pid);
    }
  };
  for (const root of roots) {
    out.add(root.group ? -root.pid : root.pid);
    walk(root.pid);
  }
  return [...out];
}

function remember(child: ChildProcess, options: SpawnOptions): void {
  if (child.pid === undefined) return; // it never started: nothing to stop
  const entry: Started = { child, pid: child.pid, group: GROUPS && options.detached === true };
  started.add(entry);
  // A group outlives its leader only while a member is left; while one is, its id stays taken.
  child.once('exit', () => {
    if (!alive(entry)) started.delete(entry);
  });
}

type SpawnMethod = (this: ChildProcess, options: SpawnOptions) => unknown;

// Every way to start a child in node:child_process ends in this method.
function install(): void {
  const proto = ChildProcess.prototype as unknown as { spawn: SpawnMethod };
  const original = proto.spawn;
  proto.spawn = function spawnRemembered(this: ChildProcess, options: SpawnOptions): unknown {
    const result = original.call(this, options);
    remember(this, options);
    return result;
  };
  process.once('exit', () => {
    const left = [...started].filter(alive);
    for (const pid of targets(left, processTable())) kill(pid, 'SIGKILL');
  });
}
if (!installed) install();

/** How long a child its test already signalled gets to exit before it counts as left running. */
const SIGNALLED_MS = 500;

/** How long the stopped processes get between SIGTERM and SIGKILL. */
const GRACE_MS = 1_000;

/**
 * Stops every child still running, with what it started (groups as groups): SIGTERM, then SIGKILL
 * to whatever is left after {@link GRACE_MS}. Resolves with the pids of the children it stopped.
 */
export async function stopChildren(): Promise<number[]> {
  // A child the test has just signalled itself is on its way out: give it a moment to get there.
  const until = Date.now() + SIGNALLED_MS;
  while ([...started].some((e) => e.child.killed && alive(e)) && Date.now() < until)
    await new Promise((resolve) => setTimeout(resolve, 10));
  const left = [...started].filter(alive);
  started.clear();
  if (left.length === 0) return [];
  // Read the tree before anything dies: an orphan is adopted elsewhere and no longer looks ours.
  const pids = targets(left, processTable());
  for (const pid of pids) kill(pid, 'SIGTERM');
  const running = (pid: number): boolean => (pid < 0 ? groupRunning(-pid) : processRunning(pid));
  const grace = Date.now() + GRACE_MS;
  while (pids.some(running) && Date.now() < grace)
    await new Promise((resolve) => setTimeout(resolve, 25));
  for (const pid of pids) if (running(pid)) kill(pid, 'SIGKILL');
  return left.map((entry) => entry.pid);
}
