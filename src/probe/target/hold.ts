/**
 * Holds a stdio target so that nothing it starts outlives the scan.
 *
 * A process group alone is not enough: a helper that calls `setsid` (or a daemon's double fork into
 * a session of its own) leaves it. On Linux with a writable cgroup v2 hierarchy, each target is
 * therefore started inside a cgroup of its own, a child of the scanner's: a process cannot leave a
 * cgroup by forking or by `setsid`, and `cgroup.kill` stops every process in it at once.
 *
 * The target is moved in before it runs: it is started as `/bin/sh -c 'echo $$ > <cgroup>/cgroup.procs;
 * exec "$@"' <cgroup> <command> <args…>`, so the command's first instruction already runs inside, and so does
 * everything it forks. Whether that works is decided once per scanner process by a real run (the
 * probe reads its own `/proc/self/cgroup` from inside). Where it does not (another OS, cgroup v1
 * only, a read-only or undelegated hierarchy, a kernel before 5.14 without `cgroup.kill`), the
 * hold is the process group alone. `STATEGUARD_HOLD=group` asks for the group alone.
 */
import { spawnSync } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { forgetOnExit, groupAlive, GROUPS, signalGroup, stopOnExit } from './process-group.js';

/** How a target is held: its own cgroup (and group), its own process group, or nothing (Windows). */
export type HoldKind = 'cgroup' | 'group' | 'none';

/** One target's hold. */
export interface Hold {
  readonly kind: HoldKind;
  /** What to spawn: the target's command, started inside the hold. */
  readonly command: string;
  readonly args: readonly string[];
  /** The spawned process (the group's leader). */
  attach(pid: number): void;
  /** Signals everything held: the group and every process of the cgroup. */
  signal(signal: 'SIGTERM' | 'SIGKILL'): void;
  /** Whether nothing held is left (zombies aside in a cgroup; in a group they count). */
  empty(): boolean;
  /** Kills what is left and removes the cgroup; call once, after the target was stopped. */
  dispose(): void;
}

const PREFIX = 'stateguard-';
// `sh -c ENTER <cgroup> <command> <args…>`: $0 is the cgroup, "$@" the command line.
const ENTER = 'echo $$ > "$0/cgroup.procs" 2>/dev/null; exec "$@"';
const SHELL = '/bin/sh';
let decided: string | null | undefined;
let counter = 0;

/** The scanner's own cgroup directory in a cgroup v2 hierarchy, if it can be found. */
function ownCgroupDir(): string | undefined {
  const own = readFileSync('/proc/self/cgroup', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('0::'))
    ?.slice(3);
  if (own === undefined) return undefined;
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [left, right] = line.split(' - ');
    if (!right?.startsWith('cgroup2 ')) continue;
    const fields = (left ?? '').split(' ');
    const root = unescapeMount(fields[3] ?? '');
    const point = unescapeMount(fields[4] ?? '');
    if (own === root || own.startsWith(root === '/' ? '/' : `${root}/`)) {
      return join(point, own.slice(root === '/' ? 0 : root.length));
    }
  }
  return undefined;
}

const unescapeMount = (s: string): string =>
  s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));

const processAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Removes cgroups left by scanners that are gone (a SIGKILLed scanner cannot remove its own). */
function sweep(base: string): void {
  for (const name of readdirSync(base)) {
    const owner = /^stateguard-(\d+)-/.exec(name);
    if (!owner || Number(owner[1]) === process.pid || processAlive(Number(owner[1]))) continue;
    try {
      writeFileSync(join(base, name, 'cgroup.kill'), '1');
      rmdirSync(join(base, name));
    } catch {
      // Still populated, or not ours to remove.
    }
  }
}

/** Decides, once, where targets' cgroups go: a real run must see itself inside one. */
function cgroupBase(): string | undefined {
  if (decided !== undefined) return decided ?? undefined;
  decided = null;
  if (process.platform !== 'linux' || process.env.STATEGUARD_HOLD === 'group') return undefined;
  try {
    const base = ownCgroupDir();
    if (base === undefined || !existsSync(SHELL)) return undefined;
    const probe = join(base, `${PREFIX}${process.pid}-probe`);
    mkdirSync(probe, { recursive: true });
    try {
      if (!existsSync(join(probe, 'cgroup.kill'))) return undefined;
      const run = spawnSync(SHELL, ['-c', ENTER, probe, SHELL, '-c', 'cat /proc/self/cgroup'], {
        encoding: 'utf8',
        timeout: 5000,
      });
      const inside = (run.stdout ?? '').split('\n').find((l) => l.startsWith('0::'));
      if (run.status !== 0 || !inside?.endsWith(`/${PREFIX}${process.pid}-probe`)) return undefined;
    } finally {
      rmdirSync(probe);
    }
    sweep(base);
    decided = base;
    return base;
  } catch {
    return undefined;
  }
}

/** How this scanner process holds stdio targets. */
export function holdKind(): HoldKind {
  if (!GROUPS) return 'none';
  return cgroupBase() === undefined ? 'group' : 'cgroup';
}

/**
 * Whether `command` names an executable `spawn` would find: when it does not, the target is spawned
 * as it is, so that the failure is the spawn's own (`ENOENT`) and not a shell's exit code.
 */
function findable(command: string, env: NodeJS.ProcessEnv, cwd: string): boolean {
  const isFile = (path: string): boolean => {
    try {
      accessSync(path, constants.X_OK);
      return statSync(path).isFile();
    } catch {
      return false;
    }
  };
  if (command.includes('/')) return isFile(isAbsolute(command) ? command : resolve(cwd, command));
  return (env.PATH ?? '')
    .split(delimiter)
    .some((dir) => isFile(resolve(cwd, dir === '' ? '.' : dir, command)));
}

/** The target's process group, once its leader is attached. */
interface Group {
  leader: number | undefined;
}

/** Signals the whole process group, once there is one. */
function signalLeader(group: Group, signal: NodeJS.Signals): void {
  if (group.leader !== undefined) signalGroup(group.leader, signal);
}

/** Whether the process group is gone (or never started). */
const groupEmpty = (group: Group): boolean =>
  group.leader === undefined || !groupAlive(group.leader);

/** A fresh cgroup for a target under `base`, or none when it cannot be made. */
function makeCgroup(base: string): string | undefined {
  try {
    const dir = join(base, `${PREFIX}${process.pid}-${++counter}`);
    mkdirSync(dir);
    return dir;
  } catch {
    return undefined;
  }
}

/** Kills every process of cgroup `cg` at once. */
function killCgroup(cg: string): void {
  try {
    writeFileSync(join(cg, 'cgroup.kill'), '1');
  } catch {
    // Removed already.
  }
}

/** Removes cgroup `cg`; true when it is gone. */
function removeCgroup(cg: string): boolean {
  try {
    rmdirSync(cg);
    return true;
  } catch {
    return !existsSync(cg);
  }
}

/** Whether a process is left in cgroup `cg`. */
function populated(cg: string): boolean {
  try {
    return /^populated 1$/m.test(readFileSync(join(cg, 'cgroup.events'), 'utf8'));
  } catch {
    return false;
  }
}

/** Sends `signal` to every process of cgroup `cg` (SIGKILL: all at once, by `cgroup.kill`). */
function signalCgroup(cg: string, signal: 'SIGTERM' | 'SIGKILL'): void {
  if (signal === 'SIGKILL') return killCgroup(cg);
  let pids: string[] = [];
  try {
    pids = readFileSync(join(cg, 'cgroup.procs'), 'utf8').split('\n');
  } catch {
    return;
  }
  for (const pid of pids) {
    if (/^\d+$/.test(pid)) {
      try {
        process.kill(Number(pid), signal);
      } catch {
        // Gone already.
      }
    }
  }
}

/** A hold that is the target's process group alone (or nothing, without groups). */
function groupHold(command: string, args: readonly string[]): Hold {
  const group: Group = { leader: undefined };
  return {
    kind: GROUPS ? 'group' : 'none',
    command,
    args,
    attach: (pid) => void (group.leader = pid),
    signal: (signal) => signalLeader(group, signal),
    empty: () => groupEmpty(group),
    dispose: () => undefined,
  };
}

/** A hold in cgroup `cg` (and the process group): the target is started inside it. */
function cgroupHold(cg: string, command: string, args: readonly string[]): Hold {
  const group: Group = { leader: undefined };
  const onExit = (): void => {
    killCgroup(cg);
    removeCgroup(cg);
  };
  stopOnExit(onExit);
  return {
    kind: 'cgroup',
    command: SHELL,
    args: ['-c', ENTER, cg, command, ...args],
    attach: (pid) => void (group.leader = pid),
    signal(signal) {
      signalLeader(group, signal);
      signalCgroup(cg, signal);
    },
    // Every process of the group started in the cgroup. A zombie has left the cgroup's count:
    // `populated 0` once every member has exited, reaped or not.
    empty: () => !populated(cg),
    dispose() {
      signalLeader(group, 'SIGKILL');
      killCgroup(cg);
      // The kill is asynchronous: the cgroup can be removed once its last member has exited.
      if (removeCgroup(cg)) forgetOnExit(onExit);
      else setTimeout(() => removeCgroup(cg) && forgetOnExit(onExit), 200).unref();
    },
  };
}

/** A hold for one target about to be spawned with `command args` in `cwd` with `env`. */
export function createHold(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string = process.cwd(),
): Hold {
  const base = GROUPS ? cgroupBase() : undefined;
  const dir = base !== undefined && findable(command, env, cwd) ? makeCgroup(base) : undefined;
  return dir === undefined ? groupHold(command, args) : cgroupHold(dir, command, args);
}
