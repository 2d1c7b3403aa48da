/**
 * One soak run: a guarded fleet and the same fleet unguarded, each behind its own round-robin
 * proxy, both on one throwaway `redis-server`; clean load on both (interleaved), a replay window on
 * the unguarded fleet (the control: it must double), then the fault schedule on the guarded fleet.
 *
 * Everything is on 127.0.0.1, every phase is bounded in time and in flows, and everything started
 * here is stopped here, whatever happens.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedis, type RedisServer } from '../bench/redis-server.js';
import { provisionRedisLedger } from '../../src/ledger/redis.js';
import { createLoad, type Load } from './clients.js';
import { FAULT_KINDS, runFaults, type FaultEvent, type FaultKind } from './faults.js';
import { startFleet, type Fleet } from './fleet.js';
import { startProxy, type Proxy } from './proxy.js';
import { readJournals, type FleetRun, type PhaseStats } from './report.js';

/** The sizes of a run. Defaults fit a two-core machine in about two minutes. */
export interface SoakOptions {
  instances: number;
  clients: number;
  /** Unmeasured load per fleet before the clean phase, in seconds. */
  warmupSeconds: number;
  /** Clean load per fleet, in seconds (run in two interleaved halves). */
  cleanSeconds: number;
  /** Least length of each fault window, in seconds. */
  windowSeconds: number;
  /** Quiet recovery time after each fault, in seconds. */
  gapSeconds: number;
  downMs: number;
  pauseMs: number;
  ledgerTimeoutMs: number;
  /**
   * The ledgers' `clockSkewMs`. Every instance runs on this host's one clock, so the default is
   * small; after Redis loses its memory, tokens issued up to this long after the loss are refused.
   */
  clockSkewMs: number;
  /**
   * Skewed clocks: the instances' clocks run 0, +80 % and -80 % of `clockSkewMs` off the host's
   * (in turn), inside the allowance the ledgers are given.
   */
  skewedClocks: boolean;
  roundTimeoutMs: number;
  retries: number;
  /** Flows started at most per fleet, whatever the time. */
  maxFlows: number;
  lateReplays: number;
  /** Run the unguarded fleet too. */
  unguarded: boolean;
  faults: readonly FaultKind[];
  /** Hard bound of the fault phase, in seconds: load stops then even if a fault hangs. */
  maxFaultSeconds: number;
}

export const DEFAULT_SOAK_OPTIONS: SoakOptions = {
  instances: 3,
  clients: 8,
  warmupSeconds: 2,
  cleanSeconds: 20,
  windowSeconds: 5,
  gapSeconds: 4,
  downMs: 1_500,
  pauseMs: 2_000,
  ledgerTimeoutMs: 500,
  clockSkewMs: 1_000,
  skewedClocks: true,
  roundTimeoutMs: 10_000,
  retries: 2,
  maxFlows: 100_000,
  lateReplays: 16,
  unguarded: true,
  faults: FAULT_KINDS,
  maxFaultSeconds: 240,
};

/** What a run measured. */
export interface SoakResult {
  readonly runs: FleetRun[];
  readonly faults: FaultEvent[];
  readonly seconds: number;
}

interface Side {
  fleet: Fleet;
  proxy: Proxy;
  load: Load;
  phases: PhaseStats[];
  fault: FaultKind | '';
}

async function startSide(
  name: string,
  guarded: boolean,
  options: SoakOptions,
  shared: { keys: string[]; redisUrl: string; dir: string; tokens: string[] },
  cleanup: (() => Promise<void>)[],
): Promise<Side> {
  const fleet = await startFleet({
    name,
    size: options.instances,
    guarded,
    keys: shared.keys,
    redisUrl: shared.redisUrl,
    ledgerTimeoutMs: options.ledgerTimeoutMs,
    clockSkewMs: options.clockSkewMs,
    ...(options.skewedClocks
      ? { clockOffsetsMs: [0, 0.8, -0.8].map((f) => Math.round(f * options.clockSkewMs)) }
      : {}),
    tokens: shared.tokens,
    dir: shared.dir,
  });
  cleanup.push(() => fleet.stop());
  const proxy = await startProxy(fleet.ports);
  cleanup.push(() => proxy.close());
  const side: Side = { fleet, proxy, phases: [], fault: '', load: undefined as unknown as Load };
  side.load = await createLoad({
    url: proxy.url,
    clients: options.clients,
    tokens: shared.tokens,
    instances: options.instances,
    roundTimeoutMs: options.roundTimeoutMs,
    retries: options.retries,
    activeFault: () => side.fault,
  });
  cleanup.push(() => side.load.close());
  return side;
}

/** Load `side` until `done()`, and record what each instance served meanwhile. */
async function phase(side: Side, name: string, done: () => boolean, options: SoakOptions) {
  const before = [...side.proxy.served];
  const started = performance.now();
  await side.load.run(name, done, options.maxFlows);
  const seconds = (performance.now() - started) / 1000;
  const perInstance = side.proxy.served.map((n, i) => n - (before[i] ?? 0));
  const same = side.phases.find((p) => p.phase === name);
  if (same === undefined) side.phases.push({ phase: name, seconds, perInstance });
  else {
    const merged = same.perInstance.map((n, i) => n + (perInstance[i] ?? 0));
    side.phases[side.phases.indexOf(same)] = {
      phase: name,
      seconds: same.seconds + seconds,
      perInstance: merged,
    };
  }
}

const forMs = (ms: number) => {
  const deadline = Date.now() + ms;
  return () => Date.now() >= deadline;
};

function fleetRun(side: Side): FleetRun {
  return {
    name: side.fleet.guarded ? 'guarded' : 'unguarded',
    guarded: side.fleet.guarded,
    flows: side.load.flows,
    samples: side.load.samples,
    journal: readJournals(side.fleet.journals),
    phases: side.phases,
    proxyFailures: side.proxy.failed.value,
  };
}

/** Run a soak; `progress` receives one line per step (for stderr). */
export async function runSoak(
  options: SoakOptions,
  progress: (line: string) => void = () => {},
): Promise<SoakResult> {
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'stateguard-soak-'));
  const cleanup: (() => Promise<void>)[] = [];
  const redis: { current: RedisServer } = { current: await startRedis() };
  cleanup.push(() => redis.current.kill());
  // A Redis started for the soak has never served: declared new, so the fleet's first consume is
  // not fenced (its restarts, later, are not declared: there the fence is what is soaked).
  await provisionRedisLedger({ url: redis.current.url });
  try {
    const [oldKey, newKey] = [randomBytes(32), randomBytes(32)].map((k) => k.toString('base64url'));
    // Rotation step 1 is done before the run (every instance opens the new key); the fault is step
    // 2: the new key seals, the old one still opens.
    const shared = {
      keys: [oldKey as string, newKey as string],
      redisUrl: redis.current.url,
      dir,
      tokens: Array.from({ length: options.clients }, (_, i) => `soak-user-${i}`),
    };
    progress(`starting the guarded fleet (${options.instances} instances)`);
    const guarded = await startSide('guarded', true, options, shared, cleanup);
    const unguarded = options.unguarded
      ? await startSide('unguarded', false, options, shared, cleanup)
      : undefined;

    // Unmeasured warm-up, so that neither fleet pays the other's JIT and connection set-up.
    progress('warm-up');
    for (const side of [guarded, unguarded]) {
      await side?.load.run('warm-up', forMs(options.warmupSeconds * 1000), options.maxFlows);
    }
    const half = (options.cleanSeconds * 1000) / 2;
    for (let slice = 0; slice < 2; slice += 1) {
      progress(`clean load, slice ${slice + 1} of 2`);
      await phase(guarded, 'clean', forMs(half), options);
      if (unguarded) await phase(unguarded, 'clean', forMs(half), options);
    }
    if (unguarded) {
      progress('replay control on the unguarded fleet');
      unguarded.fault = 'replay';
      await phase(unguarded, 'replay-control', forMs(options.windowSeconds * 1000), options);
      unguarded.fault = '';
      await unguarded.fleet.stop();
    }

    progress(`faults on the guarded fleet: ${options.faults.join(', ')}`);
    let faultsDone = false;
    const hardDeadline = forMs(options.maxFaultSeconds * 1000);
    const load = phase(guarded, 'faults', () => faultsDone || hardDeadline(), options);
    let faults: FaultEvent[];
    try {
      faults = await runFaults({
        fleet: guarded.fleet,
        redis,
        load: guarded.load,
        rotatedKeys: [newKey as string, oldKey as string],
        kinds: options.faults,
        windowMs: options.windowSeconds * 1000,
        gapMs: options.gapSeconds * 1000,
        downMs: options.downMs,
        pauseMs: options.pauseMs,
        lateReplays: options.lateReplays,
        setActive: (kind) => {
          guarded.fault = kind;
          if (kind !== '') progress(`  fault: ${kind}`);
        },
      });
    } finally {
      faultsDone = true;
      await load;
    }
    const runs = [fleetRun(guarded), ...(unguarded ? [fleetRun(unguarded)] : [])];
    return { runs, faults, seconds: (performance.now() - started) / 1000 };
  } finally {
    for (const step of cleanup.reverse()) await step().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}
