/**
 * The blind spots of the peer check (seed 004), each against a server built to fall into it: the
 * scanner must not confirm what it cannot attribute, and must not refute what it could not observe.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startFixtureHttp, type FixtureHttp } from '../../src/fixture/http.js';
import { PROBES } from '../../src/probe/runner/registry.js';
import { runScan } from '../../src/probe/runner/scan.js';
import type { RunReport } from '../../src/probe/model/report.js';
import { startHostileProxy } from '../servers/hostile-proxy.js';
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
    probes: CORE,
    ...extra,
  });
  return { report, server };
}

// The blind spots here are the handle and state-binding probes'; the other probes have their own
// tests (a flag, a peer, or the transport's Origin check, which these test servers do not keep).
const CORE = PROBES.filter((p) =>
  [
    'handle/cross-principal',
    'state/tamper',
    'state/replay-principal',
    'state/replay-request',
  ].includes(p.id),
);

const verdicts = (r: RunReport) => Object.fromEntries(r.probes.map((p) => [p.id, p.verdict]));
const probe = (r: RunReport, id: string) => r.probes.find((p) => p.id === id)!;

describe('identities the server cannot tell apart never confirm', () => {
  let fixture: FixtureHttp;

  it('with the same identity sent twice, the two-identity probes end errored, naming the control', async () => {
    fixture = await startFixtureHttp({ mode: 'flawed' });
    open.push(fixture);
    const report = await runScan({
      target: { kind: 'http', url: fixture.url },
      probes: CORE,
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
  // The flow serves its owner only here: left open, it names A's label to B, a handle flaw of its
  // own that would confirm the handle probe whatever the read does.
  it('an empty HTTP 500 on the cross-principal read and on every changed or replayed state: errored', async () => {
    const { report } = await scanServer({ exportOwnerOnly: true, fault: '500' });
    expect(Object.values(verdicts(report))).toEqual(['errored', 'errored', 'errored', 'errored']);
    expect(probe(report, 'state/tamper').controls['untouchedRetryAccepted']?.held).toBe(true);
  });

  it('an HTTP 500 carrying a JSON-RPC internal error to the right id on the key call: errored, never refuted', async () => {
    const { report } = await scanServer({ exportOwnerOnly: true, fault: '500-rpc' });
    expect(Object.values(verdicts(report))).toEqual(['errored', 'errored', 'errored', 'errored']);
    expect(probe(report, 'handle/cross-principal').reason).toMatch(
      /HTTP 500 carrying JSON-RPC error -32603/,
    );
  });

  it('a key call that never answers: errored, with the timeout named', async () => {
    const { report } = await scanServer(
      { exportOwnerOnly: true, fault: 'hang' },
      { timeoutMs: 300 },
    );
    expect(Object.values(verdicts(report))).toEqual(['errored', 'errored', 'errored', 'errored']);
    expect(probe(report, 'handle/cross-principal').reason).toMatch(/timeout/);
  });
});

describe("data B sees anyway is never read as A's", () => {
  it("a public feed of every label is not A's canary reaching B: nothing confirmed", async () => {
    const { report } = await scanServer({ feed: true });
    expect(report.probes.filter((p) => p.verdict === 'confirmed').map((p) => p.reason)).toEqual([]);
    expect(verdicts(report)).toMatchObject({
      'handle/cross-principal': 'refuted',
      'state/replay-principal': 'refuted',
    });
  });

  it("A's data shown to any unknown or forged handle is not A's handle reaching B: refuted", async () => {
    // B's own reads show nothing of A's; only the forged read's answer shows that A's label reaches
    // B without A's handle. Drop it from what B sees anyway, and this reads as a confirmed hijack.
    const { report } = await scanServer({ unknownHandle: 'feed' });
    const p = probe(report, 'handle/cross-principal');
    expect(p.verdict).toBe('refuted');
    expect(p.controls['forgedHandleDecided']?.held).toBe(true);
    // The read that showed A's label to B was tried, and refuted, not confirmed.
    const notes = p.evidence.flatMap((e) => (e.kind === 'note' ? [e.text] : []));
    expect(notes).toContainEqual(expect.stringMatching(/→ read_workspace\.workspace_id: refuted/));
  });
});

describe('a forged handle that draws no decision is never passed over', () => {
  const handleProbe = PROBES.filter((p) => p.id === 'handle/cross-principal');

  // With the control always "decided", the unbound read would confirm: B gets A's label by A's handle.
  it.each([
    ['an empty HTTP 500', '500', {}],
    ['no answer at all', 'hang', { timeoutMs: 3_000 }],
  ] as const)(
    'a forged read answered with %s: errored, naming the forgedHandleDecided control',
    async (_label, unknownHandle, extra) => {
      const server = await startProbeServer({ unknownHandle, exportOwnerOnly: true });
      open.push(server);
      const report = await runScan({
        target: { kind: 'http', url: server.url },
        probes: handleProbe,
        ...extra,
      });
      const p = probe(report, 'handle/cross-principal');
      expect(p.verdict).toBe('errored');
      expect(p.controls['bothIdentitiesLive']?.held).toBe(true);
      expect(p.controls['forgedHandleDecided']?.held).toBe(false);
    },
  );
});

describe('input requests answered in the shape the server takes', () => {
  it.each(['bare', 'spec'] as const)(
    'a server that asks one way and takes only %s answers is still driven to its verdict',
    async (answers) => {
      const { report } = await scanServer({ answers });
      expect(verdicts(report)).toMatchObject({ 'state/tamper': 'confirmed' });
      const labels = probe(report, 'state/tamper').evidence.map((e) =>
        'label' in e ? e.label : '',
      );
      // The first shape was refused, and the other one tried, before the flow was called broken.
      const other = answers === 'bare' ? 'spec' : 'bare';
      expect(labels.some((l) => l.endsWith(`untouched retry (${other} answers)`))).toBe(true);
      expect(labels.some((l) => l.endsWith(`untouched retry (${answers} answers)`))).toBe(true);
    },
  );
});

describe('changed states sharing a round 1', () => {
  it('a state spent before it is checked makes the shared tries doubtful: they are sent again fresh, and the flaw is found', async () => {
    const { report } = await scanServer({ burnFirst: true });
    const tamper = probe(report, 'state/tamper');
    expect(tamper.verdict, tamper.reason).toBe('confirmed');
    const labels = tamper.evidence.map((e) => ('label' in e ? e.label : ''));
    // The control found the shared state spent, and the tries after the first were sent again.
    expect(labels.some((l) => l.startsWith('control: the state'))).toBe(true);
    expect(labels.some((l) => l.endsWith('(again, from a fresh round 1)'))).toBe(true);
  });

  it('a state a refusal leaves as it was needs no try sent again', async () => {
    const fixture = await startFixtureHttp({ mode: 'fixed' });
    open.push(fixture);
    const report = await runScan({
      target: { kind: 'http', url: fixture.url },
      probes: CORE.filter((p) => p.id === 'state/tamper'),
    });
    const tamper = probe(report, 'state/tamper');
    expect(tamper.verdict, tamper.reason).toBe('refuted');
    const labels = tamper.evidence.map((e) => ('label' in e ? e.label : ''));
    expect(labels.some((l) => l.startsWith('control: the state'))).toBe(true);
    expect(labels.some((l) => l.endsWith('(again, from a fresh round 1)'))).toBe(false);
    // Fewer round 1s than tries: they were shared.
    const round1s = labels.filter((l) => l.includes(': round 1 as A')).length;
    const tries = labels.filter((l) => l.startsWith('changed requestState')).length;
    expect(round1s).toBeLessThan(tries);
  });
});

describe('a signed state bound to nobody', () => {
  it('passes the tamper check but is caught replaying across principals and requests', async () => {
    const fixture = await startFixtureHttp({ mode: 'signed-unbound' });
    open.push(fixture);
    const report = await runScan({ target: { kind: 'http', url: fixture.url }, probes: CORE });
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

describe('an SSE answer with a progress notification before the response', () => {
  it('on every call, the key calls included, still yields the flawed and fixed verdicts', async () => {
    for (const [mode, verdict] of [
      ['flawed', 'confirmed'],
      ['fixed', 'refuted'],
    ] as const) {
      const fixture = await startFixtureHttp({ mode });
      const proxy = await startHostileProxy(fixture.url, { fault: 'progress-first' });
      open.push(proxy, fixture);
      const report = await runScan({ target: { kind: 'http', url: proxy.url }, probes: CORE });
      expect(Object.values(verdicts(report))).toEqual([verdict, verdict, verdict, verdict]);
      // Every answer came as SSE with the notification first: the evidence shows both, in order.
      const exchanges = report.probes.flatMap((p) => p.evidence).filter((e) => e.kind === 'http');
      expect(exchanges.length).toBeGreaterThan(0);
      for (const e of exchanges) {
        expect(e.response?.headers['content-type']).toContain('text/event-stream');
        expect(e.received?.[0]).toMatchObject({ method: 'notifications/progress' });
      }
    }
  });
});

describe('every verdict carries its evidence, not only a confirmation', () => {
  const exchanged = (r: RunReport, id: string) =>
    probe(r, id).evidence.filter((e) => e.kind === 'http' || e.kind === 'jsonrpc');

  it('refuted, skipped and errored results each keep the exchanges that back them', async () => {
    const fixed = await startFixtureHttp({ mode: 'fixed' });
    const broken = await startFixtureHttp({ mode: 'broken-flow' });
    open.push(fixed, broken);
    const refutedReport = await runScan({
      target: { kind: 'http', url: fixed.url },
      probes: CORE,
    });
    const erroredReport = await runScan({
      target: { kind: 'http', url: broken.url },
      probes: CORE,
    });
    const { report: skippedReport } = await scanServer({ surface: false });
    for (const p of refutedReport.probes) {
      expect(p.verdict).toBe('refuted');
      expect(exchanged(refutedReport, p.id).length).toBeGreaterThan(0);
    }
    for (const p of skippedReport.probes) {
      expect(p.verdict).toBe('skipped');
      expect(p.evidence.length).toBeGreaterThan(0);
    }
    // Discovery asked the tool before the probes skipped, and each skip says what it read.
    expect(skippedReport.surface?.evidence.length).toBeGreaterThan(0);
    expect(skippedReport.surface?.tried).toContain('get_time (accepted)');
    for (const p of skippedReport.probes) {
      expect(p.evidence).toContainEqual({
        kind: 'note',
        text: expect.stringContaining(
          'decided without a call; tools/list named 1 tool(s): get_time; discovery',
        ),
      });
    }
    for (const p of refutedReport.probes) {
      // A refutation is only as good as the controls that held while it was drawn.
      expect(Object.keys(p.controls).length).toBeGreaterThan(0);
      expect(Object.values(p.controls).every((c) => c.held)).toBe(true);
    }
    const stateProbes = ['state/tamper', 'state/replay-principal', 'state/replay-request'];
    for (const id of stateProbes) {
      expect(probe(erroredReport, id).verdict).toBe('errored');
      expect(exchanged(erroredReport, id).length).toBeGreaterThan(0);
      // The failed untouched retry is named and kept: the exchange that shows what went wrong.
      const labels = probe(erroredReport, id).evidence.map((e) => ('label' in e ? e.label : ''));
      expect(labels.some((l) => /untouched retry/.test(l))).toBe(true);
    }
  });
});
