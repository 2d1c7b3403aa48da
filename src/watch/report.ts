/**
 * Judgements of a capture as the scanner's canonical {@link RunReport}, so `check` and `watch`
 * render through the scanner's reporters and exit as `scan` does: one `confirmed` result per
 * finding (pointing at its capture lines), one `refuted` result per judgement the traffic could
 * have shown and did not, one `skipped` result per judgement it had no material for.
 */
import { packageVersion } from '../probe/runner/version.js';
import type { ProbeResult, RunReport } from '../probe/model/report.js';
import type { TransportKind } from '../probe/model/target.js';
import type { CaptureLine } from './capture.js';
import type { Judged } from './judge.js';
import { JUDGEMENTS, judgementOf } from './judgements.js';

/** Most capture lines quoted as evidence of one finding. */
const QUOTED_LINES = 6;

/** What the report says of the capture judged. */
export interface CaptureSource {
  /** The capture file as named (SARIF points into it). */
  readonly file: string;
  readonly transport: TransportKind;
  /** The server the capture watched. */
  readonly target: string;
  readonly startedAt: string;
  readonly ms: number;
}

/** The report of `judged` over `lines`. */
export function captureReport(
  judged: Judged,
  lines: readonly CaptureLine[],
  source: CaptureSource,
): RunReport {
  const byLine = new Map(lines.map((l) => [l.n, l]));
  const probes: ProbeResult[] = [];
  for (const j of JUDGEMENTS) {
    const judgement = judgementOf(j.id);
    const base = {
      id: j.id,
      title: judgement.title,
      flaw: judgement.flaw,
      severity: judgement.severity,
      controls: {},
      observations: [],
      ms: 0,
    };
    const found = judged.findings.filter((f) => f.id === j.id);
    for (const f of found)
      probes.push({
        ...base,
        verdict: 'confirmed',
        reason: f.reason,
        lines: f.lines,
        evidence: f.lines.slice(0, QUOTED_LINES).map((n) => ({
          kind: 'note',
          text: `line ${n}: ${JSON.stringify(byLine.get(n) ?? null).slice(0, 2000)}`,
        })),
      });
    if (found.length > 0) continue;
    const why = judged.skipped[j.id];
    probes.push({
      ...base,
      verdict: why === undefined ? 'refuted' : 'skipped',
      reason: why ?? 'nothing in the traffic showed it',
      evidence: [],
    });
  }
  return {
    schemaVersion: 1,
    tool: { name: 'stateguard', version: packageVersion() },
    target: { kind: source.transport, display: source.target },
    protocol: { era: 'unknown', discover: false, toolNames: [] },
    startedAt: source.startedAt,
    ms: source.ms,
    undecided: probes.filter((p) => p.verdict === 'skipped').length,
    probes,
    rules: JUDGEMENTS.map((j) => {
      const { id, title, flaw, severity, rationale } = judgementOf(j.id);
      return { id, title, flaw, severity, rationale, references: [] };
    }),
    capture: source.file,
  };
}
