/**
 * One attempt of a probe on one candidate (a minter/consumer pair, an `input_required` tool), with
 * its own controls and observations. A probe may try several candidates within its budget; only the
 * trial it reports has its controls recorded, so a candidate that turned out not to be a flow at all
 * cannot turn a sound verdict on another candidate into `errored`.
 */
import type { ProbeContext, ProbeDecision } from '../model/probe.js';
import type { ControlResult, Observation } from '../model/probe.js';
import type { Exchange } from '../model/wire.js';

/** A candidate's controls, observations and decision. */
export interface Trial {
  readonly subject: string;
  readonly controls: Map<string, ControlResult>;
  readonly observations: Observation[];
  /** Set once the trial reached a verdict. */
  decision?: ProbeDecision;
  /** The probe's call budget ran out mid-trial: the trial is incomplete, not errored. */
  outOfBudget: boolean;
}

/** A fresh trial of `subject` (e.g. `export_workspace`). */
export function startTrial(subject: string): Trial {
  return { subject, controls: new Map(), observations: [], outOfBudget: false };
}

/** Record a control on a trial. */
export function check(
  trial: Trial,
  id: string,
  held: boolean,
  expected: string,
  observed: string,
): boolean {
  trial.controls.set(id, { held, expected, observed });
  return held;
}

/** True when an exchange was not sent because the budget was spent (and marks the trial). */
export function outOfBudget(trial: Trial, exchange: Exchange): boolean {
  const spent = exchange.outcome.kind === 'failure' && exchange.outcome.failure === 'budget';
  if (spent) trial.outOfBudget = true;
  return spent;
}

const RANK = { confirmed: 4, errored: 3, refuted: 2, skipped: 1 } as const;

/**
 * The trial to report: a confirmation anywhere wins; then an error, because a candidate that drew
 * no decision was not shown to hold, and a refutation elsewhere must not paper over it (errored
 * never reads green); then a refutation; then a skip. A trial cut short by the budget counts only
 * when nothing else ran.
 */
export function strongest(trials: readonly Trial[]): Trial | undefined {
  const decided = trials.filter((t) => t.decision !== undefined);
  const complete = decided.filter((t) => !t.outOfBudget);
  const pool = complete.length > 0 ? complete : decided;
  let best: Trial | undefined;
  for (const t of pool) {
    // Stryker disable next-line OptionalChaining,StringLiteral: the pool holds decided trials only.
    const rank = RANK[t.decision?.verdict ?? 'skipped'];
    // Stryker disable next-line OptionalChaining,StringLiteral: the pool holds decided trials only.
    if (best === undefined || rank > RANK[best.decision?.verdict ?? 'skipped']) best = t;
  }
  return best;
}

/** Record the chosen trial's controls and observations, note the others, and return its decision. */
export function report(
  ctx: ProbeContext,
  trials: readonly Trial[],
  fallback: ProbeDecision,
): ProbeDecision {
  const best = strongest(trials);
  if (best?.decision === undefined) return fallback;
  for (const other of trials) {
    if (other !== best && other.decision !== undefined) {
      ctx.note(`also tried ${other.subject}: ${other.decision.verdict} (${other.decision.reason})`);
    }
  }
  for (const [id, result] of best.controls) ctx.control(id, result);
  for (const o of best.observations) ctx.observe(o.label, o.detail);
  return best.decision;
}
