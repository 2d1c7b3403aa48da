/**
 * Suite "scan-requests": how many requests a whole scan sends, and how long it takes, against the
 * workspace fixture in every mode over both transports, with `--include-destructive` (every probe,
 * both passes). Requests are counted twice: on the wire, by a loopback counter in front of the
 * fixture (an HTTP proxy; over stdio a pass-through process between the scan and the fixture), and
 * as the report counts them (`requests.total`, each probe's `requests`). The two must agree: a
 * request is one JSON-RPC request (a method and an id) the scanner sent; a shed request sent again
 * is one more on the wire, and the report counts those apart (`shed.retried`).
 *
 * Each figure is set beside the same scan's figures before the scan shared its setup between probes
 * (commit 724f1f3, measured with this suite at the start of that work: the scanner that cannot run
 * beside this one in one process), and the ratio is printed. Verdicts are checked against the
 * fixture's expectation on every scan: a scan that sends less and decides otherwise is no answer.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectedFor, MODES, type Mode } from '../../../src/fixture/flaws.js';
import { startFixtureHttp } from '../../../src/fixture/http.js';
import { fixtureStdioCommand } from '../../fixture/stdio-command.js';
import { PROBES } from '../../../src/probe/runner/registry.js';
import { runScan } from '../../../src/probe/runner/scan.js';
import type { RunReport } from '../../../src/probe/model/report.js';
import type { Target, TransportKind } from '../../../src/probe/model/target.js';
import { formatRatio, type BenchSuite, type Budget } from '../harness.js';
import { BASELINE_COMMIT, baselineCli, cliScanWall, currentCli } from '../baseline-scanner.js';

/**
 * The same scans at commit 724f1f3, the scanner before it shared its setup between probes (last
 * week's figures for issue 36), as this suite measured them once at that commit on the lead's
 * two-core machine (node 20, load about 16, so the walls are rough). Printed only when last week's
 * scanner is not built here (`npm run bench:baseline`); with it, both run live in this run.
 */
const RECORDED: Readonly<Record<string, { requests: number; wallMs: number }>> = {
  'flawed stdio': { requests: 91, wallMs: 3343 },
  'flawed http': { requests: 99, wallMs: 2733 },
  'fixed stdio': { requests: 159, wallMs: 3161 },
  'fixed http': { requests: 167, wallMs: 4407 },
  'noguard stdio': { requests: 165, wallMs: 2968 },
  'noguard http': { requests: 173, wallMs: 2616 },
  'opaque stdio': { requests: 112, wallMs: 2708 },
  'opaque http': { requests: 120, wallMs: 2090 },
  'signed-unbound stdio': { requests: 140, wallMs: 1890 },
  'signed-unbound http': { requests: 148, wallMs: 2734 },
  'legacy stdio': { requests: 21, wallMs: 1619 },
  'legacy http': { requests: 26, wallMs: 457 },
  'broken-flow stdio': { requests: 79, wallMs: 2232 },
  'broken-flow http': { requests: 87, wallMs: 1706 },
  'no-origin stdio': { requests: 159, wallMs: 3420 },
  'no-origin http': { requests: 163, wallMs: 2897 },
  'no-ledger stdio': { requests: 159, wallMs: 2851 },
  'no-ledger http': { requests: 167, wallMs: 2984 },
  'leaky-errors stdio': { requests: 147, wallMs: 3075 },
  'leaky-errors http': { requests: 155, wallMs: 4148 },
  'legacy-unbound stdio': { requests: 21, wallMs: 2122 },
  'legacy-unbound http': { requests: 26, wallMs: 556 },
};

/** Largest request body the counting proxy reads. */
const MAX_BODY = 1024 * 1024;

/** What the wire saw: JSON-RPC requests (a method and an id), and HTTP requests by method. */
export interface WireCount {
  readonly requests: number;
  readonly byMethod: Readonly<Record<string, number>>;
}

/** A fixture behind a counter: the target to scan, what passed so far, and a way to stop both. */
export interface CountedFixture {
  readonly target: Target;
  wire(): WireCount;
  close(): Promise<void>;
}

/** Counts the JSON-RPC requests (method and id) in one parsed message or batch. */
function countMessages(body: unknown, tally: Map<string, number>): number {
  const list = Array.isArray(body) ? body : [body];
  let n = 0;
  for (const m of list) {
    if (typeof m !== 'object' || m === null) continue;
    const { method, id } = m as { method?: unknown; id?: unknown };
    if (typeof method !== 'string' || (typeof id !== 'string' && typeof id !== 'number')) continue;
    n++;
    tally.set(method, (tally.get(method) ?? 0) + 1);
  }
  return n;
}

const snapshot = (n: number, tally: ReadonlyMap<string, number>): WireCount => ({
  requests: n,
  byMethod: Object.fromEntries(tally),
});

/** An HTTP proxy on 127.0.0.1 that forwards everything to `upstream` and counts requests. */
async function countingProxy(
  upstream: string,
): Promise<{ url: string; wire(): WireCount; close(): Promise<void> }> {
  const to = new URL(upstream);
  const tally = new Map<string, number>();
  let requests = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      try {
        requests += countMessages(JSON.parse(body.toString('utf8')), tally);
      } catch {
        // Not JSON (a GET, a DELETE, a malformed body): no JSON-RPC request.
      }
      const out = httpRequest(
        {
          host: to.hostname,
          port: to.port,
          path: req.url,
          method: req.method,
          headers: req.headers,
          agent: false,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.on('error', () => res.destroy());
      res.on('close', () => out.destroy());
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}${to.pathname}`,
    wire: () => snapshot(requests, tally),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A pass-through process (run with `node -e`): spawns the command after `--`, copies stdin to it
 * line by line and its stdout back, and after each JSON-RPC request rewrites the tally file, so
 * the count survives the scanner killing the process group.
 */
const STDIO_COUNTER = `
const { spawn } = require('node:child_process');
const { writeFileSync } = require('node:fs');
const [tallyFile, command, ...args] = process.argv.slice(1);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
const byMethod = {};
let requests = 0;
let rest = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  rest += chunk;
  let at;
  while ((at = rest.indexOf('\\n')) >= 0) {
    const line = rest.slice(0, at);
    rest = rest.slice(at + 1);
    try {
      const list = [].concat(JSON.parse(line));
      for (const m of list)
        if (m && typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number')) {
          requests++;
          byMethod[m.method] = (byMethod[m.method] || 0) + 1;
        }
      writeFileSync(tallyFile, JSON.stringify({ requests, byMethod }));
    } catch {}
    child.stdin.write(line + '\\n');
  }
});
process.stdin.on('end', () => child.stdin.end());
child.stdin.on('error', () => {});
child.stdout.pipe(process.stdout);
child.on('exit', (code) => process.exit(code ?? 1));
`;

/** The stdio fixture in `mode` behind the counting pass-through. */
function countedStdio(mode: Mode): CountedFixture {
  const dir = mkdtempSync(join(tmpdir(), 'sg-wire-'));
  const tallyFile = join(dir, 'tally.json');
  const { command, args } = fixtureStdioCommand(mode);
  return {
    target: {
      kind: 'stdio',
      command: process.execPath,
      args: ['-e', STDIO_COUNTER, tallyFile, command, ...args],
    },
    wire() {
      try {
        return JSON.parse(readFileSync(tallyFile, 'utf8')) as WireCount;
      } catch {
        return { requests: 0, byMethod: {} };
      }
    },
    close: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The fixture in `mode` over `transport`, every request it is sent counted on the way in. */
export async function countedFixture(
  mode: Mode,
  transport: TransportKind,
): Promise<CountedFixture> {
  if (transport === 'stdio') return countedStdio(mode);
  const fixture = await startFixtureHttp({ mode });
  const proxy = await countingProxy(fixture.url);
  return {
    target: { kind: 'http', url: proxy.url },
    wire: proxy.wire,
    async close() {
      await proxy.close();
      await fixture.close();
    },
  };
}

/** One counted scan: the report, what the wire saw, the wall time. */
export interface CountedScan {
  readonly report: RunReport;
  readonly wire: WireCount;
  readonly wallMs: number;
}

/** A whole scan (every probe, `--include-destructive`) of the fixture in `mode`, counted. */
export async function countedScan(mode: Mode, transport: TransportKind): Promise<CountedScan> {
  const fixture = await countedFixture(mode, transport);
  try {
    const started = performance.now();
    const report = await runScan({
      target: fixture.target,
      probes: PROBES,
      includeDestructive: true,
    });
    const wallMs = performance.now() - started;
    return { report, wire: fixture.wire(), wallMs };
  } finally {
    await fixture.close();
  }
}

/** Last week's figures for one cell, and this scanner's wall measured the same way. */
export interface Beside {
  readonly requests: number;
  readonly wallThenMs: number;
  readonly wallNowMs: number;
  readonly live: boolean;
}

/** The middle value of `values` (the mean of the two middle ones for an even count). */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * Both scanners' CLI on a fresh counted fixture each, in turn (which goes first alternates by
 * `turn`), so their walls share the start-up cost and the moment's load, `pairs` times (each wall
 * the median of its side); without last week's build, its recorded figures and this scan's
 * in-process wall.
 */
export async function lastWeekBeside(
  mode: Mode,
  transport: TransportKind,
  inProcessWallMs: number,
  turn: number,
  pairs = 1,
): Promise<Beside | undefined> {
  const then = baselineCli();
  if (then === undefined) {
    const recorded = RECORDED[`${mode} ${transport}`];
    if (recorded === undefined) return undefined;
    const { requests, wallMs } = recorded;
    return { requests, wallThenMs: wallMs, wallNowMs: inProcessWallMs, live: false };
  }
  const once = async (cli: string): Promise<{ wallMs: number; requests: number }> => {
    const fixture = await countedFixture(mode, transport);
    try {
      const wallMs = await cliScanWall(cli, fixture.target);
      return { wallMs, requests: fixture.wire().requests };
    } finally {
      await fixture.close();
    }
  };
  const olds: { wallMs: number; requests: number }[] = [];
  const nows: number[] = [];
  for (let pair = 0; pair < pairs; pair++) {
    const even = (turn + pair) % 2 === 0;
    const order = even ? [then, currentCli()] : [currentCli(), then];
    const [first, second] = [await once(order[0]!), await once(order[1]!)];
    const [old, now] = even ? [first, second] : [second, first];
    olds.push(old);
    nows.push(now.wallMs);
  }
  return {
    requests: olds[0]!.requests,
    wallThenMs: median(olds.map((o) => o.wallMs)),
    wallNowMs: median(nows),
    live: true,
  };
}

/**
 * Pairs of walls measured on the `flawed` fixture, whose wall the goal is about (the other
 * modes get one pair each): `BENCH_SCAN_WALL_PAIRS`, default 5.
 */
const FLAWED_PAIRS = Math.max(1, Number(process.env['BENCH_SCAN_WALL_PAIRS'] ?? '5') || 5);

/** The report's split of the requests: opening, survey, shared setup, probes. */
export function splitOf(report: RunReport): string {
  const r = report.requests;
  const shared = (r as { shared?: number } | undefined)?.shared ?? 0;
  return `${r?.opening ?? 0}+${r?.survey ?? 0}+${shared}+${r?.probes ?? 0}`;
}

/** Every probe's requests on one line, `id=n`. */
export function perProbe(report: RunReport): string {
  return report.probes.map((p) => `${p.id}=${p.requests ?? 0}`).join(' ');
}

/** The verdicts of a scan that differ from the fixture's expectation (empty: all as expected). */
export function unexpected(report: RunReport, mode: Mode, transport: TransportKind): string[] {
  return Object.entries(expectedFor(mode, transport)).flatMap(([id, want]) => {
    const got = report.probes.find((p) => p.id === id)?.verdict;
    return got === want ? [] : [`${id} was ${got}, expected ${want}`];
  });
}

/** The scan-requests suite. */
export const scanRequestsSuite: BenchSuite = {
  name: 'scan-requests',
  summary: `requests and wall of a whole scan, every fixture mode, both transports, against ${BASELINE_COMMIT}`,
  async run(_budget: Budget) {
    const rows: string[][] = [];
    const perProbeRows: string[][] = [];
    let flawedMax = 0;
    let flawedWallRatio = 0;
    let live = false;
    let turn = 0;
    const loadBefore = loadavg()[0] ?? 0;
    for (const mode of MODES)
      for (const transport of ['stdio', 'http'] as const) {
        const key = `${mode} ${transport}`;
        const { report, wire, wallMs } = await countedScan(mode, transport);
        const wrong = unexpected(report, mode, transport);
        if (wrong.length > 0) throw new Error(`${key}: ${wrong.join('; ')}`);
        const r = report.requests;
        const flawed = mode === 'flawed';
        const before = await lastWeekBeside(
          mode,
          transport,
          wallMs,
          turn++,
          flawed ? FLAWED_PAIRS : 1,
        );
        live ||= before?.live === true;
        if (flawed) flawedMax = Math.max(flawedMax, wire.requests);
        if (flawed && before !== undefined)
          flawedWallRatio = Math.max(flawedWallRatio, before.wallNowMs / before.wallThenMs);
        rows.push([
          key,
          String(before?.requests ?? '?'),
          String(wire.requests),
          String(r?.total ?? 0),
          before === undefined ? '?' : formatRatio(wire.requests / before.requests),
          before === undefined ? '?' : before.wallThenMs.toFixed(0),
          (before?.wallNowMs ?? wallMs).toFixed(0),
          before === undefined ? '?' : formatRatio(before.wallNowMs / before.wallThenMs),
          String(report.shed?.retried ?? 0),
        ]);
        perProbeRows.push([key, splitOf(report), perProbe(report)]);
      }
    return {
      tables: [
        {
          title: `whole scans with --include-destructive: ${BASELINE_COMMIT} against this scanner`,
          columns: [
            'fixture',
            'requests then',
            'wire now',
            'report now',
            'ratio',
            'wall then ms',
            'wall now ms',
            'ratio',
            'shed resent',
          ],
          rows,
          notes: [
            'wire: JSON-RPC requests (a method and an id) a loopback counter in front of the fixture',
            "  saw; report: the report's requests.total, the same definition, shed requests sent again",
            '  counted apart (shed resent). One scan each, fixture in process (HTTP) or a child (stdio).',
            live
              ? `then: ${BASELINE_COMMIT} built by npm run bench:baseline, run in this run; walls: both scanners' CLI, one scan each, in turn (flawed: the median of ${FLAWED_PAIRS} such pairs)`
              : `then: figures recorded at ${BASELINE_COMMIT} (load about 16); npm run bench:baseline runs it live beside this one`,
            `load average (1 min): ${loadBefore.toFixed(1)} at the start, ${(loadavg()[0] ?? 0).toFixed(1)} at the end`,
          ],
        },
        {
          title: 'where the requests go (this scanner)',
          columns: [
            'fixture',
            'opening+survey+shared+probes',
            'per probe (its own, on top of the shared setup)',
          ],
          rows: perProbeRows,
        },
      ],
      checks: [
        {
          label: 'requests of a whole scan of the flawed fixture (either transport)',
          actual: String(flawedMax),
          target: '≤ 45',
          met: flawedMax <= 45,
        },
        ...(live
          ? [
              {
                label: `wall of a whole scan of the flawed fixture against ${BASELINE_COMMIT}'s (either transport, medians)`,
                actual: formatRatio(flawedWallRatio),
                target: '≤ 0.50×',
                met: flawedWallRatio <= 0.5,
              },
            ]
          : []),
      ],
    };
  },
};
