/**
 * Whole scans, every probe, against servers that misbehave: one that hangs, answers garbage or an
 * HTML 500, streams a huge answer, floods notifications and server→client requests, crashes mid
 * answer, says yes to everything, or echoes everything back. Each scan must end within its deadline
 * with a report that serialises, and must confirm nothing: a misbehaving server is never a finding.
 *
 * The HTTP faults sit in front of the fixture twins (`hostile-proxy.ts`), so the same scan without
 * the fault is known: the flawed twin is confirmed four times over, and only the fault stops it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startFixtureHttp } from '../../src/fixture/http.js';
import type { Mode } from '../../src/fixture/flaws.js';
import { PROBES } from '../../src/probe/runner/registry.js';
import { runScan } from '../../src/probe/runner/scan.js';
import type { RunReport } from '../../src/probe/model/report.js';
import type { Target } from '../../src/probe/model/target.js';
import { json } from '../../src/report/json.js';
import { startHostileProxy, type Fault } from '../servers/hostile-proxy.js';
import { startHttpServer } from '../servers/http-server.js';
import { stdioTarget } from './engine/helpers.js';
import { CLI_MAIN } from '../helpers/cli.js';

const DEADLINE_MS = 4000;
const TIMEOUT_MS = 700;
// Closing a stdio child that ignores EOF takes up to 1.8 s after the deadline (EOF, TERM, KILL).
const SLACK_MS = 2500;
const LIMIT = 30_000;

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'stateguard-robust-'));
const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(open.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

const scan = (
  target: Target,
  deadlineMs = DEADLINE_MS,
  timeoutMs = TIMEOUT_MS,
): Promise<RunReport> => runScan({ target, probes: PROBES, deadlineMs, timeoutMs });

/** A full report that serialises, within the deadline, with nothing confirmed. */
function expectSound(report: RunReport, deadlineMs = DEADLINE_MS): void {
  const text = JSON.stringify(report);
  expect(JSON.parse(json.render(report, { color: false, evidence: 'full' }))).toEqual(
    JSON.parse(text),
  );
  expect(report.probes.map((p) => p.id)).toEqual(PROBES.map((p) => p.id));
  expect(report.ms).toBeLessThanOrEqual(deadlineMs + SLACK_MS);
  const confirmed = report.probes.filter((p) => p.verdict === 'confirmed');
  expect(confirmed.map((p) => `${p.id}: ${p.reason}`)).toEqual([]);
  for (const p of report.probes) {
    expect(p.evidence.length).toBeGreaterThan(0);
    // A refutation drawn while a control failed would be a verdict from a broken instrument.
    if (p.verdict === 'refuted') expect(Object.values(p.controls).every((c) => c.held)).toBe(true);
  }
}

async function behindProxy(mode: Mode, fault: Fault, every = 1) {
  const fixture = await startFixtureHttp({ mode });
  const proxy = await startHostileProxy(fixture.url, { fault, every });
  open.push(proxy, fixture);
  return proxy;
}

// The probes whose verdicts these tables spell out: the handle and state probes that drive tool
// calls. The others (a flag or a peer missing, the Origin check) are held by `expectSound` only.
const CORE = [
  'handle/cross-principal',
  'state/tamper',
  'state/replay-principal',
  'state/replay-request',
];
const verdicts = (r: RunReport): string[] =>
  CORE.map((id) => r.probes.find((p) => p.id === id)?.verdict ?? 'missing');

describe('the flawed twin behind a proxy, every tools/call answer mangled', () => {
  it('is confirmed four times over when the proxy relays faithfully', async () => {
    const proxy = await behindProxy('flawed', 'none');
    // A generous deadline and answer timeout: this case is about verdicts, not about limits, and
    // probes side by side on a loaded machine can wait longer than the tight timeout below.
    const report = await scan({ kind: 'http', url: proxy.url }, 15_000, 5000);
    expect(verdicts(report)).toEqual(['confirmed', 'confirmed', 'confirmed', 'confirmed']);
  });

  it.each(['hang', 'garbage', 'html-500', 'huge', 'crash'] as const)(
    'with %s: every probe errored, none refuted, none confirmed',
    async (fault) => {
      const proxy = await behindProxy('flawed', fault);
      const report = await scan({ kind: 'http', url: proxy.url });
      expectSound(report);
      expect(proxy.faulted()).toBeGreaterThan(0);
      // No answer is a decision: not one probe may read the faults as a refusal.
      expect(verdicts(report)).toEqual(['errored', 'errored', 'errored', 'errored']);
    },
    LIMIT,
  );
});

describe('the fixed twin behind a proxy, every other tools/call answer mangled', () => {
  it.each(['hang', 'garbage', 'html-500', 'huge', 'crash'] as const)(
    'with %s: nothing confirmed, and no refutation without its controls',
    async (fault) => {
      const proxy = await behindProxy('fixed', fault, 2);
      const report = await scan({ kind: 'http', url: proxy.url });
      expectSound(report);
      expect(proxy.faulted()).toBeGreaterThan(0);
      expect(verdicts(report)).toContain('errored');
    },
    LIMIT,
  );
});

describe('notifications and server→client requests before every answer', () => {
  it(
    'a flood in front of the fixed twin changes nothing: every probe refuted',
    async () => {
      const proxy = await behindProxy('fixed', 'flood');
      // Every answer arrives (behind a flood): nothing here waits on a timeout, so the limits are
      // wide enough that a loaded machine cannot turn slowness into an error.
      const report = await scan({ kind: 'http', url: proxy.url }, 20_000, 5000);
      expectSound(report, 20_000);
      expect(proxy.faulted()).toBeGreaterThan(0);
      expect(verdicts(report)).toEqual(['refuted', 'refuted', 'refuted', 'refuted']);
    },
    LIMIT,
  );

  it(
    'a stdio server that asks the client first, with our id, is read past',
    async () => {
      expectSound(await scan(stdioTarget('request-first')));
    },
    LIMIT,
  );
});

describe('stdio servers that break', () => {
  it.each(['hang', 'hang-stubborn', 'garbage', 'crash-mid-answer', 'huge-line', 'nested'])(
    '%s: a full report within the deadline, nothing confirmed',
    async (scenario) => {
      const report = await scan(stdioTarget(scenario));
      expectSound(report);
      if (scenario.startsWith('hang') || scenario === 'garbage') {
        expect(verdicts(report)).toEqual(['errored', 'errored', 'errored', 'errored']);
        expect(report.problem).toBeDefined();
      }
      if (scenario === 'crash-mid-answer') expect(verdicts(report)).toContain('errored');
    },
    LIMIT,
  );
});

describe('servers that agree with everything', () => {
  it.each([
    ['yes', 'http'],
    ['yes', 'stdio'],
    ['echo', 'http'],
    ['echo', 'stdio'],
    ['echo-pretty', 'http'],
    ['echo-pretty', 'stdio'],
    ['echo-prose', 'http'],
    ['echo-fenced', 'stdio'],
    ['echo-string', 'http'],
    ['echo-base64', 'http'],
    ['echo-urlencoded', 'stdio'],
    ['echo-lines', 'http'],
    ['echo-resource', 'http'],
  ] as const)(
    '%s over %s: nothing confirmed',
    async (kind, transport) => {
      let target: Target = stdioTarget(kind);
      if (transport === 'http') {
        const server = await startHttpServer(kind);
        open.push(server);
        target = { kind: 'http', url: server.url };
      }
      const report = await scan(target);
      expectSound(report);
      // The surface was there and was driven: the probes ran, they did not skip for want of it.
      // (state/replay-request may skip: an echo server mints nothing that differs between two
      // identical calls, so its one flow has no second request to be sent on; the skip names it.)
      const core = verdicts(report).filter((_, i) => CORE[i] !== 'state/replay-request');
      expect(core).not.toContain('skipped');
      const rr = report.probes.find((p) => p.id === 'state/replay-request');
      if (rr?.verdict === 'skipped') expect(rr.reason).toContain('a second request');
      expect(report.probes.find((p) => p.id === 'state/error-oracle')?.verdict).not.toBe('skipped');
    },
    LIMIT,
  );
});

describe('through the CLI', () => {
  interface Run {
    code: number | null;
    stderr: string;
  }
  const cli = (args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [CLI_MAIN, 'scan', ...args], {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const killer = setTimeout(() => child.kill('SIGKILL'), LIMIT - 5000);
      child.on('close', (code) => {
        clearTimeout(killer);
        resolve({ code, stderr });
      });
    });
  const limits = ['--deadline', `${DEADLINE_MS}ms`, '--timeout', `${TIMEOUT_MS}ms`];

  it(
    'writes a JSON report for an echoing HTTP server, confirming nothing',
    async () => {
      const server = await startHttpServer('echo');
      open.push(server);
      const output = join(dir, 'echo.json');
      const run = await cli([
        '--http',
        server.url,
        '--format',
        'json',
        '--output',
        output,
        ...limits,
      ]);
      const report = JSON.parse(readFileSync(output, 'utf8')) as RunReport;
      expectSound(report);
      expect(run.code).not.toBe(1);
      expect(run.stderr).toContain('0 confirmed');
    },
    LIMIT,
  );

  it(
    'writes a JSON report for a stdio server that crashes mid answer, exit 4 (nothing decided)',
    async () => {
      const output = join(dir, 'crash.json');
      const target = stdioTarget('crash-mid-answer');
      if (target.kind !== 'stdio') throw new Error('unreachable');
      const line = [target.command, ...target.args].join(' ');
      const run = await cli(['--stdio', line, '--format', 'json', '--output', output, ...limits]);
      const report = JSON.parse(readFileSync(output, 'utf8')) as RunReport;
      expectSound(report);
      expect(run.code).toBe(4);
    },
    LIMIT,
  );
});
