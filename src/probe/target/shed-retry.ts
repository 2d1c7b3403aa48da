/**
 * A shed request waited out and sent again: as long as the server asks (`Retry-After`, or its
 * in-band hint), else a jittered backoff, within the pace's limits (retries, longest wait) and the
 * scan's deadline. A shed request is never an answer: either a later try gets one, and that is the
 * exchange (the shed ones kept before it as evidence), or the request ends as failure `shed`,
 * which says how often the server shed, how long the scan waited, why it stopped, and what to do.
 */
import type { Redactor } from '../evidence/evidence.js';
import { noteEvidence } from '../evidence/evidence.js';
import type { Evidence } from '../model/evidence.js';
import type { Exchange } from '../model/wire.js';
import { abortOutcome } from './jsonrpc.js';
import type { Pace, Turn } from './pace.js';
import { shedLabel, SHED_KINDS, type Shed, type ShedKind } from './shed.js';

/** One try: the exchange, and the shed it was, if it was. */
export interface Try {
  readonly exchange: Exchange;
  readonly shed?: Shed;
}

/** What a retried request reads besides the pace. */
export interface RetryOptions {
  /** The scan's deadline and the probe's cap: a wait ends when either aborts. */
  readonly signal: AbortSignal;
  readonly redactor: Redactor;
}

/** Time in seconds, one decimal: `1.5 s`. */
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** `HTTP 429 ×3, in-band rate-limit error ×1`. */
function tally(counts: Readonly<Record<ShedKind, number>>): string {
  return SHED_KINDS.filter((k) => counts[k] > 0)
    .map((k) => `${shedLabel(k)} ×${counts[k]}`)
    .join(', ');
}

/** Either the wait before the next try (ms), or why there is none. */
function nextWait(pace: Pace, shed: Shed, retries: number): number | string {
  const { maxRetries, maxBlindRetries, maxWaitMs } = pace.limits;
  const asked = shed.retryAfterMs;
  if (pace.relentless())
    return 'it has shed every request since one gave up, so this one was not sent again';
  // Only a bare 503 may be an outage rather than load: a 429 or an in-band rate-limit error says it
  // is load whether or not it says for how long, and gets the full count.
  const blind = asked === undefined && shed.kind === '503';
  if (retries >= (blind ? maxBlindRetries : maxRetries))
    return `still shed after ${retries + 1} tries`;
  if (asked !== undefined && asked > maxWaitMs)
    return `it asked to wait ${seconds(asked)}, more than the ${seconds(maxWaitMs)} one request waits at most`;
  const ms = asked ?? pace.backoff(retries + 1);
  const left = pace.remaining();
  if (ms >= left)
    return `waiting ${seconds(ms)} more would pass the scan deadline (${seconds(Math.max(0, left))} left)`;
  return ms;
}

/**
 * Sends with `once` (given the try's number, 0 first, and the request's place in its identity's
 * line, for the pace) until a try is not shed, waiting between tries as the server asks. Bounded:
 * at most `maxRetries` more tries, each wait at most `maxWaitMs` and within the deadline.
 */
export async function retryShed(
  pace: Pace,
  once: (attempt: number, turn: Turn) => Promise<Try>,
  options: RetryOptions,
): Promise<Exchange> {
  const turn = pace.turn();
  try {
    return await triesInTurn(pace, (attempt) => once(attempt, turn), options);
  } finally {
    turn.end();
  }
}

async function triesInTurn(
  pace: Pace,
  once: (attempt: number) => Promise<Try>,
  options: RetryOptions,
): Promise<Exchange> {
  const earlier: Evidence[] = [];
  const counts: Record<ShedKind, number> = { '429': 0, '503': 0, 'in-band': 0 };
  let waited = 0;
  // Requests sent on a try's behalf (a legacy handshake) stay counted when the try is shed.
  let alsoSent = 0;
  for (let attempt = 0; ; attempt++) {
    const { exchange, shed } = await once(attempt);
    if (shed === undefined) {
      if (earlier.length === 0) return exchange;
      const note = `the server shed load (${tally(counts)}); waited ${seconds(waited)} in all, then it answered`;
      return withEarlier(exchange, [...earlier, noteEvidence(options.redactor, note)], alsoSent);
    }
    alsoSent += exchange.alsoSent ?? 0;
    counts[shed.kind]++;
    const wait = nextWait(pace, shed, attempt);
    const started = performance.now();
    const why = typeof wait === 'string' ? wait : await waitOut(pace, wait, options.signal);
    waited += performance.now() - started;
    if (why === undefined) {
      earlier.push(...(exchange.earlier ?? []), exchange.evidence, waitNote(shed, wait, options));
      pace.count('retried');
      continue;
    }
    pace.count('gaveUp');
    // The advice first: a reason quoted in a probe's verdict may be cut short.
    const detail =
      `the server shed load: ${tally(counts)}, waited ${seconds(waited)}; raise --deadline or ` +
      `scan with --serial (${why})`;
    return withEarlier(
      {
        outcome: { kind: 'failure', failure: 'shed', detail },
        evidence: exchange.evidence,
        ...(exchange.earlier ? { earlier: exchange.earlier } : {}),
      },
      earlier,
      alsoSent,
    );
  }
}

/** The note of one wait, kept in the evidence before the next try. */
function waitNote(shed: Shed, wait: number | string, options: RetryOptions): Evidence {
  const hint = shed.retryAfterMs === undefined ? 'no hint, backing off' : 'as it asked';
  const ms = typeof wait === 'number' ? wait : 0;
  return noteEvidence(
    options.redactor,
    `${shedLabel(shed.kind)}: load shed; waited ${seconds(ms)} (${hint}), then sent again`,
  );
}

/** Waits `ms`; undefined when it passed, else why the wait was cut short (the deadline, the cap). */
async function waitOut(pace: Pace, ms: number, signal: AbortSignal): Promise<string | undefined> {
  if (await pace.wait(ms, signal)) return undefined;
  const stop = abortOutcome(signal);
  return `${stop.kind === 'failure' ? stop.detail : 'aborted'} while it waited`;
}

/**
 * `exchange` with `before` recorded ahead of its own earlier evidence, and `alsoSent` more
 * requests sent on its behalf by the tries before it.
 */
function withEarlier(exchange: Exchange, before: readonly Evidence[], alsoSent: number): Exchange {
  const earlier = [...before, ...(exchange.earlier ?? [])];
  const sent = alsoSent + (exchange.alsoSent ?? 0);
  return {
    ...exchange,
    ...(earlier.length === 0 ? {} : { earlier }),
    ...(sent === 0 ? {} : { alsoSent: sent }),
  };
}
