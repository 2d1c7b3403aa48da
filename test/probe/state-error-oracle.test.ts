/**
 * `state/error-oracle`: refusals that name their reason are an oracle (the leaky twin, confirmed
 * with the differing answers side by side); the guard's one frozen error is not (fixed, refuted);
 * and what a refusal merely quotes of its own request never makes two answers differ (the echo
 * rule). Every mode on both transports is in the proof table.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startFixtureHttp, type FixtureHttp } from '../../src/fixture/http.js';
import { withoutEcho } from '../../src/probe/evidence/encodings.js';
import { findProbe } from '../../src/probe/runner/registry.js';
import { runScan } from '../../src/probe/runner/scan.js';
import { builtFixtureStdio } from '../helpers/cli.js';

const probe = findProbe('state/error-oracle');
if (probe === undefined) throw new Error('state/error-oracle is not registered');

const running: FixtureHttp[] = [];
afterAll(async () => {
  await Promise.all(running.map((r) => r.close()));
});

describe('state/error-oracle', () => {
  it('is confirmed over stdio when refusals name their reason, each answer shown', async () => {
    const { command, args } = builtFixtureStdio('leaky-errors');
    const report = await runScan({ target: { kind: 'stdio', command, args }, probes: [probe!] });
    const r = report.probes[0]!;
    expect({ verdict: r.verdict, reason: r.reason }).toMatchObject({ verdict: 'confirmed' });
    const shown = r.observations
      .filter((o) => o.label.startsWith('answer to '))
      .map((o) => o.detail);
    expect(shown.some((d) => d.includes('another user'))).toBe(true);
    expect(shown.some((d) => d.includes('integrity check'))).toBe(true);
    // Two refusals differ, so the noise control was sent, and held.
    expect(r.controls['sameFailureAlike']?.held).toBe(true);
  });

  it('is refuted when every refusal is the one frozen -32602', async () => {
    const fixture = await startFixtureHttp({ mode: 'fixed' });
    running.push(fixture);
    const report = await runScan({ target: { kind: 'http', url: fixture.url }, probes: [probe!] });
    const r = report.probes[0]!;
    expect(r.verdict).toBe('refuted');
    expect(r.reason).toMatch(/all 4 refusals alike/);
    // Nothing differs, so there is no difference for the noise control to guard: not sent.
    expect(r.controls['sameFailureAlike']).toBeUndefined();
    expect(r.observations.map((o) => o.label)).toContain('noise control not sent');
    const labels = r.evidence.flatMap((e) => ('label' in e ? [e.label] : []));
    expect(labels.some((l) => l.includes('random blob'))).toBe(true);
    expect(labels.some((l) => l.includes('second random blob'))).toBe(false);
  });

  it('compares refusals without what they quote of the request', () => {
    const sent = { requestState: 'Zk3aQ9xLmP2vR7tY', inputResponses: {} };
    const other = { requestState: 'Qq81LmNn0pWx5sTu', inputResponses: {} };
    expect(withoutEcho('bad state Zk3aQ9xLmP2vR7tY', sent)).toBe(
      withoutEcho('bad state Qq81LmNn0pWx5sTu', other),
    );
    expect(withoutEcho('state failed its integrity check', sent)).not.toBe(
      withoutEcho('state issued to another user', other),
    );
  });
});
