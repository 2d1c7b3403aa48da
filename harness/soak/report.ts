/**
 * What a soak run shows: the flows as the clients saw them, the effects and refusals as the
 * instances journaled them, and the verdict. Pure: `main.ts` does the I/O.
 *
 * The verdict holds the guarded fleet to three zeros: no title created twice (double effects), no
 * flow left without an answer (lost), no answer outside the contract (unexpected: an error other
 * than the two frozen ones, a wrong result, a completed flow whose effect is not in any journal).
 * The unguarded fleet is measured, not judged: it is the baseline, and its double effects under
 * replay show that the injection bites.
 */
import { readFileSync } from 'node:fs';
import { FLOW_STATUSES, type FlowRecord, type RoundSample } from './clients.js';
import type { FaultEvent } from './faults.js';

/** The effects and refusals a fleet's instances journaled. */
export interface Journal {
  /** Reports created, by title. */
  readonly effects: ReadonlyMap<string, number>;
  /** Refusals logged by the guard, by reason. */
  readonly rejects: Readonly<Record<string, number>>;
}

/** One measured stretch of load on one fleet. */
export interface PhaseStats {
  readonly phase: string;
  readonly seconds: number;
  /** Answers each instance gave in this phase (counted at the proxy). */
  readonly perInstance: readonly number[];
}

/** Everything measured on one fleet. */
export interface FleetRun {
  readonly name: string;
  readonly guarded: boolean;
  readonly flows: readonly FlowRecord[];
  readonly samples: readonly RoundSample[];
  readonly journal: Journal;
  readonly phases: readonly PhaseStats[];
  /** Requests the proxy answered 502/504 itself. */
  readonly proxyFailures: number;
}

/** The figures the verdict is made of. */
export interface FleetSummary {
  readonly started: number;
  readonly byStatus: Readonly<Record<string, number>>;
  readonly refusedInvalid: number;
  readonly refusedInternal: number;
  readonly transportErrors: number;
  readonly effects: number;
  readonly doubleEffects: number;
  /** Completed flows whose report no journal shows. */
  readonly completedWithoutEffect: number;
  /** Reports created for flows the client saw refused or failed (the answer was lost, not the effect). */
  readonly effectsWithoutCompletion: number;
  readonly replayedFlows: number;
}

/** Read the journals of a fleet's instances. */
export function readJournals(paths: readonly string[]): Journal {
  const effects = new Map<string, number>();
  const rejects: Record<string, number> = {};
  for (const path of paths) {
    let text = '';
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      continue; // an instance that never wrote anything
    }
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const event = JSON.parse(line) as { kind: string; title?: string; reason?: string };
      if (event.kind === 'effect' && event.title !== undefined) {
        effects.set(event.title, (effects.get(event.title) ?? 0) + 1);
      } else if (event.kind === 'reject' && event.reason !== undefined) {
        rejects[event.reason] = (rejects[event.reason] ?? 0) + 1;
      }
    }
  }
  return { effects, rejects };
}

/** Count a fleet's flows and effects. */
export function summarize(run: FleetRun): FleetSummary {
  const byStatus: Record<string, number> = Object.fromEntries(FLOW_STATUSES.map((s) => [s, 0]));
  let refusedInvalid = 0;
  let refusedInternal = 0;
  let transportErrors = 0;
  let completedWithoutEffect = 0;
  let effectsWithoutCompletion = 0;
  for (const flow of run.flows) {
    byStatus[flow.status] = (byStatus[flow.status] ?? 0) + 1;
    if (flow.refusedWith === -32602) refusedInvalid += 1;
    if (flow.refusedWith === -32603) refusedInternal += 1;
    transportErrors += flow.transportErrors;
    const effects = run.journal.effects.get(flow.title) ?? 0;
    if (flow.status === 'completed' && effects === 0) completedWithoutEffect += 1;
    if (flow.status !== 'completed' && effects > 0) effectsWithoutCompletion += 1;
  }
  let effects = 0;
  let doubleEffects = 0;
  for (const count of run.journal.effects.values()) {
    effects += count;
    if (count > 1) doubleEffects += count - 1;
  }
  return {
    started: run.flows.length,
    byStatus,
    refusedInvalid,
    refusedInternal,
    transportErrors,
    effects,
    doubleEffects,
    completedWithoutEffect,
    effectsWithoutCompletion,
    replayedFlows: run.flows.filter((f) => f.replay !== undefined).length,
  };
}

/** The three zeros the guarded fleet must show, and the late replays that must all be refused. */
export function verdictFailures(summary: FleetSummary, faults: readonly FaultEvent[]): string[] {
  const failures: string[] = [];
  if (summary.doubleEffects > 0) failures.push(`${summary.doubleEffects} double effect(s)`);
  if ((summary.byStatus['lost'] ?? 0) > 0)
    failures.push(`${summary.byStatus['lost']} lost flow(s)`);
  if ((summary.byStatus['unexpected'] ?? 0) > 0) {
    failures.push(`${summary.byStatus['unexpected']} unexpected answer(s)`);
  }
  if (summary.completedWithoutEffect > 0) {
    failures.push(`${summary.completedWithoutEffect} completed flow(s) without an effect`);
  }
  const lateAccepted = faults.reduce((n, f) => n + f.late.result, 0);
  if (lateAccepted > 0) failures.push(`${lateAccepted} late replay(s) accepted`);
  return failures;
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i] as number;
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0)));
  return [
    line(header).join('  '),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.map((r) => line(r).join('  ')),
  ].join('\n');
}

const ms = (value: number) => (Number.isNaN(value) ? '-' : value.toFixed(1));

/** p50/p99 of answered rounds, split by fleet, phase and fault. */
function latencyRows(runs: readonly FleetRun[]): string[][] {
  const rows: string[][] = [];
  for (const run of runs) {
    const groups = new Map<string, number[]>();
    for (const s of run.samples) {
      const key =
        s.fault !== ''
          ? `during ${s.fault}`
          : s.phase === 'clean'
            ? 'no fault'
            : s.phase === 'faults'
              ? 'between faults'
              : s.phase;
      const list = groups.get(key) ?? [];
      list.push(s.ms);
      groups.set(key, list);
    }
    for (const [key, list] of groups) {
      const sorted = [...list].sort((a, b) => a - b);
      rows.push([
        run.name,
        key,
        String(sorted.length),
        ms(quantile(sorted, 0.5)),
        ms(quantile(sorted, 0.99)),
      ]);
    }
  }
  return rows;
}

function throughputRows(runs: readonly FleetRun[]): string[][] {
  const rows: string[][] = [];
  for (const run of runs) {
    for (const phase of run.phases) {
      const perSecond = phase.perInstance.map((n) => (n / phase.seconds).toFixed(1));
      const flows = run.flows.filter((f) => f.phase === phase.phase && f.status === 'completed');
      rows.push([
        run.name,
        phase.phase,
        phase.seconds.toFixed(1),
        perSecond.join(' / '),
        (flows.length / phase.seconds).toFixed(1),
      ]);
    }
  }
  return rows;
}

/** What `npm run soak` prints. */
export interface SoakReport {
  readonly header: string;
  readonly runs: readonly FleetRun[];
  readonly faults: readonly FaultEvent[];
  readonly seconds: number;
}

/** Render the report; the verdict line comes last. */
export function renderReport(report: SoakReport): string {
  const out: string[] = [report.header, ''];
  const summaries = report.runs.map((run) => ({ run, summary: summarize(run) }));
  const flowRows = summaries.map(({ run, summary: s }) => [
    run.name,
    String(s.started),
    String(s.byStatus['completed']),
    `${s.byStatus['refused']} (${s.refusedInvalid} / ${s.refusedInternal})`,
    `${s.byStatus['transport']} (${s.transportErrors})`,
    String(s.effects),
    String(s.doubleEffects),
    String(s.byStatus['lost']),
    String(s.byStatus['unexpected']),
  ]);
  out.push('flows (every flow ends completed, refused, or failed in transport; never lost)');
  out.push(
    table(
      [
        'fleet',
        'started',
        'completed',
        'refused (-32602 / -32603)',
        'transport (errors)',
        'effects',
        'DOUBLE',
        'LOST',
        'unexpected',
      ],
      flowRows,
    ),
  );
  for (const { run, summary: s } of summaries) {
    out.push(
      `  ${run.name}: ${s.replayedFlows} flows had their final round sent twice; ` +
        `${s.effectsWithoutCompletion} report(s) created whose answer the client never got; ` +
        `${run.proxyFailures} request(s) answered 502/504 by the proxy.`,
    );
  }
  out.push('');
  out.push('refusals by reason (the guarded instances\u2019 log; includes refused replay copies)');
  for (const run of report.runs.filter((r) => r.guarded)) {
    const reasons = Object.entries(run.journal.rejects).sort((a, b) => b[1] - a[1]);
    out.push(
      table(
        ['reason', 'count'],
        reasons.map(([reason, n]) => [reason, String(n)]),
      ),
    );
  }
  out.push('');
  out.push(
    'faults (each followed by a quiet gap, then late replays of final rounds used before it)',
  );
  const guardedFlows = report.runs.find((r) => r.guarded)?.flows ?? [];
  const refusedIn = (kind: string) =>
    String(guardedFlows.filter((f) => f.endedDuring === kind && f.status === 'refused').length);
  out.push(
    table(
      ['fault', 'what was done', 'flows refused in it', 'late replays', 'accepted'],
      report.faults.map((f) => [
        f.kind,
        f.note,
        refusedIn(f.kind),
        String(Object.values(f.late).reduce((a, b) => a + b, 0)),
        String(f.late.result),
      ]),
    ),
  );
  out.push('');
  out.push('latency per round (ms, answered rounds, client side, through the proxy)');
  out.push(table(['fleet', 'when', 'rounds', 'p50', 'p99'], latencyRows(report.runs)));
  out.push('');
  out.push(
    'throughput (answers per second per instance, at the proxy; completed flows per second)',
  );
  out.push(
    table(
      ['fleet', 'phase', 'seconds', 'rounds/s per instance', 'flows/s'],
      throughputRows(report.runs),
    ),
  );
  out.push('');
  const guarded = summaries.find(({ run }) => run.guarded);
  const failures = guarded ? verdictFailures(guarded.summary, report.faults) : ['no guarded fleet'];
  out.push(
    failures.length === 0
      ? `[ok] guarded fleet: 0 double effects, 0 lost flows, 0 unexpected answers, every late replay refused (${report.seconds.toFixed(0)} s)`
      : `[FAILED] guarded fleet: ${failures.join(', ')}`,
  );
  return out.join('\n');
}
