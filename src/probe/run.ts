/**
 * The runner: owns verdict semantics so probes stay small.
 *
 * For each probe it builds a {@link ProbeContext} that records every exchange as evidence, refuses
 * to send past the probe's `maxCalls`, past its time cap or the scan deadline, or to a destructive
 * tool without `--include-destructive`; it turns an exception into `errored`, and a control that
 * did not hold turns `confirmed` or `refuted` into `errored` naming the control, because a verdict
 * drawn while the instrument was broken proves nothing either way.
 *
 * Legacy and unknown-era targets are handled here, centrally: every probe needs a 2026-07-28
 * server, so against a legacy server each is `skipped` naming that precondition, and against a
 * target that answered nothing usable each is `errored` naming what did not answer. Probes never
 * see a non-modern session.
 */
import type {
  ControlResult,
  Evidence,
  Exchange,
  LegacySessions,
  Observation,
  ProbeResult,
  ToolInfo,
  Verdict,
} from './types.js';
import { VERDICTS } from './types.js';
import type { Probe, ProbeContext, ProbeDecision, ProbeSettings } from './define.js';
import type { Redactor } from './evidence/evidence.js';
import { noteEvidence, stderrEvidence } from './evidence/evidence.js';
import { callRefusal, uncalledTools, type MintedValues } from './surface/tool-risk.js';
import type { EngineSession } from './target/session.js';
import type { SurfaceMap } from './surface/recipes.js';
import { AbortCause } from './target/jsonrpc.js';

/** Options of one probe run. */
export interface ProbeRunOptions {
  readonly includeDestructive: boolean;
  /** `--allow-minted-in-risky` (see `tool-risk.ts`). */
  readonly allowMintedInRisky?: boolean;
  /** The scan's record of server-minted values, shared by every probe. */
  readonly minted?: MintedValues;
  readonly redactor: Redactor;
  /** Longest this probe may take (ms); then its pending request is aborted (failure `deadline`). */
  readonly capMs: number;
  /** Why the cap is what it is, for the errored reason (e.g. `the scan deadline`). */
  readonly capName?: string;
  /** What discovery found; empty when absent (discovery itself runs without one). */
  readonly surface?: SurfaceMap;
  /** `--expiry-wait`, `--peer`: what some probes need beyond the target. */
  readonly settings?: ProbeSettings;
  /** The peer's session, or why it could not be opened (a probe with `usesPeer` only). */
  readonly peer?: EngineSession | { readonly problem: string };
  /**
   * The risky tools are not left alone but held back for a later pass (`--include-destructive`:
   * they run after every other probe is done), so a skip does not name them as left alone.
   */
  readonly heldBack?: boolean;
  /** Told once the probe reads what discovery found (a probe that does may run again later). */
  readonly onSurfaceRead?: () => void;
}

/** A surface with nothing on it. */
export const EMPTY_SURFACE: SurfaceMap = { handles: [], flows: [], tried: [], failures: [] };

// Longest wait for an aborted request's exchange once its probe is cut off.
const SETTLE_MS = 500;

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Runs one probe against an open, modern session and returns its result. Never throws. */
export async function runProbe(
  probe: Probe,
  session: EngineSession,
  options: ProbeRunOptions,
): Promise<ProbeResult> {
  const { redactor } = options;
  const started = performance.now();
  const evidence: Evidence[] = [];
  const controls: Record<string, ControlResult> = {};
  const observations: Observation[] = [];
  const capName = options.capName ?? `the probe's time cap (${options.capMs} ms)`;
  const stop = new AbortController();
  let calls = 0;
  let inFlight: string | undefined;
  let lastRecorded: Promise<unknown> | undefined;
  let finished = false;
  let surfaceRead = false;

  const refuse = (failure: 'budget' | 'blocked' | 'deadline', detail: string): Exchange => {
    const note = noteEvidence(redactor, `not sent: ${detail}`);
    if (!finished) evidence.push(note);
    return { outcome: { kind: 'failure', failure, detail }, evidence: note };
  };

  /** Counts one exchange that is not a JSON-RPC request, or refuses it like `request` does. */
  const admit = (what: string): Exchange | undefined => {
    if (finished || stop.signal.aborted)
      return refuse('deadline', `${what}: ${capName} has passed`);
    if (calls >= probe.maxCalls)
      return refuse('budget', `${what}: the probe's budget of ${probe.maxCalls} calls is spent`);
    calls++;
    return undefined;
  };
  const keep = <T extends { evidence: Evidence }>(x: T): T => {
    if (!finished) evidence.push(x.evidence);
    return x;
  };
  const legacy = session.sessions;
  const sessions: LegacySessions | undefined =
    legacy === undefined || session.protocol.era !== 'legacy'
      ? undefined
      : {
          idOf: (identity) => legacy.idOf(identity),
          open: async (identity, label) =>
            admit(`initialize '${label}' as ${identity}`) ??
            keep(await legacy.open(identity, label, stop.signal)),
          terminate: async (identity, label) =>
            admit(`DELETE '${label}' as ${identity}`) ??
            keep(await legacy.terminate(identity, label, stop.signal)),
          async listen(o) {
            const refused = admit(`GET '${o.label}' as ${o.identity}`);
            if (refused !== undefined)
              return { events: [], end: 'failure', detail: 'not sent', evidence: refused.evidence };
            const signal = o.signal ? AbortSignal.any([o.signal, stop.signal]) : stop.signal;
            return keep(await legacy.listen({ ...o, signal }));
          },
        };

  const ctx: ProbeContext = {
    transport: session.transport,
    ...(sessions === undefined ? {} : { sessions }),
    protocol: session.protocol,
    includeDestructive: options.includeDestructive,
    get surface() {
      surfaceRead = true;
      return options.surface ?? EMPTY_SURFACE;
    },
    settings: options.settings ?? {},
    ...(options.peer === undefined
      ? {}
      : { peer: 'problem' in options.peer ? { problem: options.peer.problem } : {} }),
    async request(method, params, opts) {
      const what = `${method} '${opts.label}' as ${opts.identity}`;
      if (finished || stop.signal.aborted)
        return refuse('deadline', `${what}: ${capName} has passed`);
      if (calls >= probe.maxCalls) {
        return refuse('budget', `${what}: the probe's budget of ${probe.maxCalls} calls is spent`);
      }
      let calledTool: ToolInfo | undefined;
      if (method === 'tools/call') {
        // Stryker disable next-line StringLiteral: any name no tool has reads alike ('' is one).
        const name = typeof params.name === 'string' ? params.name : '';
        const tool = session.protocol.tools.find((t) => t.name === name);
        calledTool = tool;
        // Defence in depth: probes filter with the same rule; this catches a probe bug.
        const refusal = callRefusal(tool, name, params.arguments, options);
        if (refusal !== undefined) return refuse('blocked', `${what}: ${refusal}`);
      }
      const peer = options.peer;
      const to =
        opts.via !== 'peer'
          ? session
          : peer !== undefined && !('problem' in peer)
            ? peer
            : undefined;
      if (to === undefined) return refuse('blocked', `${what}: no peer is open`);
      calls++;
      inFlight = what;
      const signal = opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal;
      const label = opts.via === 'peer' ? `peer: ${opts.label}` : opts.label;
      // Where each value of the answer came from: a call of a tool that does not only read may
      // have created it (see `tool-risk.ts`); a first round of the same call twice tells.
      const source =
        method === 'tools/call'
          ? {
              ...(calledTool === undefined ? {} : { tool: calledTool }),
              args: params.arguments,
              fresh: params.requestState === undefined && params.inputResponses === undefined,
            }
          : { args: params };
      const recorded = to.request(method, params, { ...opts, label, signal }).then((exchange) => {
        inFlight = undefined;
        options.minted?.learn(exchange.outcome, source);
        if (!finished) evidence.push(exchange.evidence);
        return exchange;
      });
      lastRecorded = recorded;
      return recorded;
    },
    control(id, result) {
      controls[id] = {
        held: result.held === true,
        expected: redactor.string(String(result.expected)),
        observed: redactor.string(String(result.observed)),
      };
    },
    observe(label, detail) {
      const o = { label: redactor.string(label), detail: redactor.string(detail) };
      if (!observations.some((x) => x.label === o.label && x.detail === o.detail))
        observations.push(o);
    },
    note(text) {
      if (!finished) evidence.push(noteEvidence(redactor, text));
    },
    identityOf: (value) => redactor.identityOf(value),
  };

  let timer: NodeJS.Timeout | undefined;
  const capped = new Promise<ProbeDecision>((resolve) => {
    timer = setTimeout(
      () => {
        const waiting = inFlight ? `; still waiting on ${inFlight}` : '';
        stop.abort(new AbortCause('deadline', `${capName} passed`));
        resolve({ verdict: 'errored', reason: `did not finish within ${capName}${waiting}` });
      },
      Math.max(0, options.capMs),
    );
  });
  let decision: ProbeDecision;
  try {
    decision = await Promise.race([probe.run(ctx), capped]);
    if (!decision || !(VERDICTS as readonly string[]).includes(decision.verdict)) {
      decision = { verdict: 'errored', reason: 'the probe returned no valid verdict' };
    }
  } catch (err) {
    decision = { verdict: 'errored', reason: `the probe failed: ${message(err)}` };
  } finally {
    clearTimeout(timer);
    // A no-op when the cap already aborted it: the cap's cause stays.
    stop.abort(new AbortCause('deadline', `${probe.id} has finished`));
  }
  // Stryker disable next-line ConditionalExpression,LogicalOperator: waiting on a settled or no request returns at once.
  if (inFlight !== undefined && lastRecorded !== undefined) {
    // The cap aborted a request in flight. The abort settles it promptly; wait for that (bounded),
    // so its exchange, the evidence of what did not answer, is kept and not dropped by a race.
    let settle: NodeJS.Timeout | undefined;
    const grace = new Promise((resolve) => (settle = setTimeout(resolve, SETTLE_MS)));
    await Promise.race([lastRecorded, grace]);
    clearTimeout(settle);
  }

  let verdict: Verdict = decision.verdict;
  let reason = String(decision.reason);
  if (surfaceRead) options.onSurfaceRead?.();
  // A probe that looked for something to test and found nothing says which tools were left alone:
  // they may be what it needed, and the user can opt in.
  if (verdict === 'skipped' && surfaceRead && options.heldBack !== true)
    reason += leftAloneNote(session.protocol.tools, options.includeDestructive);
  const failed = Object.entries(controls).filter(([, c]) => !c.held);
  if ((verdict === 'confirmed' || verdict === 'refuted') && failed.length > 0) {
    evidence.push(noteEvidence(redactor, `the probe's own reading was ${verdict}: ${reason}`));
    const [first] = failed;
    const [id, c] = first!;
    const more =
      failed.length > 1
        ? ` (also: ${failed
            .slice(1)
            .map(([k]) => k)
            .join(', ')})`
        : '';
    verdict = 'errored';
    reason = `control ${id} did not hold: expected ${c.expected}; observed ${c.observed}${more}`;
  }
  const stderr = session.takeStderr();
  if (stderr.length > 0) evidence.push(stderrEvidence(redactor, stderr));
  if (evidence.length === 0) {
    // A probe that decided without a call of its own (nothing discovered for it) still says what
    // it read: a verdict with no evidence at all could not be checked by anyone reading the report.
    const names = session.protocol.tools.map((t) => t.name);
    const shown = names.slice(0, 20).join(', ') + (names.length > 20 ? ', …' : '');
    const listed = names.length === 0 ? 'no tools' : `${names.length} tool(s): ${shown}`;
    const surveyed = options.surface
      ? `; discovery (its exchanges are in the report's surface section) tried: ${options.surface.tried.join(', ') || 'nothing'}`
      : '';
    evidence.push(
      noteEvidence(redactor, `decided without a call; tools/list named ${listed}${surveyed}`),
    );
  }
  finished = true;

  return {
    ...centralResult(probe, verdict, reason, evidence, redactor),
    // A finding may weigh less than the probe's worst case (an existence oracle alone); a result
    // that is no finding keeps the probe's severity, so a rule reads the same on every run.
    ...(verdict === 'confirmed' && decision.severity !== undefined
      ? { severity: decision.severity }
      : {}),
    controls,
    observations,
    ms: Math.round(performance.now() - started),
  };
}

/** A result for a probe the runner did not run (legacy or unreachable target, deadline passed). */
export function centralResult(
  probe: Probe,
  verdict: Verdict,
  reason: string,
  evidence: Evidence[],
  redactor: Redactor,
): ProbeResult {
  return {
    id: probe.id,
    title: probe.title,
    flaw: probe.flaw,
    severity: probe.severity,
    verdict,
    reason: redactor.string(reason),
    controls: {},
    observations: [],
    evidence,
    ms: 0,
  };
}

/**
 * The tools a scan leaves alone under this opt-in, as a clause for a skip's reason (empty when
 * none): a skip they may have caused must say so, and name the flag that would call them.
 */
export function leftAloneNote(tools: readonly ToolInfo[], includeDestructive: boolean): string {
  const uncalled = uncalledTools(tools, includeDestructive);
  if (uncalled.length === 0) return '';
  const names = uncalled.slice(0, 8).map((u) => u.tool);
  const more = uncalled.length > 8 ? `, and ${uncalled.length - 8} more` : '';
  return `; left alone to harm nothing, so not tried: ${names.join(', ')}${more} (--include-destructive would call them)`;
}
