/**
 * The flags users asked for: --skip-probe, --write-baseline, --header (--ca and --insecure are in
 * messages.test.ts, next to the TLS failures they answer).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedFor } from '../../src/fixture/flaws.js';
import { startFixtureHttp, type FixtureHttp } from '../../src/fixture/http.js';
import { quietLog } from '../../src/fixture/log.js';
import { PROBES } from '../../src/probe/runner/registry.js';
import type { RunReport } from '../../src/probe/model/report.js';
import { CLI_MAIN, runCli } from '../helpers/cli.js';
import { startHttpServer } from '../servers/http-server.js';

const dir = mkdtempSync(join(tmpdir(), 'stateguard-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fixture = (mode: string): string =>
  `${process.execPath} ${CLI_MAIN} fixture --mode ${mode} --transport stdio`;

type Transport = 'stdio' | 'http';
const TRANSPORTS: Transport[] = ['stdio', 'http'];
let http: FixtureHttp;
beforeAll(async () => {
  http = await startFixtureHttp({ mode: 'flawed', log: quietLog });
});
afterAll(() => http.close());
const flawed = (transport: Transport): string[] =>
  transport === 'stdio' ? ['--stdio', fixture('flawed')] : ['--http', http.url];

describe('--skip-probe', () => {
  it.each(TRANSPORTS)(
    '%s: leaves the named probes out of the run and the report',
    async (transport) => {
      const run = await runCli([
        'scan',
        ...flawed(transport),
        '--format',
        'json',
        '--quiet',
        '--skip-probe',
        'handle/cross-principal',
        '--skip-probe',
        'state/replay-request',
      ]);
      expect(run.code).toBe(1);
      const report = JSON.parse(run.stdout) as RunReport;
      expect(report.probes.map((p) => p.id)).toEqual(
        PROBES.map((p) => p.id).filter(
          (id) => id !== 'handle/cross-principal' && id !== 'state/replay-request',
        ),
      );
    },
  );
});

describe('--write-baseline', () => {
  it.each(TRANSPORTS)(
    "%s: writes today's confirmed findings for this target, which a later run accepts",
    async (transport) => {
      const file = join(dir, `baseline-${transport}.txt`);
      const first = await runCli([
        'scan',
        ...flawed(transport),
        '--write-baseline',
        file,
        '--quiet',
      ]);
      expect(first.code).toBe(1);
      const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
      const day = new Date().toISOString().slice(0, 10);
      const shown = transport === 'stdio' ? 'stdio:' : http.url;
      expect(lines[0]).toMatch(/^# stateguard baseline written \d{4}-\d{2}-\d{2} for /);
      expect(lines[0]?.slice(30, 40)).toBe(day);
      expect(lines[0]).toContain(` for ${shown}`);
      // Exactly the probes the flawed twin confirms over this transport, in registry order.
      const expected = expectedFor('flawed', transport);
      const confirmed = PROBES.map((p) => p.id).filter(
        (id) => expected[id as keyof typeof expected] === 'confirmed',
      );
      expect(confirmed.length).toBeGreaterThan(0);
      expect(lines.slice(1).map((l) => l.split('@')[0])).toEqual(confirmed);
      expect(lines.slice(1).every((l) => l.includes(`@${shown}`))).toBe(true);
      expect(first.stderr).toContain(`wrote ${confirmed.length} accepted findings to ${file}`);
      const second = await runCli(['scan', ...flawed(transport), '--baseline', file, '--quiet']);
      expect(second.code).toBe(0);
      expect(second.stdout).toContain(`(${confirmed.length} baselined)`);
    },
  );
});

describe('--header', () => {
  it('sends the header on every request and keeps its value out of the report', async () => {
    const server = await startHttpServer('modern');
    try {
      const run = await runCli([
        'scan',
        '--http',
        server.url,
        '--header',
        'X-Tenant: tenant-acme-7731',
        '--header',
        'X-Trace: t1',
        '--format',
        'json',
        '--quiet',
      ]);
      // Every request but transport/origin's, which carry no credential at all (docs/scanner.md).
      const headerCheck = (s: (typeof server.seen)[number]): boolean =>
        s.headers['authorization'] === undefined;
      const ordinary = server.seen.filter((s) => !headerCheck(s));
      expect(ordinary.length).toBeGreaterThan(0);
      expect(ordinary.every((s) => s.headers['x-tenant'] === 'tenant-acme-7731')).toBe(true);
      expect(ordinary.every((s) => s.headers['x-trace'] === 't1')).toBe(true);
      const checks = server.seen.filter(headerCheck);
      expect(checks.length).toBeGreaterThan(0);
      expect(checks.every((s) => s.headers['x-tenant'] === undefined)).toBe(true);
      expect(run.stdout).not.toContain('tenant-acme-7731');
      expect(run.stdout).toContain('<header X-Tenant>');
      expect(run.stdout).toContain('"x-trace": "<header X-Trace>"');
    } finally {
      await server.close();
    }
  });
});
