/**
 * Suite "config-scan": what `--concurrency` buys. Sixteen fixture targets, each a process of its
 * own as configured servers are (the workspace twins in four modes over HTTP and stdio, and foreign
 * twins over stdio), are scanned as the servers of one client
 * configuration, whole (every probe), at concurrency 1, 4 and 8, in one run; the suite reports each
 * wall time and the speed-up over concurrency 1. Scanning N servers should cost about
 * N / concurrency single scans until the machine's cores are the limit.
 *
 * Verdicts are checked against each fixture's expectation on every pass: a faster pass that
 * decides differently (a loaded machine turning answers into timeouts) is counted and shown.
 */
import { spawn } from 'node:child_process';
import { expectedFor, type Mode } from '../../../src/fixture/flaws.js';
import { fixtureStdioCommand } from '../../fixture/stdio-command.js';
import { FOREIGN_TWINS } from '../../twins/foreign/index.js';
import { startForeign } from '../../twins/foreign/targets.js';
import { PROBES } from '../../../src/probe/runner/registry.js';
import type { ServerPlan } from '../../../src/cli/config/plan.js';
import { scanServers } from '../../../src/cli/config/scan-servers.js';
import { formatRatio, type BenchSuite, type Budget } from '../harness.js';

const TARGETS = 16;
const LEVELS = [1, 4, 8] as const;
/** The speed-up at concurrency 4 this suite expects on a machine with at least two free cores. */
const SPEEDUP_TARGET = 1.5;

interface Planned {
  readonly plan: ServerPlan;
  readonly expected: Readonly<Record<string, string>>;
}

function plan(
  name: string,
  target: ServerPlan['target'] & object,
  carrier?: ServerPlan['carrier'],
): ServerPlan {
  return {
    source: { name, file: 'bench.json', line: 1, format: 'generic' },
    transport: target.kind,
    target,
    display: name,
    headers: [],
    identities: {},
    secrets: [],
    warnings: [],
    ...(carrier === undefined ? {} : { carrier }),
  };
}

/**
 * A workspace twin over HTTP in a child process of its own, as a configured server would be (an
 * in-process fixture would share the scanner's one thread and understate the speed-up).
 */
function spawnHttpFixture(mode: Mode): Promise<{ url: string; close(): Promise<void> }> {
  const { command, args } = fixtureStdioCommand(mode);
  const child = spawn(
    command,
    args.map((a) => (a === 'stdio' ? 'http' : a)),
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const close = (): Promise<void> =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      void close();
      reject(new Error(`the ${mode} HTTP fixture did not start`));
    }, 30_000);
    child.once('exit', (code) => reject(new Error(`the ${mode} HTTP fixture exited ${code}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /\[fixture\] listening (\S+)/.exec(out)?.[1];
      if (url === undefined) return;
      clearTimeout(timer);
      resolve({ url, close });
    });
  });
}

/** The sixteen targets, each a process of its own (HTTP ones started); `close` stops them. */
async function targets(): Promise<{ list: Planned[]; close(): Promise<void> }> {
  const closers: (() => Promise<void>)[] = [];
  const list: Planned[] = [];
  const modes: Mode[] = ['flawed', 'fixed', 'noguard', 'opaque'];
  for (const mode of modes) {
    for (const transport of ['http', 'stdio'] as const) {
      const expected = expectedFor(mode, transport);
      if (transport === 'stdio') {
        const { command, args } = fixtureStdioCommand(mode);
        list.push({ plan: plan(`${mode} stdio`, { kind: 'stdio', command, args }), expected });
      } else {
        const f = await spawnHttpFixture(mode);
        closers.push(() => f.close());
        list.push({ plan: plan(`${mode} http`, { kind: 'http', url: f.url }), expected });
      }
    }
  }
  // The foreign twins over stdio: other SDKs and shapes, each spawned by the scan.
  const foreign = FOREIGN_TWINS.flatMap((twin) =>
    twin.transports.includes('stdio')
      ? twin.variants.slice(0, 2).map((variant) => ({ twin, variant }))
      : [],
  );
  for (const { twin, variant } of foreign) {
    if (list.length >= TARGETS) break;
    const started = await startForeign(twin, variant, 'stdio');
    list.push({
      plan: plan(`${twin.id} ${variant} stdio`, started.target, started.options),
      expected: twin.expected[variant] ?? {},
    });
  }
  return { list, close: async () => void (await Promise.all(closers.map((c) => c()))) };
}

/** The config-scan suite. */
export const configScanSuite: BenchSuite = {
  name: 'config-scan',
  summary: `${TARGETS} fixture targets scanned as one --config at concurrency ${LEVELS.join(', ')}`,
  async run(_budget: Budget) {
    const { list, close } = await targets();
    const plans = list.map((t) => t.plan);
    const walls = new Map<number, number>();
    const mismatches = new Map<number, string[]>();
    try {
      // One warm-up pass (module loading, the first stdio spawns), then each level once.
      await scanServers(plans, { probes: PROBES }, { concurrency: 8, configs: [] });
      for (const level of LEVELS) {
        const started = performance.now();
        const report = await scanServers(
          plans,
          { probes: PROBES },
          { concurrency: level, configs: [] },
        );
        walls.set(level, performance.now() - started);
        const wrong: string[] = [];
        report.servers.forEach((server, i) => {
          for (const [id, want] of Object.entries(list[i]?.expected ?? {})) {
            const got = server.probes.find((p) => p.id === id)?.verdict;
            if (got !== want) wrong.push(`${server.server?.name} ${id}: ${got}, expected ${want}`);
          }
        });
        mismatches.set(level, wrong);
      }
    } finally {
      await close();
    }
    const base = walls.get(1) ?? NaN;
    const speedup = (level: number): number => base / (walls.get(level) ?? NaN);
    const wrong = [...mismatches.values()].flat();
    return {
      tables: [
        {
          title: `${list.length} targets, every probe, one pass per concurrency`,
          columns: ['concurrency', 'wall s', 'per server ms', 'speed-up', 'verdicts off'],
          rows: LEVELS.map((level) => [
            String(level),
            ((walls.get(level) ?? NaN) / 1000).toFixed(1),
            ((walls.get(level) ?? NaN) / list.length).toFixed(0),
            formatRatio(speedup(level)),
            String(mismatches.get(level)?.length ?? 0),
          ]),
          notes: [
            `targets: ${list.map((t) => t.plan.source.name).join(', ')}`,
            'speed-up: wall time at concurrency 1 / wall time at this concurrency. Every target is',
            '  a process of its own; the cores (and their other load) bound the speed-up.',
            ...wrong.slice(0, 5).map((w) => `off: ${w}`),
          ],
        },
      ],
      checks: [
        {
          label: 'speed-up at concurrency 4 over concurrency 1',
          actual: formatRatio(speedup(4)),
          target: `≥ ${formatRatio(SPEEDUP_TARGET)}`,
          met: speedup(4) >= SPEEDUP_TARGET,
        },
        {
          label: 'verdicts as each fixture expects, at every concurrency',
          actual: String(wrong.length),
          target: '0 off',
          met: wrong.length === 0,
        },
      ],
    };
  },
};
