/**
 * `state/expiry` with a lifetime of one second and a wait of two: the sealed twin refuses the late
 * state (refuted), the base64 twin honours it (confirmed), on both transports; a broken flow errs; without
 * `--expiry-wait` the probe is skipped, naming the flag; and the probe really waits. Each
 * scan waits two seconds, run side by side.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startFixtureHttp, type FixtureHttp } from '../../src/fixture/http.js';
import { findProbe } from '../../src/probe/runner/registry.js';
import { runScan } from '../../src/probe/runner/scan.js';
import type { ProbeResult } from '../../src/probe/model/report.js';
import type { Target } from '../../src/probe/model/target.js';
import { builtFixtureStdio } from '../helpers/cli.js';

const probe = findProbe('state/expiry');
if (probe === undefined) throw new Error('state/expiry is not registered');

const WAIT_MS = 2000;
const running: FixtureHttp[] = [];
afterAll(async () => {
  await Promise.all(running.map((r) => r.close()));
});

async function target(
  mode: 'fixed' | 'flawed' | 'broken-flow',
  transport: 'http' | 'stdio',
): Promise<Target> {
  if (transport === 'stdio') {
    const { command, args } = builtFixtureStdio(mode, ['--state-ttl', '1']);
    return { kind: 'stdio', command, args };
  }
  const fixture = await startFixtureHttp({ mode, stateTtlSeconds: 1 });
  running.push(fixture);
  return { kind: 'http', url: fixture.url };
}

async function scan(t: Target, expiryWaitMs?: number): Promise<ProbeResult> {
  const report = await runScan({
    target: t,
    probes: [probe!],
    deadlineMs: 10_000,
    ...(expiryWaitMs === undefined ? {} : { settings: { expiryWaitMs } }),
  });
  return report.probes[0]!;
}

describe('state/expiry', () => {
  it('refutes a sealed state refused after its lifetime, and confirms one honoured, on both transports', async () => {
    const cases = [
      ['fixed', 'http', 'refuted'],
      ['fixed', 'stdio', 'refuted'],
      ['flawed', 'http', 'confirmed'],
      ['flawed', 'stdio', 'confirmed'],
      // A flow that never works errs before any wait: the control names the untouched retry.
      ['broken-flow', 'http', 'errored'],
    ] as const;
    const results = await Promise.all(
      cases.map(async ([mode, transport]) => scan(await target(mode, transport), WAIT_MS)),
    );
    for (const [i, [mode, transport, verdict]] of cases.entries()) {
      const r = results[i]!;
      expect({ mode, transport, verdict: r.verdict, reason: r.reason }).toMatchObject({
        mode,
        transport,
        verdict,
      });
      if (verdict === 'errored') {
        expect(r.reason).toMatch(/untouched retry/);
        continue;
      }
      expect(Object.values(r.controls).every((c) => c.held)).toBe(true);
      expect(r.ms).toBeGreaterThanOrEqual(WAIT_MS);
      expect(
        r.evidence.some((e) => e.kind === 'note' && e.text.includes(`waiting ${WAIT_MS} ms`)),
      ).toBe(true);
    }
  }, 30_000);

  it('is skipped without --expiry-wait, naming the flag', async () => {
    const r = await scan(await target('flawed', 'http'));
    expect(r.verdict).toBe('skipped');
    expect(r.reason).toContain('--expiry-wait');
  });
});
