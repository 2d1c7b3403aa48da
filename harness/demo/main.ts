/**
 * `npm run demo`: start every fixture mode on both transports, scan each with every probe, and print
 * the verdict matrix (mode × probe × transport) next to what the fixture says each must be. Then
 * three targets that cannot answer (a missing command, a closed port, a hanging server) show that
 * the scanner ends within its deadline with `errored`, never a green verdict. The foreign twins,
 * the first attempts (harness/twins/first-attempts) and the task fixture (harness/twins/tasks) follow
 * as three more matrices.
 *
 * Exits 0 when every verdict is the expected one, 1 otherwise. Everything started is stopped.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { expectedFor, MODES, WITNESSED_PROBES } from '../../src/fixture/flaws.js';
import type { Mode } from '../../src/fixture/flaws.js';
import { startFixtureHttp } from '../../src/fixture/http.js';
import { findProbe, PROBES } from '../../src/probe/runner/registry.js';
import type { ProbeSettings } from '../../src/probe/model/probe.js';
import { FIXTURE_SERVER_INFO } from '../../src/fixture/server.js';
import { createWorkspaceDirectory } from '../../src/fixture/workspaces.js';
import { runScan } from '../../src/probe/runner/scan.js';
import type { RunReport } from '../../src/probe/model/report.js';
import type { Target, TransportKind } from '../../src/probe/model/target.js';
import { FOREIGN_TWINS, LEGACY_TWINS } from '../twins/foreign/index.js';
import { startForeign } from '../twins/foreign/targets.js';
import type { ForeignTwin } from '../twins/foreign/twin.js';
import { FIRST_ATTEMPT_TWINS } from '../twins/first-attempts/index.js';
import { taskFixture } from '../twins/tasks/index.js';
import { pool } from '../../src/cli/pool.js';

// Run built (node) or from source (tsx): spawn the matching CLI for the stdio fixtures.
const here = fileURLToPath(import.meta.url);
const fromSource = here.endsWith('.ts');
const cli = fileURLToPath(
  new URL(fromSource ? '../../src/cli/main.ts' : '../../src/cli/main.js', import.meta.url),
);
const nodeArgs = fromSource ? ['--import', 'tsx', cli] : [cli];

interface Row {
  readonly name: string;
  readonly transport: TransportKind;
  readonly report: RunReport;
  readonly expected?: Readonly<Record<string, string>>;
}

async function scanMode(mode: Mode, transport: TransportKind): Promise<Row> {
  const expected = expectedFor(mode, transport);
  if (transport === 'stdio') {
    const target: Target = {
      kind: 'stdio',
      command: process.execPath,
      args: [...nodeArgs, 'fixture', '--transport', 'stdio', '--mode', mode],
    };
    return { name: mode, transport, report: await runScan({ target, probes: PROBES }), expected };
  }
  const fixture = await startFixtureHttp({ mode });
  try {
    const report = await runScan({ target: { kind: 'http', url: fixture.url }, probes: PROBES });
    return { name: mode, transport, report, expected };
  } finally {
    await fixture.close();
  }
}

/** One foreign twin (servers written unlike the workspace twins) in one variant, over one transport. */
async function scanForeign(
  twin: ForeignTwin,
  variant: string,
  transport: TransportKind,
  extra: Readonly<Record<string, string>> = {},
): Promise<Row> {
  const started = await startForeign(twin, variant, transport);
  try {
    // A twin whose flaw lives on a tool the call plan leaves alone is scanned with the user's word
    // for it (--allow-tool), as its proof is.
    const report = await runScan({
      target: started.target,
      probes: PROBES,
      ...(twin.allowTools === undefined ? {} : { allowTools: twin.allowTools }),
      ...started.options,
    });
    const expected = { ...twin.expected[variant], ...extra };
    return { name: `${twin.id} ${variant}`, transport, report, expected };
  } finally {
    await started.close();
  }
}

/**
 * The probes that need more than a target: `state/expiry` with a one-second state lifetime and a
 * two-second `--expiry-wait`, and `state/cross-instance` with a peer (two islands, and a fleet that
 * shares its keys and workspaces). Each row runs only its probe; the other cells read `-`.
 */
async function scanExtras(): Promise<Row[]> {
  const expiry = findProbe('state/expiry');
  const hop = findProbe('state/cross-instance');
  if (expiry === undefined || hop === undefined) return [];
  const started: { close(): Promise<void> }[] = [];
  const http = async (options: Parameters<typeof startFixtureHttp>[0]): Promise<Target> => {
    const f = await startFixtureHttp(options);
    started.push(f);
    return { kind: 'http', url: f.url };
  };
  const stdio = (mode: Mode, extra: string[] = []): Target => ({
    kind: 'stdio',
    command: process.execPath,
    args: [...nodeArgs, 'fixture', '--transport', 'stdio', '--mode', mode, ...extra],
  });
  const wait = { expiryWaitMs: 2000 };
  const row = async (
    name: string,
    transport: TransportKind,
    target: Target,
    probe: typeof expiry,
    settings: ProbeSettings,
    verdict: string,
  ): Promise<Row> => ({
    name,
    transport,
    report: await runScan({ target, probes: [probe], settings }),
    expected: { [probe.id]: verdict },
  });
  try {
    const keys = randomBytes(32);
    const workspaces = createWorkspaceDirectory({
      policy: 'bound',
      keys,
      audience: FIXTURE_SERVER_INFO.name,
    });
    const [fleetA, fleetB] = [
      await http({ mode: 'fixed', keys, workspaces }),
      await http({ mode: 'fixed', keys, workspaces }),
    ];
    return await Promise.all([
      row(
        'fixed, ttl 1 s',
        'http',
        await http({ mode: 'fixed', stateTtlSeconds: 1 }),
        expiry,
        wait,
        'refuted',
      ),
      row('fixed, ttl 1 s', 'stdio', stdio('fixed', ['--state-ttl', '1']), expiry, wait, 'refuted'),
      row(
        'flawed, ttl 1 s',
        'http',
        await http({ mode: 'flawed', stateTtlSeconds: 1 }),
        expiry,
        wait,
        'confirmed',
      ),
      row(
        'flawed, ttl 1 s',
        'stdio',
        stdio('flawed', ['--state-ttl', '1']),
        expiry,
        wait,
        'confirmed',
      ),
      row(
        'fixed, two islands',
        'http',
        await http({ mode: 'fixed' }),
        hop,
        { peer: await http({ mode: 'fixed' }) },
        'confirmed',
      ),
      row(
        'fixed, two islands',
        'stdio',
        stdio('fixed'),
        hop,
        { peer: stdio('fixed') },
        'confirmed',
      ),
      row('fixed, a fleet', 'http', fleetA, hop, { peer: fleetB }, 'refuted'),
    ]);
  } finally {
    await Promise.all(started.map((f) => f.close()));
  }
}

/** Targets that cannot answer: each must end within its deadline, every probe errored. */
async function scanDead(): Promise<Row[]> {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/mcp`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const hanging = createServer(() => undefined);
  await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  const hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/mcp`;
  const errored = Object.fromEntries(PROBES.map((p) => [p.id, 'errored']));
  try {
    const missing: Target = { kind: 'stdio', command: 'stateguard-demo-no-such-server', args: [] };
    const [a, b, c] = await Promise.all([
      runScan({ target: missing, probes: PROBES }),
      runScan({ target: { kind: 'http', url: closedUrl }, probes: PROBES }),
      runScan({ target: { kind: 'http', url: hangingUrl }, probes: PROBES, deadlineMs: 2000 }),
    ]);
    return [
      { name: 'missing command', transport: 'stdio', report: a, expected: errored },
      { name: 'closed port', transport: 'http', report: b, expected: errored },
      { name: 'hanging (2 s)', transport: 'http', report: c, expected: errored },
    ];
  } finally {
    hanging.closeAllConnections();
    await new Promise<void>((resolve) => hanging.close(() => resolve()));
  }
}

function render(rows: readonly Row[]): { text: string; mismatches: string[] } {
  const ids = PROBES.map((p) => p.id);
  const width = [
    Math.max(16, ...rows.map((r) => r.name.length)),
    6,
    ...ids.map((id) => Math.max(id.length, 11)),
  ];
  const cell = (s: string, i: number): string => s.padEnd(width[i] ?? 12);
  const lines = [['target', 'via', ...ids].map(cell).join('  ').trimEnd()];
  const mismatches: string[] = [];
  for (const row of rows) {
    const cells = ids.map((id) => {
      const result = row.report.probes.find((p) => p.id === id);
      const got = result?.verdict ?? '-';
      const want = row.expected?.[id];
      if (want === undefined || want === got) return got;
      mismatches.push(
        `${row.name} (${row.transport}) ${id}: ${got}, expected ${want}: ${result?.reason ?? ''}`,
      );
      return `${got}≠${want}`;
    });
    lines.push([row.name, row.transport, ...cells].map(cell).join('  ').trimEnd());
  }
  return { text: lines.join('\n'), mismatches };
}

async function main(): Promise<number> {
  const started = performance.now();
  const unwitnessed = PROBES.filter((p) => !(WITNESSED_PROBES as readonly string[]).includes(p.id));
  const tasks = MODES.flatMap((mode) =>
    (['http', 'stdio'] as const).map((transport) => () => scanMode(mode, transport)),
  );
  const foreign = [...FOREIGN_TWINS, ...LEGACY_TWINS].flatMap((twin) =>
    twin.variants.flatMap((variant) =>
      twin.transports.map((transport) => () => scanForeign(twin, variant, transport)),
    ),
  );
  // First attempts: every host checks Origin, so transport/origin is refuted over HTTP.
  const firsts = FIRST_ATTEMPT_TWINS.flatMap((twin) =>
    twin.variants.flatMap((variant) =>
      twin.transports.map(
        (transport) => () =>
          scanForeign(
            twin,
            variant,
            transport,
            transport === 'http' ? { 'transport/origin': 'refuted' } : {},
          ),
      ),
    ),
  );
  const taskScans = taskFixture.variants.flatMap((variant) =>
    taskFixture.transports.map((transport) => () => scanForeign(taskFixture, variant, transport)),
  );
  const [rows, dead] = await Promise.all([pool(tasks, 6), scanDead()]);
  const extras = await scanExtras();
  const foreignRows = await pool(foreign, 6);
  const firstRows = await pool(firsts, 6);
  const taskRows = await pool(taskScans, 6);
  const workspace = render([...rows, ...extras, ...dead]);
  const others = render(foreignRows);
  const first = render(firstRows);
  const taskMatrix = render(taskRows);
  const mismatches = [
    ...workspace.mismatches,
    ...others.mismatches,
    ...first.mismatches,
    ...taskMatrix.mismatches,
  ];
  process.stdout.write(
    `stateguard demo: every fixture mode × both transports × every probe\n\n${workspace.text}\n\n` +
      `the foreign twins: other domains, names, shapes and SDKs (harness/twins/foreign)\n\n${others.text}\n\n` +
      `first attempts: first multi-round tools as SDK examples show them (harness/twins/first-attempts)\n\n${first.text}\n\n` +
      `tasks: a task store in each mode tasks ship in (harness/twins/tasks)\n\n${taskMatrix.text}\n\n`,
  );
  if (unwitnessed.length > 0) {
    process.stdout.write(`no fixture witness for: ${unwitnessed.map((p) => p.id).join(', ')}\n`);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  for (const line of mismatches) process.stdout.write(`  ${line}\n`);
  process.stdout.write(
    mismatches.length === 0
      ? `every verdict as expected (${seconds} s)\n`
      : `${mismatches.length} verdict(s) differ from the fixture's expectation (${seconds} s)\n`,
  );
  return mismatches.length === 0 ? 0 : 1;
}

process.exitCode = await main();
