/**
 * A miniature of `npm run soak` (issue 14): a real fleet of child processes behind the round-robin
 * proxy, a real `redis-server`, official SDK clients, every fault kind once. The guarded fleet must
 * show no double effect and no lost flow; the unguarded one is the control that proves the replay
 * injection can double an effect at all.
 */
import { describe, expect, it } from 'vitest';
import { FAULT_KINDS } from '../../harness/soak/faults.js';
import { renderReport, summarize, verdictFailures } from '../../harness/soak/report.js';
import { DEFAULT_SOAK_OPTIONS, runSoak, type SoakResult } from '../../harness/soak/run.js';
import { announceRedisSkip, REDIS_SKIP_REASON } from '../helpers/redis.js';

announceRedisSkip('a miniature soak');

describe.skipIf(REDIS_SKIP_REASON !== undefined)('a miniature soak', () => {
  it('runs every fault once with zero double effects and zero lost flows on the guarded fleet', async () => {
    const result: SoakResult = await runSoak({
      ...DEFAULT_SOAK_OPTIONS,
      instances: 2,
      clients: 3,
      warmupSeconds: 0.5,
      cleanSeconds: 2,
      windowSeconds: 1.5,
      gapSeconds: 1,
      downMs: 500,
      pauseMs: 800,
      ledgerTimeoutMs: 300,
      roundTimeoutMs: 8_000,
      lateReplays: 4,
      maxFaultSeconds: 90,
    });
    const guarded = result.runs.find((run) => run.guarded);
    const unguarded = result.runs.find((run) => !run.guarded);
    if (guarded === undefined || unguarded === undefined) throw new Error('both fleets must run');
    const summary = summarize(guarded);
    const report = renderReport({ header: 'miniature soak', ...result });

    expect(verdictFailures(summary, result.faults), report).toEqual([]);
    expect(summary.doubleEffects, report).toBe(0);
    expect(summary.byStatus['lost'], report).toBe(0);
    expect(summary.byStatus['unexpected'], report).toBe(0);
    // Every fault ran, and each left its mark: the run was not a quiet one.
    expect(result.faults.map((f) => f.kind)).toEqual([...FAULT_KINDS]);
    expect(summary.byStatus['completed'], report).toBeGreaterThan(0);
    expect(summary.replayedFlows, report).toBeGreaterThan(0);
    expect(guarded.journal.rejects['replayed'] ?? 0, report).toBeGreaterThan(0);
    expect(guarded.journal.rejects['ledger-unavailable'] ?? 0, report).toBeGreaterThan(0);
    for (const fault of result.faults) {
      expect(fault.late.result, `${fault.kind}: a late replay was accepted\n${report}`).toBe(0);
    }
    // The control: without the guard the same replays create reports twice.
    expect(summarize(unguarded).doubleEffects, report).toBeGreaterThan(0);
  }, 180_000);
});
