/**
 * The fault schedule: one window per fault kind, in order, each followed by a quiet gap in which
 * the fleet must recover on its own. Load runs throughout; `active()` tells the clients which
 * fault is on, so latencies are split by it and final rounds go twice during `replay`.
 *
 * After each gap, final rounds completed before the fault are sent again ("late replays"): a fault
 * that made the fleet forget which rounds were used (a ledger that lost its memory) would let one
 * through, and it would show as a double effect.
 */
import { startRedis, type RedisServer } from '../bench/redis-server.js';
import type { Load, LateReplays } from './clients.js';
import type { Fleet } from './fleet.js';

/** Every fault the soak injects, in schedule order. */
export const FAULT_KINDS = [
  'replay',
  'redis-restart',
  'redis-restart-fresh',
  'redis-pause',
  'instance-kill',
  'key-rotation',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** What happened in one fault window. */
export interface FaultEvent {
  readonly kind: FaultKind;
  readonly startedAt: number;
  readonly endedAt: number;
  /** What was done, in words. */
  readonly note: string;
  /** Final rounds used before the fault, sent again after its gap. */
  readonly late: LateReplays;
}

/** Options of {@link runFaults}. */
export interface FaultOptions {
  fleet: Fleet;
  /** The fleet's Redis; replaced by the restarted one. */
  redis: { current: RedisServer };
  load: Load;
  /** The ring the fleet rotates to (a new first key, the old one still opening). */
  rotatedKeys: readonly string[];
  kinds: readonly FaultKind[];
  /** Least length of a fault window. */
  windowMs: number;
  /** Quiet time after each window. */
  gapMs: number;
  /** How long Redis or an instance stays down, and how long Redis stays paused. */
  downMs: number;
  pauseMs: number;
  lateReplays: number;
  /** Called with the fault that starts, and '' when it ends. */
  setActive: (kind: FaultKind | '') => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

async function inject(kind: FaultKind, options: FaultOptions): Promise<string> {
  const { fleet, redis } = options;
  const victim = 1 % fleet.ports.length;
  switch (kind) {
    case 'replay':
      await sleep(options.windowMs);
      return 'every final round sent twice at once, alternately to one instance and to two';
    case 'redis-restart': {
      const { port } = redis.current;
      await redis.current.kill();
      await sleep(options.downMs);
      redis.current = await startRedis({ port });
      return `redis-server SIGKILLed, restarted on the same port after ${options.downMs} ms`;
    }
    case 'redis-restart-fresh': {
      // An instance that joins after the loss: it never saw the epoch the others knew. Load and the
      // late replays (round-robin through the proxy) reach it as they reach the survivors, so a
      // final round used before the loss may be replayed on it first.
      const { port } = redis.current;
      await fleet.kill(victim);
      await redis.current.kill();
      await sleep(options.downMs);
      redis.current = await startRedis({ port });
      await fleet.start(victim);
      return `instance ${victim} SIGKILLed, redis-server SIGKILLed and restarted empty, then instance ${victim} started fresh (no epoch seen)`;
    }
    case 'redis-pause':
      redis.current.pause();
      await sleep(options.pauseMs);
      redis.current.resume();
      return `redis-server SIGSTOPped for ${options.pauseMs} ms, then SIGCONT`;
    case 'instance-kill':
      await fleet.kill(victim);
      await sleep(options.downMs);
      await fleet.start(victim);
      return `instance ${victim} SIGKILLed mid-run, restarted after ${options.downMs} ms`;
    case 'key-rotation':
      for (let i = 0; i < fleet.ports.length; i += 1) {
        await fleet.restart(i, options.rotatedKeys);
      }
      return 'rolling restart (SIGTERM, drain, start) onto [new, old]';
  }
}

/** Run the schedule; resolves when the last gap is over. */
export async function runFaults(options: FaultOptions): Promise<FaultEvent[]> {
  const events: FaultEvent[] = [];
  for (const kind of options.kinds) {
    const startedAt = Date.now();
    options.setActive(kind);
    const note = await inject(kind, options);
    await sleep(startedAt + options.windowMs - Date.now());
    const endedAt = Date.now();
    options.setActive('');
    await sleep(options.gapMs);
    const late = await options.load.replayLate(options.lateReplays);
    events.push({ kind, startedAt, endedAt, note, late });
  }
  return events;
}
