/**
 * The session probe's experiments on a 2025-11-25 Streamable HTTP server: what a session shows of
 * itself, and whether B is served inside A's session when it presents A's `Mcp-Session-Id` (on a
 * POST and on the GET event stream) or no id at all.
 *
 * Each reading is one request with one controlled difference from its controls: the same read as B
 * in B's own session (what B sees anyway), the same read with a forged id of the same shape (what
 * an id nobody was handed opens), and the same read as A in A's session (what the session holds).
 * A marker counts only when the subject shows it and neither control does.
 */
import { randomSameShape } from './mutate.js';
import {
  readOutcome,
  resultOf,
  describe as describeExchange,
  type Reading,
} from '../driver/rounds.js';
import { handleDifference } from './handle-trial.js';
import {
  distinctTokens,
  makeCanary,
  markersOf,
  markersShown,
  type Marker,
} from '../evidence/markers.js';
import { argumentsFor, objectShape } from '../driver/schema.js';
import { callableTools } from '../plan/tool-risk.js';
import type { ProbeContext } from '../model/probe.js';
import type { Exchange, StreamReading } from '../model/wire.js';
import type { IdentityName } from '../model/target.js';
import type { ToolInfo } from '../model/tools.js';

/** How long a GET stream is read once the provoking call has returned, and how much of it. */
export const STREAM_WINDOW_MS = 500;
export const STREAM_MAX_BYTES = 64 * 1024;

/** A tool that writes into the session (`plant`) and one that shows it (`read`). */
export interface SessionSurface {
  readonly plant: ToolInfo;
  readonly read: ToolInfo;
}

/**
 * How a session request reads. The transport answers a missing id with 400 and an unknown one with
 * 404 (2025-11-25 session management), whatever the body says, and 403 is a refusal too; otherwise
 * as every probe reads an outcome.
 */
export function sessionReading(e: Exchange): Reading {
  const status = e.evidence.kind === 'http' ? e.evidence.response?.status : undefined;
  if (status === 400 || status === 403 || status === 404) return 'refused';
  const r = readOutcome(e.outcome);
  return r === 'input' ? 'accepted' : r;
}

/** The JSON-RPC error code a refusal's body carries (a transport refusal answers id `null`). */
function bodyCode(e: Exchange): number | undefined {
  if (e.evidence.kind !== 'http') return undefined;
  for (const m of e.evidence.received ?? []) {
    const error = (m as { error?: { code?: unknown } } | null)?.error;
    if (typeof error?.code === 'number') return error.code;
  }
  return undefined;
}

/** An exchange in a reason: `HTTP 404 (refused, JSON-RPC error -32001)`, `HTTP 200, result`. */
export function described(e: Exchange): string {
  const status = e.evidence.kind === 'http' ? e.evidence.response?.status : undefined;
  if (status === undefined) return describeExchange(e);
  if (sessionReading(e) === 'refused' && e.outcome.kind === 'failure') {
    const code = bodyCode(e);
    return `HTTP ${status} (refused${code === undefined ? '' : `, JSON-RPC error ${code}`})`;
  }
  return `HTTP ${status}, ${describeExchange(e)}`;
}

/** A stream reading in a reason: `HTTP 200: 1 event(s) within a 500 ms window`. */
export const describedStream = (s: StreamReading): string =>
  s.status === undefined || s.end === 'refused' ? s.detail : `HTTP ${s.status}: ${s.detail}`;

const requiredAll = (t: ToolInfo): string[] => objectShape(t.inputSchema).required;
const takesText = (t: ToolInfo): boolean =>
  Object.values(objectShape(t.inputSchema).props).some((p) => p['type'] === 'string');

const plants = (t: ToolInfo): boolean => takesText(t) && t.annotations?.['readOnlyHint'] !== true;

/**
 * The tools that could plant a canary in a session but the call plan leaves alone in this pass:
 * what a skip names, with the flag that would call one.
 */
export function plantersLeftAlone(ctx: ProbeContext): ToolInfo[] {
  const callable = new Set(callableTools(ctx.protocol.tools, ctx));
  return ctx.protocol.tools.filter((t) => plants(t) && !callable.has(t));
}

/**
 * Candidate surfaces: a tool that takes free text and does not only read (it may keep it), with a
 * reader that needs no argument (read-only first), or itself. At most `max`.
 */
export function sessionSurfaces(ctx: ProbeContext, max = 2): SessionSurface[] {
  const tools = callableTools(ctx.protocol.tools, ctx);
  const readOnly = (t: ToolInfo): boolean => t.annotations?.['readOnlyHint'] === true;
  const planters = tools.filter(plants);
  const readers = tools
    .filter((t) => requiredAll(t).length === 0)
    .sort((a, b) => Number(readOnly(b)) - Number(readOnly(a)));
  const out: SessionSurface[] = [];
  for (const plant of planters) {
    for (const read of [...readers.filter((r) => r !== plant), plant]) {
      if (out.length < max) out.push({ plant, read });
    }
  }
  return out;
}

/** Options of one request in a session experiment. */
interface As {
  readonly identity: IdentityName;
  readonly label: string;
  /** The session id presented; `null` for none; absent for the identity's own. */
  readonly session?: string | null;
}

/** The tools/call of `tool`, its free text set to `canary`. */
export function callTool(
  ctx: ProbeContext,
  tool: ToolInfo,
  canary: string,
  as: As,
): Promise<Exchange> {
  const args = argumentsFor(tool.inputSchema, { canary, boolean: false });
  return ctx.request(
    'tools/call',
    { name: tool.name, arguments: args },
    {
      identity: as.identity,
      label: as.label,
      ...(as.session === undefined ? {} : { session: as.session }),
    },
  );
}

/** What A's session shows of itself, and what B sees in its own. */
export interface SessionView {
  readonly surface: SessionSurface;
  readonly canaryA: string;
  /** The free text of every read (a reader that takes none ignores it). */
  readonly neutral: string;
  readonly planted: Exchange;
  readonly readA: Exchange;
  readonly readB: Exchange;
  /** A's canary, and the tokens A's answers name (twice) that B's never do. */
  readonly markers: readonly Marker[];
  /** Whether A's session shows anything of A's at all (canary or A-only tokens). */
  readonly showsItself: boolean;
}

/** A plants a canary in its session and reads it (A, B, A interleaved); see {@link SessionView}. */
export async function viewSession(
  ctx: ProbeContext,
  surface: SessionSurface,
  exclude: readonly string[],
): Promise<SessionView> {
  const canaryA = makeCanary('session-a');
  const neutral = makeCanary('read');
  const planted = await callTool(ctx, surface.plant, canaryA, {
    identity: 'A',
    label: `A plants a canary in its session (${surface.plant.name})`,
  });
  const readA = await callTool(ctx, surface.read, neutral, {
    identity: 'A',
    label: `A reads its session (${surface.read.name})`,
  });
  const readB = await callTool(ctx, surface.read, neutral, {
    identity: 'B',
    label: `B reads its own session (${surface.read.name})`,
  });
  const readA2 = await callTool(ctx, surface.read, neutral, {
    identity: 'A',
    label: `A reads its session again (${surface.read.name})`,
  });
  const tokens = distinctTokens(
    [resultOf(readA), resultOf(readA2)],
    [resultOf(readB)],
    [...exclude, canaryA, neutral],
  );
  const markers = markersOf(canaryA, tokens);
  const shown = markersShown(resultOf(readA), markers);
  return {
    surface,
    canaryA,
    neutral,
    planted,
    readA,
    readB,
    markers,
    showsItself: sessionReading(readA) === 'accepted' && shown.length > 0,
  };
}

/** What a subject reading showed of A's, with what B sees anyway left out. */
export function attributed(
  subject: unknown,
  markers: readonly Marker[],
  seenAnyway: readonly unknown[],
): Marker[] {
  const seen = new Set(markersShown(seenAnyway, markers).map((m) => m.value));
  return markersShown(subject, markers).filter((m) => !seen.has(m.value));
}

/** A marker list in a reason: `A's canary` or `A's principal`. */
export const whatOf = (ms: readonly Marker[]): string =>
  ms.some((m) => m.kind === 'canary') ? "A's canary" : "A's principal";

/** Where two answers differ, the session ids aside: an observation that shows the experiment. */
export function compared(subject: Exchange, control: Exchange, ids: readonly string[]): string {
  const d = handleDifference([resultOf(subject)], [resultOf(control)], ids);
  return d.length === 0
    ? 'the same answer'
    : d
        .slice(0, 2)
        .map(
          (x) =>
            `${x.path}: ${JSON.stringify(x.before ?? null)} → ${JSON.stringify(x.after ?? null)}`,
        )
        .join('; ');
}

/** A session id nobody was handed, shaped like `like`. */
export const forgedLike = (like: string): string => randomSameShape(like);
