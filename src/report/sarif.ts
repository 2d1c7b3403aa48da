/**
 * SARIF 2.1.0: a projection of the {@link RunReport} for code-scanning dashboards.
 *
 * Rules come from the report's own rules, once per id (rationale, references, severity), so a
 * dashboard shows why a probe exists next to what it found. Results, by verdict:
 * - `confirmed`: `kind: "fail"`, `level` from the probe's severity;
 * - `errored`: `kind: "open"` (level `none`), and a tool-execution notification at level `error`,
 *   with `executionSuccessful: false`: an errored probe is an unfinished check, never a pass;
 * - `refuted` (`kind: "pass"`) and `skipped` (`kind: "notApplicable"`) only with `--all`, because
 *   some consumers reportedly ignore `kind` and would raise every result as a finding.
 *
 * With `--baseline`, every result carries `baselineState` and `suppressions` (SARIF requires both to
 * be on every result of a run or on none): a `confirmed` result the baseline accepts is `unchanged`
 * with one accepted `external` suppression, so dashboards drop it from their counts while the log
 * keeps it; the `refuted` result of a stale entry is `absent`; everything else is `new` with no
 * suppression. Each stale entry is also an error notification, as it fails the run. Without a
 * baseline, none of this appears.
 *
 * Every result points at a file, as GitHub code scanning requires (sarif-location.ts says which),
 * beside the logical location that names the target, and carries two fingerprints: ours, and the
 * `primaryLocationLineHash` GitHub matches alerts by, both from the probe and the target (or the
 * configuration entry), never from the text of a line.
 */
import { createdSentence } from './created.js';
import { headline } from './headline.js';
import { notScannedReasons } from './matrix.js';
import { undecidedCount } from '../probe/runner/decided.js';
import { createHash } from 'node:crypto';
import type {
  Invocation,
  Log,
  Notification,
  ReportingDescriptor,
  Result,
  Run,
  Suppression,
} from 'sarif';
import { entryProbeId, STALE_REASON } from '../probe/runner/baseline.js';
import type { CallPlan } from '../probe/model/tools.js';
import type { CombinedReport, ProbeResult, ReportRule, RunReport } from '../probe/model/report.js';
import type { Verdict } from '../probe/model/probe.js';
import { evidenceLine } from './evidence-lines.js';
import { clipRaw, leftAloneLine, PLAN_ELSEWHERE, planCounts, planGroups, reachOf } from './plan.js';
import { placeOf, pseudoPath, repoRelative, SRCROOT, type SarifPlace } from './sarif-location.js';
import type { RenderOptions, Reporter } from './types.js';
import { escapeJsonText } from './visible.js';

/** The schema a SARIF log names (OASIS SARIF 2.1.0). */
export const SARIF_SCHEMA =
  'https://docs.oasis-open.org/sarif/sarif/v2.1.0/os/schemas/sarif-schema-2.1.0.json';

type Severity = ProbeResult['severity'];

const LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = {
  critical: 'error',
  high: 'error',
  medium: 'warning',
  low: 'note',
};
// GitHub's numeric security severity (critical ≥ 9, high ≥ 7, medium ≥ 4, low < 4).
const SECURITY_SEVERITY: Record<Severity, string> = {
  critical: '9.5',
  high: '8.0',
  medium: '5.5',
  low: '3.0',
};
const KIND: Record<Verdict, NonNullable<Result['kind']>> = {
  confirmed: 'fail',
  errored: 'open',
  refuted: 'pass',
  skipped: 'notApplicable',
};

/** `state/replay-principal` → `StateReplayPrincipal`: SARIF's friendly rule name. */
function ruleName(id: string): string {
  return id
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}

/** The rule of a probe: the report's rule where it carries one, else from the result alone. */
function ruleFor(result: ProbeResult, rule: ReportRule | undefined): ReportingDescriptor {
  const title = rule?.title ?? result.title;
  const severity = rule?.severity ?? result.severity;
  const rationale = rule?.rationale;
  const references = rule?.references ?? [];
  return {
    id: result.id,
    name: ruleName(result.id),
    shortDescription: { text: title },
    fullDescription: { text: rationale?.split(/\n\s*\n/)[0]?.replace(/\s+/g, ' ') ?? title },
    // GitHub requires help.text on every rule; a result with no rule in its report has its title.
    help: rationale !== undefined ? { text: rationale, markdown: rationale } : { text: title },
    ...(references[0] !== undefined ? { helpUri: references[0].url } : {}),
    defaultConfiguration: { level: LEVEL[severity] },
    properties: {
      tags: ['security', 'mcp', result.id.split('/')[0] ?? result.id],
      precision: 'high',
      'security-severity': SECURITY_SEVERITY[severity],
      ...(references.length > 0 ? { references: references.map((r) => `${r.id}: ${r.url}`) } : {}),
    },
  };
}

/** `baselineState` and `suppressions` of a result, when the run has a baseline. */
function baselineFields(
  r: ProbeResult,
  report: RunReport,
): Pick<Result, 'baselineState' | 'suppressions'> {
  const { baseline } = report;
  if (baseline === undefined) return {};
  if (r.baselined === true) {
    const suppression: Suppression = {
      kind: 'external',
      status: 'accepted',
      justification: `accepted in the baseline file ${baseline.file}`,
    };
    return { baselineState: 'unchanged', suppressions: [suppression] };
  }
  const stale = r.verdict === 'refuted' && baseline.stale.some((e) => entryProbeId(e) === r.id);
  return { baselineState: stale ? 'absent' : 'new', suppressions: [] };
}

/** A report and the place its results point at. */
interface Placed {
  readonly report: RunReport;
  readonly place: SarifPlace;
}

/**
 * What identifies a result across runs: the probe and the target, or, for a server from a
 * configuration file, the probe, the file and the entry's name (its command line may change).
 */
function identityOf(r: ProbeResult, { report, place }: Placed): string {
  const { server } = report;
  return server === undefined
    ? `${r.id}\0${report.target.display}`
    : `${r.id}\0${place.uri}\0${server.name}`;
}

function resultFor(
  r: ProbeResult,
  ruleIndex: number,
  placed: Placed,
  options: RenderOptions,
): Result {
  const { report, place } = placed;
  const kind = KIND[r.verdict];
  const evidence =
    options.evidence === 'none'
      ? {}
      : { evidence: options.evidence === 'full' ? r.evidence : r.evidence.map(evidenceLine) };
  // Two findings of one judgement in one capture are two alerts: the lines tell them apart.
  const fingerprint = createHash('sha256')
    .update(identityOf(r, placed) + (r.lines === undefined ? '' : `\0${r.lines.join(',')}`))
    .digest('hex');
  const server = report.server;
  const lines = captureLines(r, report, options);
  return {
    ruleId: r.id,
    ruleIndex,
    kind,
    // SARIF: a result whose kind is not `fail` has level `none`.
    level: kind === 'fail' ? LEVEL[r.severity] : 'none',
    message: {
      text: `${headline(r)}${server === undefined ? '' : ` (server ${server.name})`}: ${r.reason}`,
    },
    locations: [
      lines === undefined
        ? {
            physicalLocation: {
              artifactLocation: { uri: place.uri, uriBaseId: SRCROOT },
              region: { startLine: place.line },
            },
            logicalLocations: [{ name: report.target.display, kind: 'resource' }],
            message: { text: place.why },
          }
        : {
            physicalLocation: {
              artifactLocation: { uri: lines.uri, uriBaseId: SRCROOT },
              region: { startLine: lines.first },
            },
            logicalLocations: [{ name: report.target.display, kind: 'resource' }],
            message: { text: `capture line ${lines.first}` },
          },
    ],
    ...(lines === undefined || lines.rest.length === 0
      ? {}
      : {
          relatedLocations: lines.rest.map((line, i) => ({
            id: i + 1,
            physicalLocation: {
              artifactLocation: { uri: lines.uri, uriBaseId: SRCROOT },
              region: { startLine: line },
            },
            message: { text: `capture line ${line}` },
          })),
        }),
    partialFingerprints: {
      'stateguardProbeTarget/v1': fingerprint.slice(0, 32),
      // The one fingerprint GitHub reads. Given here, the upload action does not derive it from
      // the text of the line, so an alert keeps its identity when the file around it changes and
      // when the path is a placeholder with no file behind it.
      primaryLocationLineHash: `${fingerprint.slice(0, 16)}:1`,
    },
    ...baselineFields(r, report),
    properties: {
      verdict: r.verdict,
      ...(server === undefined ? {} : { server, target: report.target.display }),
      controls: r.controls,
      observations: r.observations,
      ...evidence,
      ms: r.ms,
    },
  };
}

/**
 * The capture lines a judgement of a capture points at: the capture file (relative to the source
 * root, else its pseudo-path) and the lines, the first as the location, the rest related.
 */
function captureLines(
  r: ProbeResult,
  report: RunReport,
  options: RenderOptions,
): { uri: string; first: number; rest: number[] } | undefined {
  const [first, ...rest] = r.lines ?? [];
  if (report.capture === undefined || first === undefined) return undefined;
  const uri = repoRelative(report.capture, options.sourceRoot) ?? pseudoPath(report.capture);
  return { uri, first, rest };
}

function invocationOf(report: RunReport, ruleIndex: Map<string, number>): Invocation {
  const notifications: Notification[] = [];
  if (report.problem !== undefined) {
    notifications.push({ level: 'error', message: { text: `target problem: ${report.problem}` } });
  }
  for (const r of report.probes.filter((p) => p.verdict === 'errored')) {
    notifications.push({
      level: 'error',
      message: { text: `${r.id} errored: ${r.reason}` },
      associatedRule: { id: r.id, index: ruleIndex.get(r.id) ?? -1 },
    });
  }
  // The scan itself ran fine when only the baseline is stale: that fails the run, not the tool.
  const executionSuccessful = notifications.length === 0;
  for (const entry of report.baseline?.stale ?? []) {
    const id = entryProbeId(entry);
    notifications.push({
      level: 'error',
      message: { text: `stale baseline entry ${entry}: ${STALE_REASON}` },
      associatedRule: { id, index: ruleIndex.get(id) ?? -1 },
    });
  }
  // What was left alone is no failure of the run: notes, so a reader sees what was not exercised.
  // The plan says it when there is one; `uncalled` only for a report without (an older file).
  if (report.plan !== undefined) notifications.push(...planNotes(report.plan));
  else
    for (const u of report.uncalled ?? []) {
      notifications.push({ level: 'note', message: { text: `not called: ${u.tool}: ${u.why}` } });
    }
  const end = new Date(Date.parse(report.startedAt) + report.ms);
  return {
    executionSuccessful,
    startTimeUtc: report.startedAt,
    ...(Number.isNaN(end.getTime()) ? {} : { endTimeUtc: end.toISOString() }),
    toolExecutionNotifications: notifications,
    ...(report.server === undefined && report.plan === undefined && report.created === undefined
      ? {}
      : {
          properties: {
            ...(report.server === undefined ? {} : { server: report.server.name }),
            ...(report.plan === undefined ? {} : { callPlan: planSummary(report.plan) }),
            // What this scan left on the target: counted, the first named, redacted.
            ...(report.created === undefined
              ? {}
              : {
                  created: {
                    total: report.created.total,
                    items: report.created.items.map((c) => ({ tool: c.tool, value: c.value })),
                    text: createdSentence(report.created),
                  },
                }),
          },
        }),
  };
}

/** Most plan notifications of one invocation, and the widest name or evidence in one, in code points. */
const MAX_PLAN_NOTES = 1000;
const PLAN_TEXT = 500;
/** Most pieces of evidence of one entry in its notification's properties. */
const PLAN_PIECES = 10;

/**
 * One note per entry of `plan` left alone: its kind, name, class, the deciding evidence and the
 * flag that would call it, in words and in `properties`, cut to bounds; then, past the most, one
 * note saying how many more.
 */
function planNotes(plan: CallPlan): Notification[] {
  const { left } = planGroups(plan);
  const notes: Notification[] = left.slice(0, MAX_PLAN_NOTES).map((e) => {
    const reach = reachOf(e, PLAN_TEXT);
    return {
      level: 'note',
      message: { text: `left alone: ${leftAloneLine(e, PLAN_TEXT)}` },
      properties: {
        kind: e.kind,
        name: clipRaw(e.name, PLAN_TEXT),
        class: e.class,
        evidence: e.evidence.slice(0, PLAN_PIECES).map((p) => clipRaw(p, PLAN_TEXT)),
        ...(reach === undefined ? {} : { reach }),
      },
    };
  });
  if (left.length > MAX_PLAN_NOTES)
    notes.push({
      level: 'note',
      message: {
        text: `${left.length - MAX_PLAN_NOTES} more left alone, not listed: ${PLAN_ELSEWHERE}`,
      },
    });
  return notes;
}

/** The plan in one line and the user's word, for the invocation's properties. */
function planSummary(plan: CallPlan): Record<string, unknown> {
  return {
    counts: planCounts(plan),
    allowTools: plan.allowTools,
    includeDestructive: plan.includeDestructive,
  };
}

/**
 * One run over any number of reports. GitHub stopped combining several runs of one tool and
 * category in one upload (announced 2024-05-06, enforced from 2025-07-21): an upload with two
 * such runs fails. So a multi-server scan is one run whose results span the servers, each with
 * its own location and fingerprints, and one invocation per server.
 */
function runOf(
  placed: readonly Placed[],
  tool: RunReport['tool'],
  options: RenderOptions,
  properties: Record<string, unknown>,
): Run {
  const rules: ReportingDescriptor[] = [];
  const ruleIndex = new Map<string, number>();
  for (const { report } of placed)
    for (const r of report.probes) {
      if (ruleIndex.has(r.id)) continue;
      ruleIndex.set(r.id, rules.length);
      rules.push(
        ruleFor(
          r,
          report.rules?.find((rule) => rule.id === r.id),
        ),
      );
    }
  const shown = (v: Verdict): boolean =>
    v === 'confirmed' || v === 'errored' || options.all === true;
  return {
    tool: {
      driver: { name: tool.name, version: tool.version, semanticVersion: tool.version, rules },
    },
    originalUriBaseIds: {
      [SRCROOT]: {
        description: {
          text: 'The repository root: GITHUB_WORKSPACE when set, else the directory the scan ran in.',
        },
      },
    },
    invocations: placed.map((p) => invocationOf(p.report, ruleIndex)),
    results: placed.flatMap((p) =>
      p.report.probes
        .filter((r) => shown(r.verdict))
        .map((r) => resultFor(r, ruleIndex.get(r.id) ?? -1, p, options)),
    ),
    properties,
  };
}

const logOf = (run: Run): Log => ({ $schema: SARIF_SCHEMA, version: '2.1.0', runs: [run] });

const place = (report: RunReport, options: RenderOptions): Placed => ({
  report,
  place: placeOf(report, options.sarifLocation, options.sourceRoot),
});

/** The SARIF log of a report, as an object. */
export function toSarif(report: RunReport, options: RenderOptions): Log {
  return logOf(
    runOf([place(report, options)], report.tool, options, {
      target: report.target,
      protocol: report.protocol,
      undecided: undecidedCount(report.probes),
      ...(report.baseline !== undefined ? { baseline: report.baseline } : {}),
    }),
  );
}

/** The SARIF log of a multi-server scan: one run, results from every server. */
export function toSarifCombined(combined: CombinedReport, options: RenderOptions): Log {
  // --sarif-location names one target's file: it does not apply to a set of servers.
  const perServer: RenderOptions = { ...options, sarifLocation: undefined };
  return logOf(
    runOf(
      combined.servers.map((r) => place(r, perServer)),
      combined.tool,
      options,
      {
        configs: combined.configs,
        ...(combined.registry === undefined
          ? {}
          : {
              registry: combined.registry,
              notScannedReasons: notScannedReasons(combined),
            }),
        servers: combined.servers.map((r) => ({
          ...(r.server !== undefined ? { server: r.server } : {}),
          target: r.target,
          protocol: r.protocol,
          undecided: undecidedCount(r.probes),
          ...(r.problem !== undefined ? { problem: r.problem } : {}),
          ...(r.baseline !== undefined ? { baseline: r.baseline } : {}),
        })),
      },
    ),
  );
}

const text = (log: Log): string => `${escapeJsonText(JSON.stringify(log, null, 2))}\n`;

/** The SARIF reporter. */
export const sarif = {
  id: 'sarif',
  render: (report, options) => text(toSarif(report, options)),
  renderCombined: (combined, options) => text(toSarifCombined(combined, options)),
} satisfies Reporter;
