/**
 * Suite "parallel-scan": what running probes side by side buys. A whole scan of every workspace
 * fixture mode, over HTTP and over stdio, once with `--serial` (every probe one after another, in
 * registry order) and once with the default plan (lanes side by side), interleaved round by round
 * and alternating which goes first. Per scan: wall time, the scanner's CPU time, and the requests
 * the report counts (discovery and probes; the opening is the same for both).
 *
 * The fixture runs in a process of its own (HTTP: the harness build's `harness/fixture/main.js
 * --transport http`; stdio: spawned by the scan), so the CPU measured is the scanner's alone.
 * Verdicts must agree between the two plans on every scan, or the suite throws: a fast scan that
 * decides otherwise is no answer.
 *
 * Requests are also set against the figures of the engine before this runner (commit ff45393,
 * measured with the same fixture and counted from the report's evidence), the goal being at most
 * 0.7× of them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { MODES, type Mode } from '../../../src/fixture/flaws.js';
import { fixtureStdioCommand } from '../../fixture/stdio-command.js';
import { PROBES } from '../../../src/probe/runner/registry.js';
import { runScan } from '../../../src/probe/runner/scan.js';
import type { RunReport } from '../../../src/probe/model/report.js';
import type { Target, TransportKind } from '../../../src/probe/model/target.js';
import { formatRatio, type BenchSuite, type Budget, type Check, type Table } from '../harness.js';

const ROUNDS = 3;
const WALL_TARGET = 0.5;
const REQUESTS_TARGET = 0.7;
const CPU_TARGET = 1;
const START_TIMEOUT_MS = 15_000;

/**
 * Requests (discovery and probes) of one whole scan with every probe, per mode and transport, by
 * the sequential engine at ff45393, the last commit before the parallel runner: counted from the
 * report's exchanges, except on the legacy modes, whose skipped probes each repeat the opening's
 * exchanges there; their figure is what that engine sends, as `--serial` still does.
 */
const BEFORE: Readonly<Record<string, number>> = {
  'flawed http': 75,
  'flawed stdio': 71,
  'fixed http': 112,
  'fixed stdio': 108,
  'noguard http': 116,
  'noguard stdio': 112,
  'opaque http': 83,
  'opaque stdio': 79,
  'signed-unbound http': 108,
  'signed-unbound stdio': 104,
  'legacy http': 19,
  'legacy stdio': 15,
  'broken-flow http': 63,
  'broken-flow stdio': 59,
  'no-origin http': 112,
  'no-origin stdio': 108,
  'no-ledger http': 112,
  'no-ledger stdio': 108,
  'leaky-errors http': 112,
  'leaky-errors stdio': 108,
  'legacy-unbound http': 19,
  'legacy-unbound stdio': 15,
};

interface Sample {
  readonly wall: number;
  readonly cpu: number;
  readonly requests: number;
  readonly verdicts: string;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? NaN;
};

/** The HTTP fixture in a child process: its URL once it listens, and a way to stop it. */
async function startHttpFixture(mode: Mode): Promise<{ url: string; stop(): void }> {
  const main = fileURLToPath(new URL('../../fixture/main.js', import.meta.url));
  const child: ChildProcess = spawn(
    process.execPath,
    [main, '--mode', mode, '--transport', 'http'],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const stop = (): void => void child.kill('SIGKILL');
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`the ${mode} fixture did not listen within ${START_TIMEOUT_MS} ms`));
    }, START_TIMEOUT_MS);
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      seen = (seen + chunk).slice(-4096);
      const found = /listening (\S+)/.exec(seen);
      if (found?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the ${mode} fixture exited (${code}) before it listened`));
    });
  });
  return { url, stop };
}

async function scanOnce(target: Target, serial: boolean): Promise<Sample> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const report: RunReport = await runScan({ target, probes: PROBES, serial });
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return {
    wall,
    cpu: (used.user + used.system) / 1000,
    requests: (report.requests?.survey ?? 0) + (report.requests?.probes ?? 0),
    verdicts: report.probes.map((p) => `${p.id}=${p.verdict}`).join(' '),
  };
}

interface Row {
  readonly label: string;
  readonly transport: TransportKind;
  readonly serial: Sample[];
  readonly parallel: Sample[];
  readonly before?: number;
}

async function measure(mode: Mode, transport: TransportKind): Promise<Row> {
  const label = `${mode} ${transport}`;
  const http = transport === 'http' ? await startHttpFixture(mode) : undefined;
  const { command, args } = fixtureStdioCommand(mode);
  const target: Target =
    http === undefined ? { kind: 'stdio', command, args } : { kind: 'http', url: http.url };
  const row: Row = { label, transport, serial: [], parallel: [], before: BEFORE[label] };
  try {
    await scanOnce(target, false); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [true, false] : [false, true];
      for (const serial of order)
        (serial ? row.serial : row.parallel).push(await scanOnce(target, serial));
    }
  } finally {
    http?.stop();
  }
  for (const sample of [...row.serial, ...row.parallel])
    if (sample.verdicts !== row.serial[0]?.verdicts)
      throw new Error(
        `${label}: the plans disagree:\n${row.serial[0]?.verdicts}\n${sample.verdicts}`,
      );
  return row;
}

const of = (samples: readonly Sample[], key: 'wall' | 'cpu' | 'requests'): number =>
  median(samples.map((s) => s[key]));

function table(rows: readonly Row[]): Table {
  return {
    title: `whole scans, every probe, --serial against side by side (median of ${ROUNDS} interleaved rounds)`,
    columns: [
      'mode',
      'serial ms',
      'parallel ms',
      'wall',
      'serial CPU ms',
      'parallel CPU ms',
      'CPU',
      'requests',
      'before',
      'requests/before',
    ],
    rows: rows.map((r) => {
      const requests = of(r.parallel, 'requests');
      return [
        r.label,
        of(r.serial, 'wall').toFixed(0),
        of(r.parallel, 'wall').toFixed(0),
        formatRatio(of(r.parallel, 'wall') / of(r.serial, 'wall')),
        of(r.serial, 'cpu').toFixed(0),
        of(r.parallel, 'cpu').toFixed(0),
        formatRatio(of(r.parallel, 'cpu') / of(r.serial, 'cpu')),
        `${of(r.serial, 'requests')} / ${requests}`,
        r.before === undefined ? '–' : String(r.before),
        r.before === undefined || r.before === 0 ? '–' : formatRatio(requests / r.before),
      ];
    }),
    notes: [
      'wall and CPU are parallel / serial; CPU is the scanner process alone (the fixture runs in',
      '  a process of its own); requests: discovery and probes, serial / parallel; before: the',
      '  same scan by the engine at ff45393 (sequential, before shared exchanges).',
    ],
  };
}

/** The median over `rows` of a per-row ratio. */
const ratioOver = (rows: readonly Row[], ratio: (r: Row) => number): number =>
  median(rows.map(ratio).filter((x) => Number.isFinite(x)));

function checks(rows: readonly Row[]): Check[] {
  const out: Check[] = [];
  for (const transport of ['http', 'stdio'] as const) {
    const on = rows.filter((r) => r.transport === transport);
    const wall = ratioOver(on, (r) => of(r.parallel, 'wall') / of(r.serial, 'wall'));
    const cpu = ratioOver(on, (r) => of(r.parallel, 'cpu') / of(r.serial, 'cpu'));
    out.push(
      {
        label: `${transport}: parallel wall / serial wall (median over modes)`,
        actual: formatRatio(wall),
        target: `≤ ${formatRatio(WALL_TARGET)}`,
        met: wall <= WALL_TARGET,
      },
      {
        label: `${transport}: parallel CPU / serial CPU (median over modes)`,
        actual: formatRatio(cpu),
        target: `≤ ${formatRatio(CPU_TARGET)}`,
        met: cpu <= CPU_TARGET,
      },
    );
  }
  const measured = rows.filter((r) => r.before !== undefined && r.before > 0);
  if (measured.length > 0) {
    const sum = (f: (r: Row) => number): number => measured.reduce((s, r) => s + f(r), 0);
    const ratio = sum((r) => of(r.parallel, 'requests')) / sum((r) => r.before ?? 0);
    out.push({
      label: 'requests of every scan, against the engine before (ff45393)',
      actual: formatRatio(ratio),
      target: `≤ ${formatRatio(REQUESTS_TARGET)}`,
      met: ratio <= REQUESTS_TARGET,
    });
  }
  return out;
}

/** The parallel-scan suite. */
export const parallelScanSuite: BenchSuite = {
  name: 'parallel-scan',
  summary: 'whole scans of every fixture mode, --serial against side by side, both transports',
  async run(_budget: Budget) {
    const rows: Row[] = [];
    for (const transport of ['http', 'stdio'] as const)
      for (const mode of MODES) rows.push(await measure(mode, transport));
    return { tables: [table(rows)], checks: checks(rows) };
  },
};
