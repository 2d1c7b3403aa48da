/**
 * The experiments decide, and each of their controls is load-bearing: the naive JSON-state server
 * (the textbook flaw) is confirmed; a debug tool that prints its state and a server that never reads
 * its state stay unconfirmed; and with the reflection control or the noise baseline left out, those
 * two become false confirmations.
 */
import { describe, expect, it } from 'vitest';
import { findProbe } from '../../src/probe/runner/registry.js';
import { runScan } from '../../src/probe/runner/scan.js';
import type { ProbeSettings } from '../../src/probe/model/probe.js';
import type { ProbeResult } from '../../src/probe/model/report.js';
import { builtPath } from '../helpers/cli.js';

// This run's build of the server (test/helpers/built.ts): no tsx to load each time.
const SERVER = builtPath('test/servers/naive-state.ts');
const IDS = ['state/tamper', 'state/replay-principal', 'state/replay-request'];

async function scan(mode: string, settings: ProbeSettings = {}): Promise<ProbeResult[]> {
  const probes = IDS.map((id) => findProbe(id)!);
  const report = await runScan({
    target: { kind: 'stdio', command: process.execPath, args: [SERVER, mode] },
    probes,
    settings,
  });
  expect(report.probes).toHaveLength(IDS.length);
  return report.probes;
}
const byId = (rs: ProbeResult[], id: string): ProbeResult => rs.find((r) => r.id === id)!;

describe('verdicts from experiments', () => {
  it('confirms the naive JSON state on every probe, showing the difference and the control', async () => {
    const rs = await scan('json');
    for (const id of IDS)
      expect({ id, verdict: byId(rs, id).verdict }).toEqual({ id, verdict: 'confirmed' });
    const tamper = byId(rs, 'state/tamper');
    expect(tamper.reason).toMatch(
      /its answer changed \(.*planned for <identity-A>.*→.*planned for sg-state-/,
    );
    expect(tamper.controls['controlNotReflected']).toMatchObject({ held: true });
    // The random blob's answer differs from the untouched one, so the state is consulted.
    expect(tamper.observations.map((o) => o.label)).not.toContain('state not consulted');
  }, 60_000);

  it('keeps a debug tool that prints its state unconfirmed, and confirms it once the control is left out', async () => {
    const rs = await scan('print');
    for (const id of IDS) expect(byId(rs, id).verdict).not.toBe('confirmed');
    expect(byId(rs, 'state/tamper').observations.map((o) => o.label)).toContain(
      'shows back its state',
    );
    const ablated = await scan('print', { ablate: { reflection: true } });
    expect(byId(ablated, 'state/tamper').verdict).toBe('confirmed');
  }, 90_000);

  it('refutes a state never read back, noting it, and confirms it once the noise baseline is left out', async () => {
    const rs = await scan('never-noisy');
    const tamper = byId(rs, 'state/tamper');
    expect(tamper.verdict).toBe('refuted');
    expect(tamper.observations.map((o) => o.label)).toContain('state not consulted');
    const ablated = await scan('never-noisy', { ablate: { noise: true } });
    expect(byId(ablated, 'state/tamper').verdict).toBe('confirmed');
  }, 90_000);
});
