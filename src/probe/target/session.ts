/**
 * Opening a scan session: connect over the target's transport, learn which protocol era it speaks,
 * and list its tools. Requests then carry the 2026-07-28 `_meta` envelope (or, for a legacy server,
 * the negotiated version) and the identity, as a bearer token over HTTP or in `_meta` over stdio.
 *
 * The parts: the channel (`session-channel.ts`), what every request shares (`session-wire.ts`),
 * one request (`session-request.ts`), the era rules (`session-era.ts`), a legacy server's handshake
 * and sessions (`legacy-handshake.ts`, `legacy-sessions.ts`), and the lists (`session-lists.ts`).
 */
import type { Evidence } from '../model/evidence.js';
import type { Exchange, ProtocolInfo } from '../model/wire.js';
import type { Target } from '../model/target.js';
import type { ToolInfo } from '../model/tools.js';
import { learnEra } from './session-era.js';
import { legacySessions } from './legacy-sessions.js';
import {
  readLists,
  undeclaredLists,
  readModernTools,
  readTools,
  type OpeningStep,
  type OtherLists,
} from './session-lists.js';
import {
  MODERN_VERSION,
  type EngineSession,
  type OpenedSession,
  type SessionOptions,
} from './session-options.js';
import { request } from './session-request.js';
import { noteEvidence } from '../evidence/evidence.js';
import { createWire, type Wire } from './session-wire.js';

// The vocabulary of a session lives in session-options.ts, which its parts import; importers keep
// this path.
export {
  DEFAULT_PRINCIPAL_META_KEY,
  LEGACY_VERSION,
  MODERN_VERSION,
  type EngineSession,
  type OpenedSession,
  type SessionOptions,
} from './session-options.js';

/** The problem to report when the target answered 401 or 403 while the era was being learnt. */
function refusedIdentity(evidence: readonly Evidence[]): string | undefined {
  for (const e of evidence) {
    if (e.kind !== 'http') continue;
    const status = e.response?.status;
    if (status !== 401 && status !== 403) continue;
    return (
      `the target refused the identity (HTTP ${status} to ${e.label.replace(/^era: /, '')}): give ` +
      'identities it accepts in STATEGUARD_IDENTITY_A and STATEGUARD_IDENTITY_B (or --identity-a ' +
      'and --identity-b); they are sent as "Authorization: Bearer <identity>", or in the header ' +
      "--identity-header names (e.g. --identity-header 'X-Api-Key: {identity}')"
    );
  }
  return undefined;
}

/** The opening's requests, as A, each recorded in `evidence`. */
function openingStep(wire: Wire, evidence: Evidence[], bare: Map<string, Exchange>): OpeningStep {
  const { target, options } = wire;
  // Only the very first exchange with a stdio child waits for the process to start.
  let startup = target.kind === 'stdio' ? (options.startupTimeoutMs ?? 0) : 0;
  return async (method, label, params = {}) => {
    const timeoutMs = Math.max(options.timeoutMs, startup);
    const limit =
      startup > options.timeoutMs
        ? "the limit on a stdio server's first answer, set by --startup-timeout"
        : undefined;
    startup = 0;
    const exchange = await request(
      wire,
      method,
      params,
      { identity: 'A', label, timeoutMs },
      limit,
    );
    evidence.push(...(exchange.earlier ?? []), exchange.evidence);
    if (Object.keys(params).length === 0 && !bare.has(method)) bare.set(method, exchange);
    return exchange.outcome;
  };
}

/** Opens a session on `target`. Never throws for a target problem: it reports it in `problem`. */
export async function openSession(target: Target, options: SessionOptions): Promise<OpenedSession> {
  const wire = createWire(target, options);
  const evidence: Evidence[] = [];
  const bare = new Map<string, Exchange>();
  const step = openingStep(wire, evidence, bare);
  const learnt = await learnEra(wire, step);
  const { era, deviations } = learnt;
  const tools: ToolInfo[] = [];
  let serverInfo = learnt.serverInfo;
  let lists: OtherLists = { prompts: [], resources: [], resourceTemplates: [] };
  if (era === 'legacy') {
    const list = await step('tools/list', 'tools/list (legacy)');
    if (list.kind === 'result') readTools(list.result, tools);
  } else if (era === 'modern') {
    const paged = await readModernTools(step, learnt.modernList, tools, deviations);
    serverInfo ??= paged;
    const unasked = undeclaredLists(learnt.capabilities);
    lists = await readLists(step, unasked);
    if (unasked.size > 0)
      evidence.push(
        noteEvidence(
          wire.options.redactor,
          `not asked: the lists of ${[...unasked].join(' and ')}, which the server's capabilities do not declare`,
        ),
      );
  }
  // A refused identity is the user's to fix, not a server that speaks no MCP: say so, and how.
  const problem =
    learnt.problem === undefined ? undefined : (refusedIdentity(evidence) ?? learnt.problem);
  const protocol: ProtocolInfo = {
    era,
    ...(era === 'modern' ? { protocolVersion: MODERN_VERSION } : {}),
    ...(era === 'legacy' && wire.negotiated ? { protocolVersion: wire.negotiated } : {}),
    ...(serverInfo ? { serverInfo } : {}),
    discover: learnt.discover,
    ...(learnt.capabilities === undefined ? {} : { capabilities: learnt.capabilities }),
    tools,
    ...lists,
    deviations,
  };
  const session: EngineSession = {
    transport: target.kind,
    protocol,
    request: (method, params, opts) => request(wire, method, params, opts),
    opened: (method) => bare.get(method),
    ...(target.kind === 'http' ? { sessions: legacySessions(wire) } : {}),
    takeStderr: () => wire.channel.takeStderr(),
    close: () => wire.channel.close(),
  };
  return { session, evidence, ...(problem ? { problem } : {}) };
}
