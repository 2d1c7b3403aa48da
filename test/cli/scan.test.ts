import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quote } from 'shell-quote';
import { afterAll, describe, expect, it } from 'vitest';
import { SCAN_OPTIONS } from '../../src/cli/scan-args.js';
import { foreignStdioCommand, foreignTwin } from '../../harness/twins/foreign/index.js';
import { expectedFor } from '../../src/fixture/flaws.js';
import { PROBES } from '../../src/probe/runner/registry.js';
import type { RunReport } from '../../src/probe/model/report.js';
import { builtPath, CLI_MAIN as MAIN, runCli } from '../helpers/cli.js';
import { startHttpServer } from '../servers/http-server.js';
import { sarifProblems } from '../report/sarif-structure.js';

const STDIO_SERVER = builtPath('test/servers/stdio-server.ts');
const NODE = process.execPath;
const SECRET_A = 'cli-alice-secret-5e1f';
const SECRET_B = 'cli-bob-secret-93ac';
const dir = mkdtempSync(join(tmpdir(), 'stateguard-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const stdioCmd = (scenario: string): string => `${NODE} ${STDIO_SERVER} ${scenario}`;

describe('stateguard scan usage', () => {
  it('documents every flag in --help and exits 0', async () => {
    const run = await runCli(['scan', '--help']);
    expect(run.code).toBe(0);
    for (const flag of Object.keys(SCAN_OPTIONS)) expect(run.stdout).toContain(`--${flag}`);
    for (const probe of PROBES) expect(run.stdout).toContain(probe.id);
  });

  it.each([
    [[], 'no target'],
    [['--http', 'http://127.0.0.1:1/mcp', '--stdio', 'x'], 'not both'],
    [['--http', 'not a url'], 'needs an http(s) URL'],
    [['--http', 'file:///etc/passwd'], 'needs an http(s) URL'],
    [['--stdio', 'x', '--frobnicate'], "Unknown option '--frobnicate'"],
    [
      ['--http', '--quiet'],
      "--http needs a value (for one that starts with '-', write --http=<value>)",
    ],
    [['--stdio', 'x', '--probe', 'state/nope'], "unknown probe 'state/nope'"],
    [['--stdio', 'x', '--format', 'xml'], "unknown --format 'xml'"],
    [['--stdio', 'server | tee log'], "runs no shell; remove '|'"],
    [['--stdio', 'x', '--timeout', '0'], '--timeout needs a unit'],
    [['--stdio', 'x', '--timeout', '0ms'], '--timeout must be at least 1ms'],
    [
      ['--http', 'http://127.0.0.1:1/mcp', '--http-connection', 'pooled'],
      "unknown --http-connection 'pooled'",
    ],
    [['--stdio', 'x', '--http-connection', 'fresh'], '--http-connection applies only to --http'],
    [
      ['--http', 'http://127.0.0.1:1/mcp', '--identity-header', 'X-Api-Key: secret'],
      "--identity-header takes 'Name: value' with {identity} in the value",
    ],
    [
      ['--http', 'http://127.0.0.1:1/mcp', '--identity-header', 'no colon {identity}'],
      "--identity-header takes 'Name: value' with {identity} in the value",
    ],
    [
      ['--stdio', 'x', '--identity-header', 'X-Api-Key: {identity}'],
      '--identity-header applies to --http targets only',
    ],
    [
      ['--http', 'http://127.0.0.1:1/mcp', '--identity-env', 'API_KEY'],
      '--identity-env applies to --stdio targets only',
    ],
    [
      ['--stdio', 'x', '--identity-env', 'not a name'],
      '--identity-env takes an environment variable name',
    ],
  ])('rejects %j with a one-line error, the help hint and exit 2', async (args, message) => {
    const run = await runCli(['scan', ...args]);
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(message);
    expect(lines[1]).toBe("Try 'stateguard scan --help'.");
    expect(run.stdout).toBe('');
  });
});

describe('stateguard scan exit codes and reports', () => {
  it('writes a JSON report with every probe errored and exits 4 (nothing decided) when the command is missing', async () => {
    const output = join(dir, 'missing.json');
    const run = await runCli([
      'scan',
      '--stdio',
      'stateguard-no-such-command-31337 --flag',
      '--format',
      'json',
      '--output',
      output,
    ]);
    expect(run.code).toBe(4);
    const report = JSON.parse(readFileSync(output, 'utf8')) as RunReport;
    expect(report.schemaVersion).toBe(1);
    expect(report.problem).toContain('ENOENT');
    expect(report.probes.map((p) => p.id)).toEqual(PROBES.map((p) => p.id));
    expect(report.probes.every((p) => p.verdict === 'errored')).toBe(true);
    expect(run.stderr).toContain(`0 confirmed · 0 refuted · 0 skipped · ${PROBES.length} errored`);
  });

  it('ends a scan of a hanging HTTP server at the deadline with exit 4 (nothing decided) and a JSON report', async () => {
    const server = await startHttpServer('modern', () => 'hang');
    try {
      const run = await runCli([
        'scan',
        '--http',
        server.url,
        '--format',
        'json',
        '--timeout',
        '60s',
        '--deadline',
        '1500ms',
      ]);
      expect(run.code).toBe(4);
      const report = JSON.parse(run.stdout) as RunReport;
      expect(report.problem).toContain('the scan deadline (1500 ms, set by --deadline) passed');
      expect(report.probes.every((p) => p.verdict === 'errored')).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('skips every probe of a legacy server: nothing decided, exit 4, and 0 with --allow-undecided', async () => {
    const run = await runCli(['scan', '--stdio', stdioCmd('legacy')]);
    expect(run.code).toBe(4);
    expect(run.stdout).toContain(
      `0 confirmed · 0 refuted · ${PROBES.length} skipped · 0 errored · nothing decided (target: stdio:`,
    );
    const allowed = await runCli(['scan', '--stdio', stdioCmd('legacy'), '--allow-undecided']);
    expect(allowed.code).toBe(0);
    expect(run.stdout).not.toContain('\u001b[');
    expect(run.stderr).toContain('stateguard: protocol era legacy');
  });

  it('exits 1 on a confirmed flaw and keeps identities from the environment out of every output', async () => {
    const fixture = `${NODE} ${MAIN} fixture --mode flawed --transport stdio`;
    const env = { STATEGUARD_IDENTITY_A: SECRET_A, STATEGUARD_IDENTITY_B: SECRET_B };
    const output = join(dir, 'flawed.json');
    const asJson = await runCli(
      ['scan', '--stdio', fixture, '--format', 'json', '--output', output],
      env,
    );
    const asText = await runCli(['scan', '--stdio', fixture, '--evidence', 'full'], env);
    expect(asJson.code).toBe(1);
    expect(asText.code).toBe(1);
    const json = readFileSync(output, 'utf8');
    for (const out of [json, asJson.stderr, asText.stdout, asText.stderr]) {
      expect(out).not.toContain(SECRET_A);
      expect(out).not.toContain(SECRET_B);
    }
    expect(json).toContain('<identity-A>');
    expect(asText.stdout).toContain('✗ CONFIRMED');
  });

  it('writes a valid SARIF log with one fail result per confirmed probe, exit 1', async () => {
    const fixture = `${NODE} ${MAIN} fixture --mode flawed --transport stdio`;
    const output = join(dir, 'flawed.sarif');
    const run = await runCli(['scan', '--stdio', fixture, '--format', 'sarif', '--output', output]);
    expect(run.code).toBe(1);
    const log = JSON.parse(readFileSync(output, 'utf8')) as {
      runs: { results: { ruleId: string; kind: string; level: string }[] }[];
    };
    expect(sarifProblems(log)).toEqual([]);
    const results = log.runs[0]?.results ?? [];
    // Without --all only confirmed probes are results: those the flawed twin confirms over stdio.
    const confirmed = Object.entries(expectedFor('flawed', 'stdio'))
      .filter(([, v]) => v === 'confirmed')
      .map(([id]) => id);
    expect(results.map((r) => r.ruleId).sort()).toEqual(confirmed.sort());
    expect(results.every((r) => r.kind === 'fail' && r.level !== 'none')).toBe(true);
  });

  it('writes JUnit with every probe skipped for a legacy server, exit 4', async () => {
    const run = await runCli([
      'scan',
      '--stdio',
      stdioCmd('legacy'),
      '--format',
      'junit',
      '--quiet',
    ]);
    expect(run.code).toBe(4);
    expect(run.stdout).toContain(`<property name="undecided" value="${PROBES.length}"/>`);
    expect(run.stdout).toContain(
      `tests="${PROBES.length}" failures="0" errors="0" skipped="${PROBES.length}"`,
    );
    // The era-free probes run there too, and are skipped for their own reasons (no handle; stdio).
    expect(run.stdout.match(/<skipped message="precondition: a 2026-07-28 server/g)).toHaveLength(
      PROBES.filter((p) => p.runsOnLegacy !== true).length,
    );
  });
});

describe('identities the way real servers take them, through the CLI', () => {
  it('scans a server that takes an X-Api-Key header, and one that reads its key from the environment', async () => {
    const twin = foreignTwin('drafts');
    if (twin === undefined) throw new Error('no drafts twin');
    const http = await twin.startHttp('flawed');
    try {
      const run = await runCli([
        'scan',
        '--http',
        http.url,
        '--identity-header',
        'X-Api-Key: {identity}',
        '--probe',
        'handle/cross-principal',
        '--format',
        'json',
        '--quiet',
      ]);
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout).probes[0].verdict).toBe('confirmed');
    } finally {
      await http.close();
    }
    const { command, args } = foreignStdioCommand('drafts', 'fixed');
    const run = await runCli([
      'scan',
      '--stdio',
      quote([command, ...args]),
      '--identity-env',
      'DRAFTS_API_KEY',
      '--probe',
      'handle/cross-principal',
      '--format',
      'json',
      '--quiet',
    ]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).probes[0].verdict).toBe('refuted');
  }, 60_000);
});
