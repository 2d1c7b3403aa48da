/**
 * A fleet of example instances, each a child process (harness/soak/instance.ts) on a loopback port it
 * keeps across restarts, so the proxy in front never has to learn a new address.
 *
 * Killing is SIGKILL: no drain, no goodbye, connections reset by the kernel, as when a machine or a
 * container dies. Restarting with other keys is SIGTERM (a graceful stop, as a rolling deploy does)
 * and a fresh start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { nodeEntry } from '../node-entry.js';

const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 5_000;

/** Options of {@link startFleet}. */
export interface FleetOptions {
  /** Name of the fleet, in journal file names. */
  name: string;
  size: number;
  guarded: boolean;
  /** The key ring every instance starts with (the first seals). */
  keys: readonly string[];
  redisUrl: string;
  ledgerTimeoutMs: number;
  /** The ledger's `clockSkewMs`. */
  clockSkewMs: number;
  /** How far each instance's clock runs ahead of the host's: instance i gets entry i % length. */
  clockOffsetsMs?: readonly number[];
  /** Bearer tokens the instances accept, each its own user. */
  tokens: readonly string[];
  /** Where the journals go. */
  dir: string;
}

/** A running fleet. */
export interface Fleet {
  readonly name: string;
  readonly guarded: boolean;
  /** The port of each instance (stable across restarts). */
  readonly ports: readonly number[];
  /** The journal file of each instance (shared by its successive processes). */
  readonly journals: readonly string[];
  /** SIGKILL instance `i` and wait (bounded) for it to be gone. */
  kill(i: number): Promise<void>;
  /** Start instance `i` again on its port, with `keys` (default: the ring it last ran with). */
  start(i: number, keys?: readonly string[]): Promise<void>;
  /** Stop instance `i` gracefully (SIGTERM, bounded), then start it with `keys`. */
  restart(i: number, keys: readonly string[]): Promise<void>;
  /** Stop every instance (SIGTERM, then SIGKILL past the bound). */
  stop(): Promise<void>;
}

/** How to run the instance entry (see node-entry.ts). */
function instanceCommand(): string[] {
  return nodeEntry(import.meta.url, './instance.js');
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

interface Spawned {
  child: ChildProcess;
  port: number;
}

function spawnInstance(
  options: FleetOptions,
  journal: string,
  keys: readonly string[],
  index: number,
  port = 0,
) {
  const offsets = options.clockOffsetsMs ?? [0];
  const child = spawn(process.execPath, instanceCommand(), {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      PATH: process.env['PATH'] ?? '',
      SOAK_PORT: String(port),
      SOAK_KEYS: keys.join(','),
      SOAK_GUARDED: options.guarded ? '1' : '0',
      SOAK_REDIS_URL: options.redisUrl,
      SOAK_LEDGER_TIMEOUT_MS: String(options.ledgerTimeoutMs),
      SOAK_CLOCK_SKEW_MS: String(options.clockSkewMs),
      SOAK_CLOCK_OFFSET_MS: String(offsets[index % offsets.length] ?? 0),
      SOAK_TOKENS: options.tokens.join(','),
      SOAK_JOURNAL: journal,
    },
  });
  return new Promise<Spawned>((resolve, reject) => {
    let output = '';
    const fail = (why: string): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`soak instance did not start: ${why}\n${output.slice(-2000)}`));
    };
    const timer = setTimeout(() => fail('timed out'), START_TIMEOUT_MS);
    const onExit = (code: number | null) => fail(`exited with ${code}`);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const ready = /\[soak-instance\] ready (\d+)/.exec(output);
      if (ready !== null) {
        clearTimeout(timer);
        child.off('exit', onExit);
        resolve({ child, port: Number(ready[1]) });
      }
    });
    child.once('exit', onExit);
    child.once('error', (error) => fail(error.message));
  });
}

/** Start `size` instances; resolves once every one listens. */
export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const journals = Array.from({ length: options.size }, (_, i) =>
    join(options.dir, `${options.name}-${i}.jsonl`),
  );
  const rings = journals.map(() => [...options.keys]);
  const spawned = await Promise.all(
    journals.map((j, i) => spawnInstance(options, j, options.keys, i)),
  );
  const children: (ChildProcess | undefined)[] = spawned.map((s) => s.child);
  const ports = spawned.map((s) => s.port);

  const kill = async (i: number): Promise<void> => {
    const child = children[i];
    children[i] = undefined;
    if (child === undefined) return;
    child.kill('SIGKILL');
    await exited(child);
  };
  const start = async (i: number, keys?: readonly string[]): Promise<void> => {
    if (children[i] !== undefined) throw new Error(`instance ${i} is running`);
    if (keys !== undefined) rings[i] = [...keys];
    let lastError: unknown;
    // The port was just released; a start can lose a race for it, so try a few times.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        const { child } = await spawnInstance(
          options,
          journals[i] as string,
          rings[i] as string[],
          i,
          ports[i],
        );
        children[i] = child;
        return;
      } catch (error) {
        lastError = error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    throw lastError;
  };
  const terminate = async (i: number): Promise<void> => {
    const child = children[i];
    children[i] = undefined;
    if (child === undefined) return;
    child.kill('SIGTERM');
    await exited(child);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited(child);
    }
  };

  return {
    name: options.name,
    guarded: options.guarded,
    ports,
    journals,
    kill,
    start,
    async restart(i, keys) {
      await terminate(i);
      await start(i, keys);
    },
    async stop() {
      await Promise.all(children.map((_, i) => terminate(i)));
    },
  };
}
