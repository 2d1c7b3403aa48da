/**
 * `state/replay-after-completion`: the final round sent twice. The sealed-and-bound twin without a
 * ledger completes twice (confirmed, two reports created); the fixed twin refuses the second time
 * (refuted); a server whose only flows are reads (prompts and resources) is skipped, the
 * precondition named. The verdicts on every mode and both transports are in the proof table.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { FOREIGN_TWINS } from '../../harness/twins/foreign/index.js';
import { startForeign, type ForeignTarget } from '../../harness/twins/foreign/targets.js';
import { startFixtureHttp, type FixtureHttp } from '../../src/fixture/http.js';
import { findProbe } from '../../src/probe/runner/registry.js';
import { runScan } from '../../src/probe/runner/scan.js';

const probe = findProbe('state/replay-after-completion');
if (probe === undefined) throw new Error('state/replay-after-completion is not registered');

const running: (FixtureHttp | ForeignTarget)[] = [];
afterAll(async () => {
  await Promise.all(running.map((r) => r.close()));
});

async function scanMode(mode: 'no-ledger' | 'fixed') {
  const fixture = await startFixtureHttp({ mode });
  running.push(fixture);
  const report = await runScan({ target: { kind: 'http', url: fixture.url }, probes: [probe!] });
  return { result: report.probes[0]!, stats: fixture.stats };
}

describe('state/replay-after-completion', () => {
  it('is confirmed when the final round completes twice, and the action happened twice', async () => {
    const { result, stats } = await scanMode('no-ledger');
    expect({ verdict: result.verdict, reason: result.reason }).toMatchObject({
      verdict: 'confirmed',
    });
    expect(result.reason).toMatch(/create_report/);
    expect(Object.values(result.controls).every((c) => c.held)).toBe(true);
    expect(stats.reportsCreated).toBeGreaterThanOrEqual(2);
    expect(stats.archiveCalls).toBe(0);
  });

  it('is refuted when the ledger refuses the second completion', async () => {
    const { result, stats } = await scanMode('fixed');
    expect({ verdict: result.verdict, reason: result.reason }).toMatchObject({
      verdict: 'refuted',
    });
    expect(result.reason).toMatch(/JSON-RPC error -32602/);
    expect(stats.reportsCreated).toBe(1);
  });

  it('is skipped, naming the precondition, when every flow is a read', async () => {
    const twin = FOREIGN_TWINS.find((t) => t.id === 'recipes-prompt');
    if (twin === undefined) throw new Error('no recipes-prompt twin');
    const started = await startForeign(twin, 'flawed', 'http');
    running.push(started);
    const report = await runScan({ target: started.target, probes: [probe!], ...started.options });
    const result = report.probes[0]!;
    expect(result.verdict).toBe('skipped');
    expect(result.reason).toMatch(/neither read-only nor idempotent/);
  });
});
