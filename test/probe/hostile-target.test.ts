/**
 * Issue 15: a scan is safe to point at a hostile server. No control byte or bidi character the
 * target sent reaches stdout or stderr raw, in any format or evidence level, over either transport;
 * and tools that would run commands, fetch URLs or read files are not called without the opt-in,
 * while the handle probe still reaches its verdict on the ordinary pair.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBES } from '../../src/probe/runner/registry.js';
import { runScan } from '../../src/probe/runner/scan.js';
import type { RunReport } from '../../src/probe/model/report.js';
import type { Target } from '../../src/probe/model/target.js';
import { EVIDENCE_MODES, REPORT_FORMATS, REPORTERS } from '../../src/report/index.js';
import { builtPath, runCli } from '../helpers/cli.js';
import { EVIL, RISKY_TOOLS } from '../servers/hostile-target.js';
import { startHttpServer, type TestHttpServer } from '../servers/http-server.js';
import { stdioTarget } from './engine/helpers.js';

// C0 but tab and newline, DEL, C1, and the bidi marks, embeddings, overrides and isolates.
// eslint-disable-next-line no-control-regex
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const TRANSPORTS = ['http', 'stdio'] as const;
const RISKY_NAMES = RISKY_TOOLS.map((t) => t.name);

function calledTools(report: RunReport): string[] {
  const names: string[] = [];
  // Discovery's calls and every probe's.
  for (const evidence of [report.surface?.evidence ?? [], ...report.probes.map((p) => p.evidence)])
    for (const e of evidence) {
      const sent = e.kind === 'http' ? e.request.body : e.kind === 'jsonrpc' ? e.sent : undefined;
      const params = (sent as { method?: string; params?: { name?: unknown } } | undefined)?.params;
      if ((sent as { method?: string } | undefined)?.method === 'tools/call')
        names.push(String(params?.name));
    }
  return names;
}

describe('a target whose every string carries terminal controls and bidi overrides', () => {
  let server: TestHttpServer;
  const targets: Record<(typeof TRANSPORTS)[number], () => Target> = {
    http: () => ({ kind: 'http', url: server.url }),
    stdio: () => stdioTarget('hostile'),
  };
  const cliTarget = (t: (typeof TRANSPORTS)[number]): string[] =>
    t === 'http'
      ? ['--http', server.url]
      : ['--stdio', `${process.execPath} ${builtPath('test/servers/stdio-server.ts')} hostile`];
  beforeAll(async () => {
    server = await startHttpServer('hostile');
  });
  afterAll(async () => {
    await server?.close();
  });

  it.each(TRANSPORTS)(
    'over %s: every format at every evidence level renders no raw control byte, and JSON keeps the exact value',
    async (transport) => {
      const report = await runScan({ target: targets[transport](), probes: PROBES });
      expect(report.protocol.serverInfo?.name).toContain(EVIL.slice(0, 8));
      for (const format of REPORT_FORMATS)
        for (const evidence of EVIDENCE_MODES) {
          const out = REPORTERS[format].render(report, { color: false, evidence, all: true });
          expect(RAW.exec(out)?.[0], `${format} --evidence ${evidence}`).toBeUndefined();
        }
      const full = REPORTERS.text.render(report, { color: false, evidence: 'full' });
      expect(full).toContain('\\x1b]52;c;ZXZpbA==\\x07');
      expect(full).toContain('\\u202egnp.exe');
      const parsed = JSON.parse(REPORTERS.json.render(report, { color: false, evidence: 'full' }));
      expect(parsed).toEqual(JSON.parse(JSON.stringify(report)));
      expect(JSON.stringify(parsed)).toContain(JSON.stringify(EVIL).slice(1, -1));
    },
    60_000,
  );

  it.each(TRANSPORTS)(
    'over %s: the CLI writes no raw control byte to stdout or stderr, whatever the format',
    async (transport) => {
      const runs: [string, string[]][] = [
        ['text full', ['--evidence', 'full']],
        ['text summary', []],
        ['json', ['--format', 'json']],
        ['sarif full', ['--format', 'sarif', '--evidence', 'full', '--all']],
        ['junit full', ['--format', 'junit', '--evidence', 'full']],
      ];
      for (const [what, args] of runs) {
        const run = await runCli(['scan', ...cliTarget(transport), ...args]);
        expect(run.code, `${what}: ${run.stderr}`).not.toBe(2);
        expect(run.stdout.length, what).toBeGreaterThan(100);
        expect(RAW.exec(run.stdout)?.[0], `${what} stdout`).toBeUndefined();
        expect(RAW.exec(run.stderr)?.[0], `${what} stderr`).toBeUndefined();
      }
    },
    120_000,
  );

  it('escapes a control sequence quoted back in a usage error', async () => {
    // An argument cannot carry NUL; everything else of the sequence goes in.
    const run = await runCli(['scan', '--http', `nope${EVIL.replace('\u0000', '')}`]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('\\x1b[2K');
    expect(RAW.exec(run.stderr)?.[0]).toBeUndefined();
  });
});

describe('a target with unannotated command, URL-fetch and file tools next to a handle pair', () => {
  let server: TestHttpServer;
  beforeAll(async () => {
    server = await startHttpServer('risky');
  });
  afterAll(async () => {
    await server?.close();
  });
  const target = (transport: (typeof TRANSPORTS)[number]): Target =>
    transport === 'http' ? { kind: 'http', url: server.url } : stdioTarget('risky');

  it.each(TRANSPORTS)(
    'over %s: none of the three is called, the handle probe decides on the pair, and the report names all three as not called',
    async (transport) => {
      const report = await runScan({ target: target(transport), probes: PROBES });
      const called = calledTools(report);
      for (const name of RISKY_NAMES) expect(called).not.toContain(name);
      if (transport === 'http')
        for (const name of RISKY_NAMES) expect(server.calls[name]).toBeUndefined();
      const handle = report.probes.find((p) => p.id === 'handle/cross-principal');
      expect(handle?.verdict).toBe('refuted');
      expect(called).toContain('read_workspace');
      expect(report.uncalled?.map((u) => u.tool)).toEqual(RISKY_NAMES);
      const shown = REPORTERS.text.render(report, { color: false, evidence: 'none' });
      expect(shown).toMatch(/^call plan: .* · 3 left alone/m);
      for (const name of RISKY_NAMES)
        expect(shown).toMatch(
          new RegExp(`^    tool  ${name} .* left alone: --allow-tool ${name} `, 'm'),
        );
      const sarif = REPORTERS.sarif.render(report, { color: false, evidence: 'none' });
      for (const name of RISKY_NAMES) expect(sarif).toContain(`left alone: tool ${name} (`);
    },
    60_000,
  );

  it('calls them with --include-destructive, and then lists none as not called', async () => {
    const report = await runScan({
      target: target('http'),
      probes: PROBES,
      includeDestructive: true,
    });
    expect(report.uncalled).toBeUndefined();
    expect(calledTools(report).some((n) => RISKY_NAMES.includes(n))).toBe(true);
  }, 60_000);
});
