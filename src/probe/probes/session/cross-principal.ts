import { LEGACY_SESSION_MANAGEMENT, SESSION_HIJACKING } from '../../model/references.js';
import {
  confirmed,
  defineProbe,
  errored,
  refuted,
  skipped,
  type ProbeContext,
  type ProbeDecision,
} from '../../model/probe.js';
import { makeCanary, shows, type Marker } from '../../evidence/markers.js';
import { resultOf } from '../../driver/rounds.js';
import {
  attributed,
  callTool,
  compared,
  described,
  describedStream,
  forgedLike,
  plantersLeftAlone,
  sessionReading,
  sessionSurfaces,
  STREAM_MAX_BYTES,
  STREAM_WINDOW_MS,
  viewSession,
  whatOf,
  type SessionSurface,
  type SessionView,
} from '../../experiments/session-trial.js';
import type { Exchange, LegacySessions, StreamReading } from '../../model/wire.js';
import type { ToolInfo } from '../../model/tools.js';

const RATIONALE = `
A 2025-11-25 Streamable HTTP server keeps a client's state behind the \`Mcp-Session-Id\` header.
The transport says session ids should be globally unique and cryptographically secure, and the
security best practices (Session Hijacking) say servers must verify every inbound request, must not
use sessions for authentication, and should bind session ids to user-specific information (their
example keys a session as \`<user_id>:<session_id>\`). A server that routes by the id alone serves
whoever presents it, and one that attributes a request without an id to its only live session serves
anyone at all. Published advisories this year include both.

A plants a canary in its own session and reads it back; B reads in its own session (what B sees
anyway); then B, with B's own credential, sends the same read with one difference each: A's session
id; a forged id of the same shape (the control: what an id nobody was handed opens); and, after B
ends its own session with \`DELETE\` so that A's is the only one the scan holds, no id at all. B also
opens the GET event stream with A's id while A plants a second canary, and its own stream while A
plants a third (the control: A's events must not reach every stream).

**Confirmed** when a reading shows A's canary or A's principal (tokens A's answers name at two times
and B's never do) that neither B's own session nor the forged id shows, or when the stream opened
with A's id carries A's event and B's own stream does not. **Refuted** when each is refused or shows
nothing of A's. Controls: B is served in a session of its own; the forged id draws a decision (if it
is served, the server validates no id, which is noted). A session that shows nothing of itself (no
canary, no principal) leaves nothing to read, and the probe is skipped naming the tools it tried. A 400 or 404 is the transport's own refusal of a missing or
unknown session. Skipped over stdio, on a 2026-07-28 server (it has no sessions), and on a legacy
server that hands out no session id.

Budget: 24 calls.`;

/**
 * Why there is nothing to plant with: no tool takes text, or the call plan leaves every one that
 * does alone in this pass (the user's word reaches it, and the last pass runs this probe again).
 */
function noPlanter(leftAlone: readonly ToolInfo[]): string {
  const need = 'precondition: a tool that takes text, to plant a canary in a session';
  if (leftAlone.length === 0) return need;
  const names = leftAlone.slice(0, 3).map((t) => t.name);
  const more = leftAlone.length > 3 ? `, and ${leftAlone.length - 3} more` : '';
  return `${need}: the call plan calls none of them (left alone: ${names.join(', ')}${more}; --allow-tool ${names[0]!} or --include-destructive would call one)`;
}

type Read = (label: string, session: string | null) => Promise<Exchange>;

/**
 * The first surface whose reads show A's session (its canary or principal), else the first one
 * tried; a decision when A's own session drew none, or when no surface shows anything of itself.
 */
async function findView(
  ctx: ProbeContext,
  surfaces: readonly SessionSurface[],
  sidA: string,
): Promise<SessionView | ProbeDecision> {
  let view: SessionView | undefined;
  for (const surface of surfaces) {
    const v = await viewSession(ctx, surface, [sidA]);
    const failed = [v.planted, v.readA].find((e) => sessionReading(e) === 'failure');
    if (failed !== undefined)
      return errored(`A's own session drew no decision: ${described(failed)}`);
    view ??= v;
    if (v.showsItself) {
      view = v;
      break;
    }
  }
  if (view === undefined || !view.showsItself)
    return skipped(
      `precondition: a tool whose answer shows the session's state or principal (tried ${surfaces.map((s) => `${s.plant.name} → ${s.read.name}`).join(', ')})`,
    );
  return view;
}

/** The forged-id control: B's read on an id nobody was handed; a decision when it drew none. */
async function readForged(
  ctx: ProbeContext,
  read: Read,
  sidA: string,
): Promise<{ readonly onForged: Exchange; readonly forged: string } | ProbeDecision> {
  const forged = forgedLike(sidA);
  const onForged = await read('B presents a forged session id of the same shape', forged);
  const forgedDecided = sessionReading(onForged) !== 'failure';
  ctx.control('forgedSessionDecided', {
    held: forgedDecided,
    expected: 'a decision on a session id nobody was handed',
    observed: described(onForged),
  });
  if (!forgedDecided) return errored('the forged-session control drew no decision');
  if (sessionReading(onForged) === 'accepted')
    ctx.observe(
      'no session validation',
      'a session id nobody was handed was served: only a marker of A can confirm',
    );
  return { onForged, forged };
}

/**
 * B listens on A's stream, then on its own, while A plants a canary each time; A's event shows on
 * A's stream only when it does not reach B's own stream too.
 */
async function streamTrial(
  ctx: ProbeContext,
  sessions: LegacySessions,
  surface: SessionSurface,
  sidA: string,
): Promise<{ readonly stream: StreamReading; readonly streamShows: boolean }> {
  const plantWhile = (canary: string, label: string) => () =>
    callTool(ctx, surface.plant, canary, { identity: 'A', label });
  const canaryS = makeCanary('stream-a');
  const stream = await sessions.listen({
    identity: 'B',
    label: "B opens the GET stream with A's session id",
    session: sidA,
    windowMs: STREAM_WINDOW_MS,
    maxBytes: STREAM_MAX_BYTES,
    during: plantWhile(canaryS, "A plants a canary while B listens on A's session"),
  });
  const canaryO = makeCanary('stream-own');
  const own = await sessions.listen({
    identity: 'B',
    label: 'B opens the GET stream of its own session',
    windowMs: STREAM_WINDOW_MS,
    maxBytes: STREAM_MAX_BYTES,
    during: plantWhile(canaryO, 'A plants a canary while B listens on its own session'),
  });
  const broadcast = shows(own.events, canaryO);
  if (broadcast)
    ctx.observe(
      'events reach every stream',
      "A's event reached B's own stream too: not a session's",
    );
  return { stream, streamShows: !broadcast && shows(stream.events, canaryS) };
}

/** What each reading found, and the verdict on them. */
function decide(
  cross: Exchange,
  crossShows: readonly Marker[],
  streamed: { readonly stream: StreamReading; readonly streamShows: boolean },
  none: Exchange,
  noneShows: readonly Marker[],
): ProbeDecision {
  const { stream, streamShows } = streamed;
  const found = [
    crossShows.length > 0 &&
      `B presented A's session id on a POST and was served inside A's session (${whatOf(crossShows)})`,
    streamShows && "B opened the GET stream with A's session id and received A's event",
    noneShows.length > 0 &&
      `a request without a session id was served inside A's session, the only live one (${whatOf(noneShows)})`,
  ].filter((x): x is string => typeof x === 'string');
  if (found.length > 0) return confirmed(found.join('; '));
  const undecided = [cross, none].find((e) => sessionReading(e) === 'failure');
  if (undecided !== undefined) return errored(`no decision: ${described(undecided)}`);
  if (stream.end === 'failure') return errored(`the GET stream drew no answer: ${stream.detail}`);
  return refuted(
    `nothing of A's reached B: with A's session id ${described(cross)}; GET with A's session id ${describedStream(stream)}; without a session id ${described(none)}`,
  );
}

/** The trial once A's session shows itself: the controls, then each of B's readings, in order. */
async function crossTrial(
  ctx: ProbeContext,
  sessions: LegacySessions,
  view: SessionView,
  sidA: string,
): Promise<ProbeDecision> {
  const { surface, markers, neutral } = view;
  const sidB = sessions.idOf('B');
  ctx.control('bOwnSession', {
    held: sidB !== undefined && sidB !== sidA && sessionReading(view.readB) === 'accepted',
    expected: "B is served in a session of its own, with an id other than A's",
    observed: `${sidB === undefined ? 'no id' : sidB === sidA ? "A's id" : 'an id of its own'}; ${described(view.readB)}`,
  });

  const read: Read = (label, session) =>
    callTool(ctx, surface.read, neutral, { identity: 'B', label, session });
  const forgedRead = await readForged(ctx, read, sidA);
  if ('verdict' in forgedRead) return forgedRead;
  const { onForged, forged } = forgedRead;
  const anyway = [resultOf(view.readB), resultOf(onForged)];
  const ids = [sidA, sidB ?? '', forged];

  const cross = await read("B presents A's session id", sidA);
  const crossShows =
    sessionReading(cross) === 'accepted' ? attributed(resultOf(cross), markers, anyway) : [];
  if (sessionReading(cross) === 'accepted')
    ctx.observe(
      "A's session id accepted for B",
      `against the forged id: ${compared(cross, onForged, ids)}; against B's own session: ${compared(cross, view.readB, ids)}`,
    );

  const streamed = await streamTrial(ctx, sessions, surface, sidA);

  const ended = await sessions.terminate('B', 'B ends its own session (DELETE)');
  if (ended.outcome.kind !== 'result')
    ctx.observe(
      'B not ended',
      `DELETE of B's session: ${described(ended)}; A's session may not be the only one`,
    );
  const none = await read('B sends a request without any session id', null);
  const noneShows =
    sessionReading(none) === 'accepted' ? attributed(resultOf(none), markers, anyway) : [];
  return decide(cross, crossShows, streamed, none, noneShows);
}

export default defineProbe({
  id: 'session/cross-principal',
  title:
    "A session id presented by another principal, or none, does not open a principal's session",
  flaw: "Another principal is served inside a principal's session (by its id, or with none)",
  severity: 'high',
  rationale: RATIONALE.trim(),
  references: [SESSION_HIJACKING, LEGACY_SESSION_MANAGEMENT],
  maxCalls: 24,
  touches: ['sessions'],
  runsOnLegacy: true,
  async run(ctx) {
    if (ctx.transport !== 'http')
      return skipped('precondition: the Streamable HTTP transport (stdio has no sessions)');
    const sessions = ctx.sessions;
    if (ctx.protocol.era !== 'legacy' || sessions === undefined)
      return skipped(
        'precondition: a 2025-11-25 server: 2026-07-28 has no Mcp-Session-Id, so there is no session to present',
      );
    const sidA = sessions.idOf('A');
    if (sidA === undefined)
      return skipped('precondition: a session: initialize was answered without an Mcp-Session-Id');
    const surfaces = sessionSurfaces(ctx);
    if (surfaces.length === 0) return skipped(noPlanter(plantersLeftAlone(ctx)));
    const view = await findView(ctx, surfaces, sidA);
    if ('verdict' in view) return view;
    return crossTrial(ctx, sessions, view, sidA);
  },
});
