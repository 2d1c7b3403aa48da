/**
 * The pace of one server: how many requests may be in flight to it, how far apart they start, and
 * until when it asked an identity to wait. Every request of a session passes its identity's pace
 * just before it goes on the wire, so when the server sheds load the probes' lanes slow down
 * together, whatever lane they run in.
 *
 * - At first there is no limit: the lanes run as wide as the plan says.
 * - A shed halves the width (down to one in flight), doubles the spacing between request starts
 *   (from 25 ms, at most 400 ms), and, when the server said how long (`Retry-After`), holds every new
 *   request of the identity it shed until then. Sheds of requests that started before the last
 *   slow-down do not slow it again: they were sent at the old pace.
 * - A run of four answers that are not shed undoes one step: the width doubles back (unlimited again
 *   past 16), the spacing halves (none under 10 ms).
 * - A shed request keeps its place in its identity's line while it waits to be sent again
 *   ({@link Turn}): no later request of the identity goes first, so the window the server frees
 *   is its own.
 *
 * A server has one pace per identity ({@link createServerPaces}), and they share part of their
 * state. Real servers may limit per credential or for everyone, and the scanner cannot tell which
 * from one shed, so each part sits where it is right for both:
 *
 * - the width and the spacing are the server's, shared: its capacity is one, whoever sends, and two
 *   identities that each kept their own would overrun a server that limits everyone (two requests
 *   in flight where it takes one). So B shed narrows A's lanes too: A is slowed, never stopped, and
 *   its answers widen them again;
 * - the `Retry-After` hold is the identity's: a limit keyed on B's credential says nothing of A's
 *   (a server that limits everyone sheds A's next request too, and A then holds on its own);
 * - each identity also has a width of its own, narrowed by its own sheds as the server's is and
 *   widened again only by its own answers: A's answers widen the server's lanes, and without it B's
 *   requests would crowd back in, shed again and again while they race for each freed window, until
 *   one gave up; with it B's requests wait their turn in the pace, not on the wire;
 * - the memory that the server sheds everything (a request gave up and nothing was answered since,
 *   so the next shed request gives up at once instead of waiting its retries out) is both: an
 *   identity's own give-up holds until one of its own requests is answered, and any give-up until
 *   any answer. So A's answers do not make each of B's requests wait its retries out again.
 *
 * The pace also counts what shedding cost, for the report: requests shed by kind, requests sent
 * again, requests that never got through, and the time spent waiting.
 */
import type { ShedSummary } from '../model/report.js';
import type { IdentityName } from '../model/target.js';
import type { Shed, ShedKind } from './shed.js';

/** How hard a request pushes against a server that sheds. */
export interface PaceLimits {
  /** Most times one request is sent again after being shed, when the server said how long to wait. */
  readonly maxRetries: number;
  /**
   * Most times for a 503 that did not say how long: a bare 503 may be an outage as well as a busy
   * server, and an outage is not to be hammered. (A 429 or an in-band rate-limit error names load
   * whether or not it says how long, and gets `maxRetries`, waiting the backoff when it does not.)
   */
  readonly maxBlindRetries: number;
  /** Longest one wait may be (ms): a server that asks for more is not waited for. */
  readonly maxWaitMs: number;
  /** First backoff when the server gives no hint (ms); doubles per retry, with jitter. */
  readonly backoffMs: number;
  /** Longest backoff without a hint (ms). */
  readonly maxBackoffMs: number;
}

/**
 * The defaults: a request is sent at most 6 more times (3 after a bare 503 without a hint: waits of
 * about 0.25, 0.5 and 1 s) and never waits over 30 s at once.
 */
export const PACE_LIMITS: PaceLimits = {
  maxRetries: 6,
  maxBlindRetries: 3,
  maxWaitMs: 30_000,
  backoffMs: 250,
  maxBackoffMs: 4_000,
};

/** What shedding cost a scan, as the report shows it. */
export type PaceStats = ShedSummary;

/** A slot on the wire: release it once the answer is in. */
export interface Ticket {
  readonly startedAt: number;
  release(): void;
}

/**
 * One request's place in its identity's line, from its first try to its answer or its giving up:
 * between tries (waiting out a shed) it keeps the place, so the identity's later requests do not
 * take the window the server freed for it.
 */
export interface Turn {
  end(): void;
}

/** One server's pace. */
export interface Pace {
  readonly limits: PaceLimits;
  /** Time left before the scan's deadline (ms); Infinity when there is none. */
  remaining(): number;
  /**
   * Waits for a slot (width, spacing, the server's hold, and, for a request in `turn`, every
   * earlier request of the identity not on the wire); undefined when `signal` aborted first.
   */
  admit(signal: AbortSignal, turn?: Turn): Promise<Ticket | undefined>;
  /** A place in the identity's line for one request and its tries; end it once it is done. */
  turn(): Turn;
  /**
   * A shed answer to a request sent on `ticket` (before its release): slow down, and hold if the
   * server said how long.
   */
  shed(shed: Shed, ticket: Ticket): void;
  /** An answer that was not shed. */
  calm(): void;
  /** The wait before retry number `attempt` (1-based) of a shed that gave no hint (ms), jittered. */
  backoff(attempt: number): number;
  /** Sleeps `ms`, counted as waited; false when `signal` aborted first. */
  wait(ms: number, signal: AbortSignal): Promise<boolean>;
  /** Counts a request sent again, or one that never got through. */
  count(what: 'retried' | 'gaveUp'): void;
  /**
   * True once a request of this identity gave up and none of its own has been answered since, or
   * one of any identity gave up and nothing at all has been answered since: the server sheds all
   * it sends, and the next shed request gives up at once instead of waiting its own retries out.
   */
  relentless(): boolean;
  stats(): PaceStats;
}

const FIRST_SPACING_MS = 25;
const MAX_SPACING_MS = 400;
const UNLIMITED_ABOVE = 16;
/** Answers in a row, not shed, that undo one slow-down step. */
const CALM_RUN = 4;

/** Resolves after `ms`, or at once when `signal` aborts; true when the time passed. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (passed: boolean): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(passed);
    };
    const onAbort = (): void => done(false);
    const timer = setTimeout(() => done(true), Math.max(0, ms));
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** One pace's mutable state; the functions below read and change it. */
interface PaceState {
  readonly limits: PaceLimits;
  /** Until when this identity's requests wait, as the server asked (`Retry-After`). */
  holdUntil: number;
  readonly byKind: Record<ShedKind, number>;
  retried: number;
  gaveUp: number;
  waitedMs: number;
  /** A give-up with no answer since: set by `count('gaveUp')`, cleared by `calm`. */
  sinceGaveUp: boolean;
  /** This identity's own width and what narrows and widens it (see the header). */
  readonly own: Lanes;
  /** The identity's requests in line, in the order they joined (see {@link Turn}). */
  readonly line: Set<Place>;
  /** What the server's paces share: its width and spacing, and what a give-up says of it. */
  readonly server: ServerState;
}

function wake(state: PaceState): void {
  for (const w of [...state.server.waiting]) w();
}

/** Waits until woken, `ms` passes (when finite) or `signal` aborts. */
function nap(state: PaceState, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      state.server.waiting.delete(done);
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    state.server.waiting.add(done);
    const timer = Number.isFinite(ms) ? setTimeout(done, Math.max(0, ms)) : undefined;
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Takes a slot started `now`: the ticket frees it once, however often it is released. */
function takeSlot(state: PaceState, now: number, place: Place | undefined): Ticket {
  state.server.inFlight++;
  state.own.inFlight++;
  state.server.lastStart = now;
  if (place !== undefined) [place.onWire, place.tried] = [true, true];
  let released = false;
  return {
    startedAt: now,
    release: () => {
      if (released) return;
      released = true;
      state.server.inFlight--;
      state.own.inFlight--;
      if (place !== undefined) place.onWire = false;
      wake(state);
    },
  };
}

/**
 * A {@link Turn} as the pace keeps it (its place is its order in the line): whether a try of it
 * went out, and whether one is on the wire now.
 */
interface Place extends Turn {
  tried: boolean;
  onWire: boolean;
}

/**
 * Whether an earlier request of the identity waits off the wire to be sent again. One not yet sent
 * holds nobody back: it may be waiting on a request sent on its behalf (a legacy handshake).
 */
function waitsBehind(state: PaceState, place: Place | undefined): boolean {
  if (place === undefined) return false;
  // The line is a Set: it iterates in the order its places joined.
  for (const p of state.line) {
    if (p === place) return false;
    if (p.tried && !p.onWire) return true;
  }
  return false;
}

function joinLine(state: PaceState): Place {
  const place: Place = {
    tried: false,
    onWire: false,
    end: () => {
      if (state.line.delete(place)) wake(state);
    },
  };
  state.line.add(place);
  return place;
}

/** Whether `lanes` has room for one more request in flight. */
const room = (lanes: Lanes): boolean => lanes.inFlight < lanes.width;

async function admit(
  state: PaceState,
  signal: AbortSignal,
  turn: Turn | undefined,
): Promise<Ticket | undefined> {
  const srv = state.server;
  const place = turn as Place | undefined;
  // Bounded: every turn either admits, or sleeps until a slot frees, a time passes or an abort.
  while (!signal.aborted) {
    const now = performance.now();
    const at = Math.max(state.holdUntil, srv.lastStart + srv.spacing);
    const free = room(srv) && room(state.own) && !waitsBehind(state, place);
    if (free && now >= at) return takeSlot(state, now, place);
    await nap(state, free ? at - now : Infinity, signal);
  }
  return undefined;
}

function shed(state: PaceState, s: Shed, ticket: Ticket): void {
  const srv = state.server;
  state.byKind[s.kind]++;
  srv.calmRun = 0;
  const now = performance.now();
  // The hold is this identity's: a limit keyed on the credential says nothing of the other's.
  if (s.retryAfterMs !== undefined && s.retryAfterMs <= state.limits.maxWaitMs)
    state.holdUntil = Math.max(state.holdUntil, now + s.retryAfterMs);
  // A request sent before the last slow-down was sent at the old pace, already answered for.
  state.own.calmRun = 0;
  if (ticket.startedAt >= state.own.slowedAt) narrow(state.own, now);
  if (ticket.startedAt >= srv.slowedAt) {
    narrow(srv, now);
    srv.spacing = Math.min(MAX_SPACING_MS, srv.spacing === 0 ? FIRST_SPACING_MS : srv.spacing * 2);
  }
  srv.narrowest = Math.min(srv.narrowest ?? Infinity, srv.width, state.own.width);
}

/** Halves the width of `lanes` (down to one in flight) at `now`. */
function narrow(lanes: Lanes, now: number): void {
  lanes.slowedAt = now;
  lanes.width = Math.max(1, Math.floor(Math.min(lanes.width, lanes.inFlight) / 2));
}

/** A width one step wider: twice as wide, unlimited past {@link UNLIMITED_ABOVE}. */
const doubled = (width: number): number => (width * 2 > UNLIMITED_ABOVE ? Infinity : width * 2);

/** One step of widening back after a calm run of `lanes`' answers; true when it widened. */
function widen(lanes: Lanes): boolean {
  if (lanes.width === Infinity || ++lanes.calmRun < CALM_RUN) return false;
  lanes.calmRun = 0;
  lanes.width = doubled(lanes.width);
  return true;
}

function calm(state: PaceState): void {
  state.sinceGaveUp = false;
  state.server.sinceGaveUp = false;
  const ownWider = widen(state.own);
  if (easeServer(state.server) || ownWider) wake(state);
}

/** One step back toward no limit for the server after a calm run; true when it eased. */
function easeServer(srv: ServerState): boolean {
  if (srv.width === Infinity && srv.spacing === 0) return false;
  if (++srv.calmRun < CALM_RUN) return false;
  srv.calmRun = 0;
  srv.width = doubled(srv.width);
  srv.spacing = srv.spacing / 2 < 10 ? 0 : srv.spacing / 2;
  return true;
}

function backoff(limits: PaceLimits, attempt: number): number {
  const ceiling = Math.min(limits.maxBackoffMs, limits.backoffMs * 2 ** (attempt - 1));
  // Full jitter over the upper half: lanes shed together do not come back together.
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

async function waitCounted(state: PaceState, ms: number, signal: AbortSignal): Promise<boolean> {
  const started = performance.now();
  const passed = await sleep(ms, signal);
  state.waitedMs += performance.now() - started;
  return passed;
}

function count(state: PaceState, what: 'retried' | 'gaveUp'): void {
  if (what === 'retried') state.retried++;
  else {
    state.gaveUp++;
    state.sinceGaveUp = true;
    state.server.sinceGaveUp = true;
  }
}

function stats(state: PaceState): PaceStats {
  const { byKind } = state;
  const { narrowest } = state.server;
  return {
    total: byKind['429'] + byKind['503'] + byKind['in-band'],
    byKind: { ...byKind },
    retried: state.retried,
    gaveUp: state.gaveUp,
    waitedMs: Math.round(state.waitedMs),
    ...(narrowest === undefined ? {} : { narrowest }),
  };
}

/** Requests in flight, and how many may be: a server's, or one identity's own. */
interface Lanes {
  width: number;
  inFlight: number;
  /** When a shed last narrowed them: sheds of requests started before then do not again. */
  slowedAt: number;
  /** Answers in a row not shed, toward one step back. */
  calmRun: number;
}

const openLanes = (): Lanes => ({
  width: Infinity,
  inFlight: 0,
  slowedAt: -Infinity,
  calmRun: 0,
});

/**
 * What the paces of one server share: how many requests may be in flight to it and how far apart
 * they start (its capacity, whoever sends), and a give-up with no answer since, to any identity.
 */
interface ServerState extends Lanes {
  spacing: number;
  lastStart: number;
  narrowest: number | undefined;
  /** Admissions waiting for a slot; woken when one frees or the pace eases. */
  readonly waiting: Set<() => void>;
  sinceGaveUp: boolean;
}

function serverState(): ServerState {
  return {
    ...openLanes(),
    spacing: 0,
    lastStart: -Infinity,
    narrowest: undefined,
    waiting: new Set(),
    sinceGaveUp: false,
  };
}

/**
 * A fresh pace, unlimited until the server sheds. `remaining` reads the scan's deadline; `server`
 * is what it shares with the server's other paces (none: a server of its own).
 */
export function createPace(
  remaining: () => number = () => Infinity,
  limits: PaceLimits = PACE_LIMITS,
  server: ServerState = serverState(),
): Pace {
  const state: PaceState = {
    limits,
    holdUntil: 0,
    byKind: { '429': 0, '503': 0, 'in-band': 0 },
    retried: 0,
    gaveUp: 0,
    waitedMs: 0,
    sinceGaveUp: false,
    own: openLanes(),
    line: new Set(),
    server,
  };
  return {
    limits,
    remaining,
    admit: (signal, turn) => admit(state, signal, turn),
    turn: () => joinLine(state),
    shed: (s, ticket) => shed(state, s, ticket),
    calm: () => calm(state),
    backoff: (attempt) => backoff(limits, attempt),
    wait: (ms, signal) => waitCounted(state, ms, signal),
    count: (what) => count(state, what),
    relentless: () => state.sinceGaveUp || state.server.sinceGaveUp,
    stats: () => stats(state),
  };
}

/** One server's paces, one per identity: the server's width and spacing shared, the holds apart. */
export type ServerPaces = Readonly<Record<IdentityName, Pace>>;

/** A server's fresh paces (see the header): A's and B's, sharing what a give-up says of the server. */
export function createServerPaces(
  remaining: () => number = () => Infinity,
  limits: PaceLimits = PACE_LIMITS,
): ServerPaces {
  const server = serverState();
  return { A: createPace(remaining, limits, server), B: createPace(remaining, limits, server) };
}

/** The paces' costs together, or undefined when no server shed anything. */
export function shedSummary(paces: readonly Pace[]): ShedSummary | undefined {
  const all = paces.map((p) => p.stats()).filter((s) => s.total > 0);
  if (all.length === 0) return undefined;
  const sum = (f: (s: ShedSummary) => number): number => all.reduce((n, s) => n + f(s), 0);
  const narrowest = all
    .map((s) => s.narrowest)
    .filter((n): n is number => n !== undefined)
    .reduce<number | undefined>((m, n) => Math.min(m ?? n, n), undefined);
  return {
    total: sum((s) => s.total),
    byKind: {
      '429': sum((s) => s.byKind['429']),
      '503': sum((s) => s.byKind['503']),
      'in-band': sum((s) => s.byKind['in-band']),
    },
    retried: sum((s) => s.retried),
    gaveUp: sum((s) => s.gaveUp),
    waitedMs: sum((s) => s.waitedMs),
    ...(narrowest === undefined ? {} : { narrowest }),
  };
}
