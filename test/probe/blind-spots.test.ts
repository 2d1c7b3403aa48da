/**
 * The blind spots of the peer check (seed 004), each against a server built to fall into it: the
 * scanner must not confirm what it cannot attribute, and must not refute what it could not observe.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startFixtureHttp, type FixtureHttp } from '../../src/fixture/http.js';
import { PROBES } from '../../src/probe/registry.js';
import { runScan } from '../../src/probe/scan.js';
import type { RunReport } from '../../src/probe/types.js';
import {
  startProbeServer,
  type ProbeServer,
  type ProbeServerOptions,
} from '../servers/probe-server.js';

const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(open.map((s) => s.close()));
});

async function scanServer(
  options: ProbeServerOptions,
  extra: { includeDestructive?: boolean; timeoutMs?: number } = {},
): Promise<{ report: RunReport; server: ProbeServer }> {
  const server = await startProbeServer(options);
  open.push(server);
  const report = await runScan({
    target: { kind: 'http', url: server.url },
    probes: PROBES,
    ...extra,
  });
  return { report, server };
}

const verdicts = (r: RunReport) => Object.fromEntries(r.probes.map((p) => [p.id, p.verdict]));
const probe = (r: RunReport, id: string) => r.probes.find((p) => p.id === id)!;

describe('identities the server cannot tell apart never confirm', () => {
  let fixture: FixtureHttp;

  it('with the same identity sent twice, the two-identity probes end errored, naming the control', async () => {
    fixture = await startFixtureHttp({ mode: 'flawed' });
    open.push(fixture);
    const report = await runScan({
      target: { kind: 'http', url: fixture.url },
      probes: PROBES,
      identities: { A: 'same-identity-token', B: 'same-identity-token' },
    });
    for (const id of ['handle/cross-principal', 'state/replay-principal']) {
      const p = probe(report, id);
      expect(p.verdict).toBe('errored');
      expect(p.controls['serverTellsApart']?.held).toBe(false);
    }
  });

  it('against a server that ignores identity, the two-identity probes end errored', async () => {
    const { report } = await scanServer({ identity: 'ignore' });
    expect(verdicts(report)).toMatchObject({
      'handle/cross-principal': 'errored',
      'state/replay-principal': 'errored',
    });
    // The same server with identity honoured is caught: the control, not the server, made the difference.
    const honoured = await scanServer({ identity: 'honour' });
    expect(verdicts(honoured.report)).toMatchObject({
      'handle/cross-principal': 'confirmed',
      'state/replay-principal': 'confirmed',
    });
  });
});

describe('no decision on the key call is never a refusal', () => {
  it('an empty HTTP 500 on the cross-principal read and on every changed or replayed state: errored', async () => {
    const { report } = await scanServer({ fault: '500' });
    expect(Object.values(verdicts(report))).toEqual(['errored', 'errored', 'errored', 'errored']);
    expect(probe(report, 'state/tamper').controls['untouchedRetryAccepted']?.held).toBe(true);
  });

  it('a key call that never answers: errored, with the timeout named', async () => {
    const { report } = await scanServer({ fault: 'hang' }, { timeoutMs: 300 });
    expect(Object.values(verdicts(report))).toEqual(['errored', 'errored', 'errored', 'errored']);
    expect(probe(report, 'handle/cross-principal').reason).toMatch(/timeout/);
  });
});

describe('a signed state bound to nobody', () => {
  it('passes the tamper check but is caught replaying across principals and requests', async () => {
    const fixture = await startFixtureHttp({ mode: 'signed-unbound' });
    open.push(fixture);
    const report = await runScan({ target: { kind: 'http', url: fixture.url }, probes: PROBES });
    expect(verdicts(report)).toMatchObject({
      'state/tamper': 'refuted',
      'state/replay-principal': 'confirmed',
      'state/replay-request': 'confirmed',
    });
  });
});

describe('destructive tools', () => {
  it('are never called without the flag, and are called with it', async () => {
    const without = await scanServer({ destructive: true });
    for (const name of ['purge_workspace', 'tidy_workspace', 'snapshot_workspace']) {
      expect(without.server.calls[name] ?? 0).toBe(0);
    }
    expect(without.server.calls['export_workspace']).toBeGreaterThan(0);
    const withFlag = await scanServer({ destructive: true }, { includeDestructive: true });
    const destructiveCalls = ['purge_workspace', 'tidy_workspace', 'snapshot_workspace'].map(
      (n) => withFlag.server.calls[n] ?? 0,
    );
    expect(destructiveCalls.some((n) => n > 0)).toBe(true);
  });
});

describe('a server without the surface', () => {
  it('gets every probe skipped by the probe itself, with the precondition named', async () => {
    const { report } = await scanServer({ surface: false });
    expect(Object.values(verdicts(report))).toEqual(['skipped', 'skipped', 'skipped', 'skipped']);
    for (const p of report.probes) expect(p.reason).toMatch(/^precondition: /);
  });
});
