/**
 * The canonical {@link RunReport} of a scan, assembled from what its phases returned: every value a
 * target sent passes the redactor here once more, as everywhere a report is built.
 */
import type { Probe } from '../model/probe.js';
import { undecidedCount } from './decided.js';
import type { Redactor } from '../evidence/evidence.js';
import { recipeName, type SurfaceMap } from '../surface/recipes.js';
import { buildCallPlan, type CallWord } from '../plan/call-plan.js';
import { leftAloneWhy } from '../plan/tool-risk.js';
import type { CallPlan } from '../model/tools.js';
import type { Evidence } from '../model/evidence.js';
import type { ProbeResult, ReportRule, RunReport, ShedSummary } from '../model/report.js';
import type { ProtocolInfo } from '../model/wire.js';
import type { TransportKind } from '../model/target.js';
import { MAX_CREATED_SHOWN, MAX_CREATED_VALUE } from '../model/report.js';
import { packageVersion } from './version.js';

/** How many requests `evidence` records (an exchange each; notes and stderr are none). */
export function exchangesIn(evidence: readonly Evidence[]): number {
  return evidence.filter((e) => e.kind === 'http' || e.kind === 'jsonrpc').length;
}

/** What discovery found, as the report shows it. */
export function shownSurface(
  found: { map: SurfaceMap; evidence: Evidence[] },
  redactor: Redactor,
): NonNullable<RunReport['surface']> {
  return {
    handles: found.map.handles.map((h) => redactor.string(recipeName(h))),
    flows: found.map.flows.map((f) => redactor.string(f.subject)),
    tried: found.map.tried.map((t) => redactor.string(t)),
    ...(found.map.notReached === undefined
      ? {}
      : {
          notReached: found.map.notReached.map((n) => ({
            tool: redactor.string(n.tool),
            why: redactor.string(n.why),
          })),
        }),
    evidence: found.evidence,
  };
}

/** The plan with every name and piece of evidence a target sent passed through the redactor. */
export function redactPlan(plan: CallPlan, redactor: Redactor): CallPlan {
  return {
    ...plan,
    entries: plan.entries.map((e) => ({
      ...e,
      name: redactor.string(e.name),
      evidence: e.evidence.map((x) => redactor.string(x)),
      ...(e.reach === undefined ? {} : { reach: redactor.string(e.reach) }),
    })),
    allowTools: plan.allowTools.map((n) => redactor.string(n)),
  };
}

/** What the report is made of. */
export interface ReportParts {
  readonly kind: TransportKind;
  /** What the user said about calls (`--include-destructive`, `--allow-tool`). */
  readonly word: CallWord;
  readonly redactor: Redactor;
  readonly display: string;
  readonly protocol: ProtocolInfo;
  readonly startedAt: string;
  readonly ms: number;
  readonly problem?: string;
  readonly results: readonly ProbeResult[];
  /** The probes of the scan: the report carries the rule of each one with a result. */
  readonly probes: readonly Probe[];
  readonly surface?: RunReport['surface'];
  /** Requests of the opening (the target's and the peer's) and of discovery. */
  readonly opening: number;
  readonly survey: number;
  /** Requests of the probes' shared setup (in no probe's own count). */
  readonly shared: number;
  /** The probes run again alone after ending errored beside others. */
  readonly rerunAlone?: readonly string[];
  /** What the scan's calls created (unredacted; redacted and bounded here). */
  readonly created?: readonly { readonly tool: string; readonly value: string }[];
  /** What load shedding cost, when the server shed any. */
  readonly shed?: ShedSummary;
}

/** The created objects as the report shows them: redacted, each value cut, the first 50 named. */
export function shownCreated(
  created: ReportParts['created'],
  redactor: Redactor,
): RunReport['created'] | undefined {
  if (created === undefined || created.length === 0) return undefined;
  const cut = (v: string): string => {
    const points = [...v];
    return points.length <= MAX_CREATED_VALUE
      ? v
      : `${points.slice(0, MAX_CREATED_VALUE - 1).join('')}…`;
  };
  return {
    total: created.length,
    items: created.slice(0, MAX_CREATED_SHOWN).map((c) => ({
      tool: redactor.string(c.tool),
      value: cut(redactor.string(c.value)),
    })),
  };
}

/** The report of a scan. */
export function buildReport(parts: ReportParts): RunReport {
  const { redactor, protocol, results } = parts;
  // A legacy server's capabilities serve the probes; the report names its tools, not those.
  const {
    tools,
    prompts,
    resources,
    resourceTemplates,
    deviations,
    capabilities: _capabilities,
    ...rest
  } = protocol;
  const shown = (list: readonly string[]): string[] => list.map((x) => redactor.string(x));
  // Decided once per scan, before any call: what the scan may call, and what it left alone.
  const plan = redactPlan(buildCallPlan(protocol, parts.word), redactor);
  const uncalled = plan.entries
    .filter((e) => e.kind === 'tool' && e.calledBy === undefined)
    .map((e) => ({
      tool: e.name,
      why: leftAloneWhy(e.class, e.evidence, e.reach ?? '--include-destructive'),
      flag: e.reach ?? '--include-destructive',
    }));
  const probes = results.reduce((sum, r) => sum + (r.requests ?? 0), 0);
  const created = shownCreated(parts.created, redactor);
  return {
    schemaVersion: 1,
    tool: { name: 'stateguard', version: packageVersion() },
    target: { kind: parts.kind, display: parts.display },
    protocol: {
      ...rest,
      toolNames: shown(tools.map((t) => t.name)),
      ...(prompts.length > 0 ? { promptNames: shown(prompts.map((p) => p.name)) } : {}),
      ...(resources.length > 0 ? { resources: shown(resources) } : {}),
      ...(resourceTemplates.length > 0 ? { resourceTemplates: shown(resourceTemplates) } : {}),
      ...(deviations.length > 0 ? { deviations: shown(deviations) } : {}),
    },
    ...(parts.surface === undefined ? {} : { surface: parts.surface }),
    startedAt: parts.startedAt,
    ms: parts.ms,
    ...(parts.problem !== undefined ? { problem: redactor.string(parts.problem) } : {}),
    requests: {
      total: parts.opening + parts.survey + parts.shared + probes,
      opening: parts.opening,
      survey: parts.survey,
      shared: parts.shared,
      probes,
    },
    ...(parts.shed === undefined ? {} : { shed: parts.shed }),
    ...(parts.rerunAlone === undefined ? {} : { rerunAlone: [...parts.rerunAlone] }),
    undecided: undecidedCount(results),
    probes: [...results],
    rules: reportRules(parts.probes, results),
    plan,
    ...(uncalled.length > 0 ? { uncalled } : {}),
    ...(created === undefined ? {} : { created }),
  };
}

/** The rules of the probes with a result, in the results' order. */
function reportRules(probes: readonly Probe[], results: readonly ProbeResult[]): ReportRule[] {
  const byId = new Map(probes.map((p) => [p.id, p]));
  const ids = [...new Set(results.map((r) => r.id))];
  return ids.flatMap((id) => {
    const probe = byId.get(id);
    return probe === undefined ? [] : [ruleOf(probe)];
  });
}

/** A probe's rule, as a report carries it. */
export function ruleOf(probe: Probe): ReportRule {
  const { id, title, flaw, severity, rationale, references } = probe;
  return { id, title, flaw, severity, rationale, references };
}
