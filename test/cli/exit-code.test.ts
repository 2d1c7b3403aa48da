/**
 * The exit code of one scan: a run in which no probe decided anything (every probe skipped or
 * errored, or none ran) exits 4, ahead of 3 and 0, unless --allow-undecided; a confirmed finding
 * still exits 1 whatever else happened.
 */
import { describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../src/cli/scan-common.js';
import { nothingDecided, undecidedCount } from '../../src/probe/runner/decided.js';
import type { ProbeResult, RunReport } from '../../src/probe/model/report.js';
import type { Verdict } from '../../src/probe/model/probe.js';
import { report } from '../report/sample-report.js';

const withVerdicts = (verdicts: readonly Verdict[], extra: Partial<RunReport> = {}): RunReport => {
  const template = report.probes[0] as ProbeResult;
  const probes = verdicts.map((verdict, i) => ({ ...template, id: `p/${i}`, verdict }));
  return { ...report, ...extra, undecided: undecidedCount(probes), probes };
};

describe('the exit code of a scan', () => {
  it.each([
    [['skipped', 'skipped'], 4, 0],
    [['errored', 'skipped'], 4, 3],
    [['errored'], 4, 3],
    [[], 4, 0],
    [['refuted', 'errored'], 3, 3],
    [['refuted', 'skipped'], 0, 0],
    [['confirmed', 'skipped'], 1, 1],
    [['confirmed', 'errored'], 1, 1],
  ] as const)('%j exits %i, and %i with --allow-undecided', (verdicts, code, allowed) => {
    const r = withVerdicts(verdicts);
    expect(exitCodeOf(r)).toBe(code);
    expect(exitCodeOf(r, true)).toBe(allowed);
    expect(nothingDecided(r)).toBe(code === 4);
  });

  it('reads an unreachable target (a problem, every probe errored) as nothing decided', () => {
    const r = withVerdicts(['errored', 'errored'], { problem: 'connection refused' });
    expect(exitCodeOf(r)).toBe(4);
    expect(exitCodeOf(r, true)).toBe(3);
    expect(r.undecided).toBe(2);
  });
});
