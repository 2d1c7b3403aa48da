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
import type { ControlResult, Observation, Verdict } from '../model/probe.js';
import type { Evidence } from '../model/evidence.js';
import type { Exchange, LegacySessions, RequestOptions } from '../model/wire.js';
import type { ProbeResult } from '../model/report.js';
import type { ToolInfo } from '../model/tools.js';
import { VERDICTS } from '../model/probe.js';
import type {
  Probe,
  ProbeContext,
  ProbeDecision,
  ProbeSettings,
  SharedSetup,
} from '../model/probe.js';
import type { SetupSink, SetupStore } from './shared-setup.js';
import type { Redactor } from '../evidence/evidence.js';
import { noteEvidence, stderrEvidence } from '../evidence/evidence.js';
import { requiredOf, unhonourable } from '../target/capabilities.js';
import { callRefusal, withoutOptionalSlots } from './call-gate.js';
import { uncalledTools, type CallPermission } from '../plan/tool-risk.js';
import type { MintedValues } from './minted-values.js';
import type { EngineSession } from '../target/session.js';
import type { SurfaceMap } from '../surface/recipes.js';
import { INTERNAL_ERROR } from '../model/surface-map.js';
import { AbortCause } from '../target/jsonrpc.js';

/** Options of one probe run. */
export interface ProbeRunOptions {
  /** The user's word in force in this pass: every tool (see `plan/tool-risk.ts`, CallPermission). */
  readonly includeDestructive: boolean;
  /** `--allow-tool`, in force in this pass. */
  readonly allowTools?: ReadonlySet<string>;
  /** `--allow-minted-in-risky` (see `call-gate.ts`). */
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
  /**
   * Told once the probe reads what discovery found or what the user's word lets it call: only a
   * probe that did may decide otherwise in the pass where the held-back tools are called.
   */
  readonly onWordRead?: () => void;
  /** The scan's shared setup (`shared-setup.ts`); absent: every probe makes its own. */
  readonly setup?: SetupStore;
  /** The scan's deadline: once it passes, the probe sends nothing more. */
  readonly deadline?: AbortSignal;
  /** Told of each request the target did not answer (a timeout, a 5xx, a broken connection). */
  readonly onFailure?: () => void;
  /** Told of the capabilities a `-32021` asked for that the scanner cannot honour (by path). */
  readonly onLacking?: (capabilities: readonly string[]) => void;
  /**
   * Whether a run that asked for a capability the scanner cannot honour is skipped naming it
   * (default true). Discovery says so: its own verdict is never reported, and a cut-short one must
   * stay errored so what it did not reach is named.
   */
  readonly skipOnLacking?: boolean;
}

/** A surface with nothing on it. */
export const EMPTY_SURFACE: SurfaceMap = { handles: [], flows: [], tried: [], failures: [] };

// Longest wait for an aborted request's exchange once its probe is cut off.
const SETTLE_MS = 500;

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** What one probe run records, and where it stands. */
interface Recorder {
  readonly probe: Probe;
  readonly session: EngineSession;
  readonly options: ProbeRunOptions;
  readonly capName: string;
  readonly stop: AbortController;
  readonly evidence: Evidence[];
  readonly controls: Record<string, ControlResult>;
  readonly observations: Observation[];
  calls: number;
  inFlight: string | undefined;
  lastRecorded: Promise<unknown> | undefined;
  /** Set once the result is built: a late exchange no longer joins its evidence. */
  finished: boolean;
  surfaceRead: boolean;
  /** Capabilities a `-32021` to this probe asked for that the scanner cannot honour. */
  readonly lacking: Set<string>;
}

/** A refusal to send, kept as a note: the budget, a blocked call, or the cap. */
function refuse(
  rec: Recorder,
  failure: 'budget' | 'blocked' | 'deadline',
  detail: string,
): Exchange {
  const note = noteEvidence(rec.options.redactor, `not sent: ${detail}`);
  if (!rec.finished) rec.evidence.push(note);
  return { outcome: { kind: 'failure', failure, detail }, evidence: note };
}

/** Why `what` may not be sent now (the cap passed, the budget spent), as the refusal; else none. */
function overLimit(rec: Recorder, what: string): Exchange | undefined {
  if (rec.finished || rec.stop.signal.aborted)
    return refuse(rec, 'deadline', `${what}: ${rec.capName} has passed`);
  const deadline = rec.options.deadline;
  if (deadline?.aborted === true)
    return refuse(rec, 'deadline', `${what}: ${message(deadline.reason)}`);
  if (rec.calls >= rec.probe.maxCalls)
    return refuse(
      rec,
      'budget',
      `${what}: the probe's budget of ${rec.probe.maxCalls} calls is spent`,
    );
  return undefined;
}

/** Counts one exchange that is not a JSON-RPC request, or refuses it like `request` does. */
function admit(rec: Recorder, what: string): Exchange | undefined {
  const refused = overLimit(rec, what);
  if (refused === undefined) rec.calls++;
  return refused;
}

function keep<T extends { evidence: Evidence }>(rec: Recorder, x: T): T {
  if (!rec.finished) rec.evidence.push(x.evidence);
  return x;
}

/** A legacy HTTP server's sessions, counted and recorded like requests. */
function legacySessions(rec: Recorder): LegacySessions | undefined {
  const legacy = rec.session.sessions;
  if (legacy === undefined || rec.session.protocol.era !== 'legacy') return undefined;
  const { signal } = rec.stop;
  return {
    idOf: (identity) => legacy.idOf(identity),
    open: async (identity, label) =>
      admit(rec, `initialize '${label}' as ${identity}`) ??
      keep(rec, await legacy.open(identity, label, signal)),
    terminate: async (identity, label) =>
      admit(rec, `DELETE '${label}' as ${identity}`) ??
      keep(rec, await legacy.terminate(identity, label, signal)),
    async listen(o) {
      const refused = admit(rec, `GET '${o.label}' as ${o.identity}`);
      if (refused !== undefined)
        return { events: [], end: 'failure', detail: 'not sent', evidence: refused.evidence };
      return keep(
        rec,
        await legacy.listen({
          ...o,
          signal: o.signal ? AbortSignal.any([o.signal, signal]) : signal,
        }),
      );
    },
  };
}

/** One JSON-RPC request of the probe: refused past a limit or to a blocked tool, else recorded. */
async function send(
  rec: Recorder,
  method: string,
  params: Record<string, unknown>,
  opts: RequestOptions,
  sink?: SetupSink,
): Promise<Exchange> {
  const { session, options } = rec;
  const what = `${method} '${opts.label}' as ${opts.identity}`;
  const refused = overLimit(rec, what);
  if (refused !== undefined) return refused;
  let calledTool: ToolInfo | undefined;
  if (method === 'tools/call') {
    // Stryker disable next-line StringLiteral: any name no tool has reads alike ('' is one).
    const name = typeof params.name === 'string' ? params.name : '';
    calledTool = session.protocol.tools.find((t) => t.name === name);
    // An optional dangerous slot is never filled, whoever built the arguments (the call plan
    // counts on it): it is left out of what is sent.
    const { args, stripped } = withoutOptionalSlots(calledTool, params.arguments);
    if (stripped.length > 0) params = { ...params, arguments: args };
    // Defence in depth: probes filter with the same rule; this catches a probe bug.
    const refusal = callRefusal(calledTool, name, params.arguments, options);
    if (refusal !== undefined) return refuse(rec, 'blocked', `${what}: ${refusal}`);
  }
  const peer = options.peer;
  const to =
    opts.via !== 'peer' ? session : peer !== undefined && !('problem' in peer) ? peer : undefined;
  if (to === undefined) return refuse(rec, 'blocked', `${what}: no peer is open`);
  // A request of the shared setup counts as the scan's, not this probe's (nor against its budget).
  if (sink === undefined) rec.calls++;
  else sink.count();
  rec.inFlight = what;
  const signal = opts.signal ? AbortSignal.any([opts.signal, rec.stop.signal]) : rec.stop.signal;
  const label = opts.via === 'peer' ? `peer: ${opts.label}` : opts.label;
  // Where each value of the answer came from: a call of a tool that does not only read may
  // have created it (see `minted-values.ts`); a first round of the same call twice tells.
  const source =
    method === 'tools/call'
      ? {
          ...(calledTool === undefined ? {} : { tool: calledTool }),
          args: params.arguments,
          fresh: params.requestState === undefined && params.inputResponses === undefined,
        }
      : { args: params };
  const recorded = to.request(method, params, { ...opts, label, signal }).then((exchange) => {
    rec.inFlight = undefined;
    // Sent on its behalf (a legacy identity's handshake, a request asked again after -32021):
    // each is one more request on the wire, counted where this one is.
    for (let i = 0; i < (exchange.alsoSent ?? 0); i++) {
      if (sink === undefined) rec.calls++;
      else sink.count();
    }
    if (exchange.outcome.kind === 'failure') options.onFailure?.();
    const required = requiredOf(exchange.outcome);
    const lacking = required === undefined ? [] : unhonourable(required);
    if (lacking.length > 0) {
      for (const name of lacking) rec.lacking.add(name);
      options.onLacking?.(lacking);
    }
    options.minted?.learn(exchange.outcome, source);
    const into = sink?.evidence ?? (rec.finished ? undefined : rec.evidence);
    into?.push(...(exchange.earlier ?? []), exchange.evidence);
    return exchange;
  });
  rec.lastRecorded = recorded;
  return recorded;
}

/**
 * The probe's view of the run: every request and record goes through `rec`; with `sink`, the view
 * a shared setup is made through (its requests and notes go to the setup).
 */
function contextOf(rec: Recorder, sink?: SetupSink): ProbeContext {
  const { session, options } = rec;
  const { redactor } = options;
  const sessions = legacySessions(rec);
  const wordRead = <T>(value: T): T => {
    options.onWordRead?.();
    return value;
  };
  const cite = (text: string, exchanges: readonly Exchange[]): void => {
    const into = sink?.evidence ?? (rec.finished ? undefined : rec.evidence);
    into?.push(
      noteEvidence(redactor, text),
      ...exchanges.flatMap((e) => [...(e.earlier ?? []), e.evidence]),
    );
  };
  return {
    transport: session.transport,
    ...(sessions === undefined ? {} : { sessions }),
    protocol: session.protocol,
    get includeDestructive() {
      return wordRead(options.includeDestructive);
    },
    ...(options.allowTools === undefined
      ? {}
      : {
          get allowTools() {
            return wordRead(options.allowTools);
          },
        }),
    get surface() {
      rec.surfaceRead = true;
      return wordRead(options.surface ?? EMPTY_SURFACE);
    },
    settings: options.settings ?? {},
    ...(options.peer === undefined
      ? {}
      : { peer: 'problem' in options.peer ? { problem: options.peer.problem } : {} }),
    request: (method, params, opts) => send(rec, method, params, opts, sink),
    control(id, result) {
      rec.controls[id] = {
        held: result.held === true,
        expected: redactor.string(String(result.expected)),
        observed: redactor.string(String(result.observed)),
      };
    },
    observe(label, detail) {
      const o = { label: redactor.string(label), detail: redactor.string(detail) };
      if (!rec.observations.some((x) => x.label === o.label && x.detail === o.detail))
        rec.observations.push(o);
    },
    note: (text) => cite(text, []),
    cite,
    identityOf: (value) => redactor.identityOf(value),
    opened: (method) => session.opened?.(method),
    ...(options.setup === undefined || sink !== undefined
      ? {}
      : { setup: sharedSetupOf(rec, options.setup) }),
  };
}

/**
 * The shared setup as one probe sees it: a value another probe made is read, not made again, and
 * the probe's evidence cites the exchanges that made it, once, after a note that says so.
 */
function sharedSetupOf(rec: Recorder, store: SetupStore): SharedSetup {
  const cited = new Set<string>();
  return {
    get serial() {
      return store.serial;
    },
    async once(key, make, keep) {
      const got = await store.once(key, (sink) => make(contextOf(rec, sink)), keep);
      if (!cited.has(key) && !rec.finished) {
        cited.add(key);
        const note = `shared setup (${key}): sent once for every probe that needs it, counted in the report's shared requests`;
        rec.evidence.push(noteEvidence(rec.options.redactor, note), ...got.evidence);
      }
      return got.value;
    },
  };
}

/** The probe's own decision, within its cap; an exception or an invalid verdict is `errored`. */
async function decide(rec: Recorder, ctx: ProbeContext): Promise<ProbeDecision> {
  let timer: NodeJS.Timeout | undefined;
  const capped = new Promise<ProbeDecision>((resolve) => {
    timer = setTimeout(
      () => {
        const waiting = rec.inFlight ? `; still waiting on ${rec.inFlight}` : '';
        // A cap cut from --deadline says which flag gives it more: the user's limit, not the server.
        const raise = rec.capName.includes('--deadline')
          ? '; raise --deadline to let it finish'
          : '';
        rec.stop.abort(new AbortCause('deadline', `${rec.capName} passed`));
        resolve({
          verdict: 'errored',
          reason: `did not finish within ${rec.capName}${waiting}${raise}`,
        });
      },
      Math.max(0, rec.options.capMs),
    );
  });
  let decision: ProbeDecision;
  try {
    decision = await Promise.race([rec.probe.run(ctx), capped]);
    if (!decision || !(VERDICTS as readonly string[]).includes(decision.verdict)) {
      decision = { verdict: 'errored', reason: 'the probe returned no valid verdict' };
    }
  } catch (err) {
    decision = { verdict: 'errored', reason: `the probe failed: ${message(err)}` };
  } finally {
    clearTimeout(timer);
    // A no-op when the cap already aborted it: the cap's cause stays.
    rec.stop.abort(new AbortCause('deadline', `${rec.probe.id} has finished`));
  }
  // Stryker disable next-line ConditionalExpression,LogicalOperator: waiting on a settled or no request returns at once.
  if (rec.inFlight !== undefined && rec.lastRecorded !== undefined) {
    // The cap aborted a request in flight. The abort settles it promptly; wait for that (bounded),
    // so its exchange, the evidence of what did not answer, is kept and not dropped by a race.
    let settle: NodeJS.Timeout | undefined;
    const grace = new Promise((resolve) => (settle = setTimeout(resolve, SETTLE_MS)));
    await Promise.race([rec.lastRecorded, grace]);
    clearTimeout(settle);
  }
  return decision;
}

/**
 * When every tool the survey tried answered `-32603 Internal error`, what would decide: the server
 * failed before any tool ran (a guard that cannot read the principal, a missing configuration), so
 * no skip after it says the surface is absent. Undefined when any tool answered otherwise.
 */
function onlyInternalErrors(tried: readonly string[]): string | undefined {
  const tools = tried
    .map((t) => /^(.+) \(([^()]*)\)$/.exec(t))
    .filter((m): m is RegExpExecArray => m !== null && !m[1]!.startsWith('handle: '));
  if (tools.length === 0 || tools.some((m) => m[2] !== INTERNAL_ERROR)) return undefined;
  const names = [...new Set(tools.map((m) => m[1]))].join(', ');
  return `a server that answers ${names} (each answered -32603 Internal error, so no tool ran)`;
}

/**
 * The verdict the runner gives: a skip after reading the surface names the tools left alone; a
 * confirmed or refuted verdict drawn while a control did not hold is `errored`, naming it.
 */
function verdictOf(
  rec: Recorder,
  decision: ProbeDecision,
): { verdict: Verdict; reason: string; decideWith?: string[] } {
  const { options, session } = rec;
  let verdict: Verdict = decision.verdict;
  let reason = String(decision.reason);
  // A probe that looked for something to test and found nothing says which tools were left alone:
  // they may be what it needed, and the user can opt in. Until then the probe is undecided.
  let decideWith: string[] = [];
  if (verdict === 'skipped' && rec.surfaceRead && options.heldBack !== true) {
    reason += leftAloneNote(session.protocol.tools, options);
    const flags = uncalledTools(session.protocol.tools, options).map((u) => u.flag);
    const broken = onlyInternalErrors(options.surface?.tried ?? []);
    decideWith = [...flags, ...(broken === undefined ? [] : [broken])];
  }
  // A server that asked for a client capability the scanner cannot honour decided nothing about
  // the property: the probe says which capability it lacks instead of reading errored.
  const lacking = [...rec.lacking, ...(rec.surfaceRead ? (options.surface?.lacking ?? []) : [])];
  if (
    options.skipOnLacking !== false &&
    (verdict === 'errored' || verdict === 'skipped') &&
    lacking.length > 0
  ) {
    const names = [...new Set(lacking)].slice(0, 8).join(', ');
    const was = verdict === 'errored' ? `; its own reading was errored: ${reason}` : `; ${reason}`;
    verdict = 'skipped';
    reason = `the server requires client capability ${names} (-32021), which the scanner cannot honour${was}`;
    return { verdict, reason };
  }
  if (decideWith.length > 0) return { verdict, reason, decideWith };
  const failed = Object.entries(rec.controls).filter(([, c]) => !c.held);
  if ((verdict === 'confirmed' || verdict === 'refuted') && failed.length > 0) {
    rec.evidence.push(
      noteEvidence(options.redactor, `the probe's own reading was ${verdict}: ${reason}`),
    );
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
  return { verdict, reason };
}

/**
 * The evidence closes with the stderr the run drew; a probe that decided without a call of its own
 * (nothing discovered for it) still says what it read: a verdict with no evidence at all could not
 * be checked by anyone reading the report.
 */
function closeEvidence(rec: Recorder): void {
  const { session, options, evidence } = rec;
  const stderr = session.takeStderr();
  if (stderr.length > 0) evidence.push(stderrEvidence(options.redactor, stderr));
  if (evidence.length > 0) return;
  const names = session.protocol.tools.map((t) => t.name);
  const shown = names.slice(0, 20).join(', ') + (names.length > 20 ? ', …' : '');
  const listed = names.length === 0 ? 'no tools' : `${names.length} tool(s): ${shown}`;
  const surveyed = options.surface
    ? `; discovery (its exchanges are in the report's surface section) tried: ${options.surface.tried.join(', ') || 'nothing'}`
    : '';
  evidence.push(
    noteEvidence(options.redactor, `decided without a call; tools/list named ${listed}${surveyed}`),
  );
}

/** Runs one probe against an open, modern session and returns its result. Never throws. */
export async function runProbe(
  probe: Probe,
  session: EngineSession,
  options: ProbeRunOptions,
): Promise<ProbeResult> {
  const started = performance.now();
  const rec: Recorder = {
    probe,
    session,
    options,
    capName: options.capName ?? `the probe's time cap (${options.capMs} ms)`,
    stop: new AbortController(),
    evidence: [],
    controls: {},
    observations: [],
    calls: 0,
    inFlight: undefined,
    lastRecorded: undefined,
    finished: false,
    surfaceRead: false,
    lacking: new Set(),
  };
  const decision = await decide(rec, contextOf(rec));
  const { verdict, reason, decideWith } = verdictOf(rec, decision);
  closeEvidence(rec);
  rec.finished = true;
  return {
    ...centralResult(probe, verdict, reason, rec.evidence, options.redactor),
    ...(decideWith === undefined ? {} : { decideWith }),
    // A finding may weigh less than the probe's worst case (an existence oracle alone); a result
    // that is no finding keeps the probe's severity, so a rule reads the same on every run.
    ...(verdict === 'confirmed' && decision.severity !== undefined
      ? { severity: decision.severity }
      : {}),
    controls: rec.controls,
    observations: rec.observations,
    ms: Math.round(performance.now() - started),
    requests: rec.calls,
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
export function leftAloneNote(tools: readonly ToolInfo[], permission: CallPermission): string {
  const uncalled = uncalledTools(tools, permission);
  if (uncalled.length === 0) return '';
  const names = uncalled.slice(0, 8).map((u) => u.tool);
  const more = uncalled.length > 8 ? `, and ${uncalled.length - 8} more` : '';
  const flags =
    uncalled.length === 1
      ? `${uncalled[0]!.flag} would call it`
      : '--allow-tool <name> would call one, --include-destructive all';
  return `; left alone to harm nothing, so not tried: ${names.join(', ')}${more} (${flags})`;
}
