import { describe, expect, it } from 'vitest';
import type { Probe } from '../../../src/probe/model/probe.js';
import { defineProbe, refuted } from '../../../src/probe/model/probe.js';
import { runScan } from '../../../src/probe/runner/scan.js';
import { json } from '../../../src/report/json.js';
import { text } from '../../../src/report/text.js';
import { startHttpServer } from '../../servers/http-server.js';
import { IDS, stdioTarget } from './helpers.js';

// Calls echo as A and as B and refutes: enough to put both identities through the whole pipeline.
const twoCalls: Probe = defineProbe({
  id: 'test/two-calls',
  title: 'Calls echo as both identities',
  flaw: 'The flaw',
  severity: 'medium',
  rationale: 'Exercises a whole scan.',
  references: [],
  maxCalls: 4,
  async run(ctx) {
    const a = await ctx.request(
      'tools/call',
      { name: 'echo', arguments: { text: 'a' } },
      { identity: 'A', label: 'as A' },
    );
    const b = await ctx.request(
      'tools/call',
      { name: 'echo', arguments: { text: 'b' } },
      { identity: 'B', label: 'as B' },
    );
    if (a.outcome.kind === 'failure' || b.outcome.kind === 'failure') {
      return { verdict: 'errored', reason: 'a call failed' };
    }
    return refuted(`both answered: ${JSON.stringify(a.outcome)} / ${JSON.stringify(b.outcome)}`);
  },
});

describe('a whole scan', () => {
  it('skips every probe of a legacy server, naming the 2026-07-28 precondition', async () => {
    const report = await runScan({
      target: stdioTarget('legacy'),
      probes: [twoCalls],
      identities: IDS,
    });
    expect(report.protocol).toMatchObject({ era: 'legacy', protocolVersion: '2025-11-25' });
    expect(report.probes).toHaveLength(1);
    expect(report.probes[0]).toMatchObject({ id: 'test/two-calls', verdict: 'skipped' });
    expect(report.probes[0]?.reason).toContain('precondition: a 2026-07-28 server');
    expect(report.probes[0]?.evidence.length).toBeGreaterThan(0);
    expect(report.problem).toBeUndefined();
  });

  it('errors every probe of a missing command and still yields a full report', async () => {
    const report = await runScan({
      target: { kind: 'stdio', command: 'stateguard-no-such-command-31337', args: ['x'] },
      probes: [twoCalls],
    });
    expect(report.problem).toContain('ENOENT');
    expect(report.probes[0]).toMatchObject({ verdict: 'errored' });
    expect(report.probes[0]?.reason).toContain('server/discover (spawn');
    // The report carries the rule of each probe it has a result of: reporters read nothing else.
    expect(report.rules).toEqual([
      {
        id: 'test/two-calls',
        title: 'Calls echo as both identities',
        flaw: 'The flaw',
        severity: 'medium',
        rationale: 'Exercises a whole scan.',
        references: [],
      },
    ]);
    expect(JSON.parse(json.render(report, { color: false, evidence: 'full' }))).toMatchObject({
      schemaVersion: 1,
    });
  });

  it('ends a scan of a server that hangs on every call at the deadline, whatever the call timeout', async () => {
    const server = await startHttpServer('modern', () => 'hang');
    try {
      const report = await runScan({
        target: { kind: 'http', url: server.url },
        probes: [twoCalls],
        timeoutMs: 120_000,
        deadlineMs: 800,
      });
      expect(report.probes[0]).toMatchObject({ verdict: 'errored' });
      expect(report.problem).toContain('deadline');
      expect(report.problem).toContain('server/discover');
    } finally {
      await server.close();
    }
  });

  it('cuts a probe mid-flight at the deadline when only its calls hang (serial: the next is not run)', async () => {
    const server = await startHttpServer('modern', ({ message }) =>
      message.method === 'tools/call' ? 'hang' : undefined,
    );
    try {
      const report = await runScan({
        target: { kind: 'http', url: server.url },
        probes: [twoCalls, { ...twoCalls, id: 'test/second' }],
        timeoutMs: 120_000,
        deadlineMs: 1500,
        serial: true,
      });
      expect(report.protocol.era).toBe('modern');
      expect(report.probes.map((p) => p.verdict)).toEqual(['errored', 'errored']);
      expect(JSON.stringify(report.probes[0]?.evidence)).toContain(
        'deadline: the scan deadline (1500 ms, set by --deadline) passed',
      );
      expect(report.probes[1]?.reason).toContain(
        'not run: the scan deadline (1500 ms, set by --deadline) passed',
      );
    } finally {
      await server.close();
    }
  });

  it('cuts probes running side by side mid-flight at the deadline, and runs none again', async () => {
    const server = await startHttpServer('modern', ({ message }) =>
      message.method === 'tools/call' ? 'hang' : undefined,
    );
    try {
      const report = await runScan({
        target: { kind: 'http', url: server.url },
        probes: [twoCalls, { ...twoCalls, id: 'test/second' }],
        timeoutMs: 120_000,
        deadlineMs: 1500,
      });
      expect(report.probes.map((p) => p.verdict)).toEqual(['errored', 'errored']);
      for (const probe of report.probes) {
        expect(JSON.stringify(probe.evidence)).toContain(
          'deadline: the scan deadline (1500 ms, set by --deadline) passed',
        );
        // Each sent its one call before the deadline; nothing ran again after it.
        expect(probe.requests).toBe(1);
        expect(probe.observations.map((o) => o.label)).not.toContain('run again alone');
      }
      expect(report.requests?.probes).toBe(2);
    } finally {
      await server.close();
    }
  });

  it('runs a probe that ended errored beside another again alone, and the report names each', async () => {
    // The first two calls (one of each probe, side by side) get a 500; every later one is answered.
    let failed = 0;
    const server = await startHttpServer('modern', ({ message }) =>
      message.method === 'tools/call' && failed++ < 2 ? { raw: 'boom', status: 500 } : undefined,
    );
    try {
      const report = await runScan({
        target: { kind: 'http', url: server.url },
        probes: [twoCalls, { ...twoCalls, id: 'test/second' }],
      });
      expect(report.probes.map((p) => p.verdict)).toEqual(['refuted', 'refuted']);
      const again = report.probes
        .filter((p) => p.observations.some((o) => o.label === 'run again alone'))
        .map((p) => p.id);
      expect(again).toContain('test/two-calls');
      expect(report.rerunAlone).toEqual(again);
      expect(text.render(report, { color: false, evidence: 'none' })).toContain(
        `; run again alone: ${again.join(', ')}`,
      );
    } finally {
      await server.close();
    }
  });

  it('keeps both identities out of the report, the JSON and the text, even when the server echoes them', async () => {
    const server = await startHttpServer('modern');
    try {
      const report = await runScan({
        target: { kind: 'http', url: server.url },
        probes: [twoCalls],
        identities: IDS,
      });
      expect(report.probes[0]?.verdict).toBe('refuted');
      for (const out of [
        JSON.stringify(report),
        json.render(report, { color: false, evidence: 'full' }),
        text.render(report, { color: false, evidence: 'full' }),
      ]) {
        expect(out).not.toContain(IDS.A);
        expect(out).not.toContain(IDS.B);
        expect(out).toContain('<identity-A>');
        expect(out).toContain('<identity-B>');
      }
    } finally {
      await server.close();
    }
  });

  it('uses two distinct random identities when none are given', async () => {
    const server = await startHttpServer('modern');
    try {
      await runScan({ target: { kind: 'http', url: server.url }, probes: [twoCalls] });
      // The probe's own two calls, after discovery's (which calls as A).
      const bearers = server.seen
        .filter((s) => s.message.method === 'tools/call')
        .map((s) => s.headers.authorization)
        .slice(-2);
      expect(bearers).toHaveLength(2);
      expect(bearers[0]).toMatch(/^Bearer stateguard-a-/);
      expect(bearers[1]).toMatch(/^Bearer stateguard-b-/);
    } finally {
      await server.close();
    }
  });
});
