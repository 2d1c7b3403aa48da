/**
 * The experiments behind the state probes' verdicts. A verdict is never read off the shape of one
 * answer; it is the outcome of sending the same request with one controlled difference and
 * comparing the answers:
 *
 * - **Noise.** The untouched flow is run twice; whatever differs between the two (a clock, a fresh
 *   id, a random reference) varies by itself and is ignored in every later comparison.
 * - **Does the state matter?** The same flow with a changed (or random) state: the state is
 *   consulted when the answer differs from the untouched one beyond that noise. The difference
 *   itself is the evidence.
 * - **Did the planted value act, or was it only shown back?** The same change again with a second
 *   canary in a field the server has never seen, beside the changed one. A server that shows back
 *   the whole state (a debug tool printing what it got) shows the control too, and its answer
 *   changed only because it repeats its input. A server that shows only the field it uses acted on
 *   the client's value.
 *
 * Every state a flow sent is masked in its answers (`viewOf`), so a server that repeats the blob it
 * got shows nothing of its own by doing so.
 */
import type { ProbeContext } from '../model/probe.js';
import { makeCanary, textOf } from '../evidence/markers.js';
import { stringCarries } from '../evidence/encodings.js';
import {
  differences,
  noiseOf,
  type Difference,
  type Leaf,
  type Noise,
} from '../evidence/positions.js';
import type { AnswerShape } from '../driver/answers.js';
import { describe, retryFresh, viewOf, type Call, type Resumed } from '../driver/rounds.js';
import type { Exchange } from '../model/wire.js';
import type { IdentityName } from '../model/target.js';

/** An untouched flow's view and what varies in it by itself. */
export interface Baseline {
  readonly view: readonly Leaf[];
  readonly noise: Noise;
  /** How many untouched runs the noise was learned from (2 when the second one worked). */
  readonly samples: number;
}

/** Options shared by the experiments' sends. */
export interface Send {
  readonly owner: IdentityName;
  readonly sender?: IdentityName;
  readonly shape: AnswerShape;
  readonly retryCall?: Call;
}

/**
 * The untouched flow run a second time from a fresh round 1, and the baseline of both runs. The
 * second run is sent exactly as the first (same call, same answers, its own untouched state).
 */
export async function baselineOf(
  ctx: ProbeContext,
  call: Call,
  first: Resumed,
  send: Send,
  label: string,
): Promise<{ baseline: Baseline; second?: Resumed; exchange?: Exchange }> {
  if (ctx.settings.ablate?.noise === true) {
    // Ablated: the first run stands in for the second, so nothing is known to vary.
    const view = viewOf(first);
    return { baseline: { view, noise: noiseOf([view]), samples: 2 }, second: first };
  }
  const again = await retryFresh(ctx, call, { ...send, label, change: (s) => s });
  const view = viewOf(first);
  const second = again.resumed;
  if (second === undefined || second.reading !== first.reading)
    return { baseline: { view, noise: noiseOf([view]), samples: 1 }, exchange: again.round1 };
  return {
    baseline: { view, noise: noiseOf([view, viewOf(second)]), samples: 2 },
    second,
    exchange: second.exchange,
  };
}

/** Where `resumed` differs from the baseline beyond its noise. */
export function changedFrom(baseline: Baseline, resumed: Resumed): Difference[] {
  return differences(baseline.view, viewOf(resumed), baseline.noise);
}

/** One difference as a reader sees it: `content.0.text: "… alice …" → "… sg-state-… …"`. */
export function showDifference(d: Difference): string {
  const q = (s: string | undefined): string => (s === undefined ? '(absent)' : JSON.stringify(s));
  return `${d.path}: ${q(d.before)} → ${q(d.after)}`;
}

/** The differences in words, the first few. */
export function showDifferences(ds: readonly Difference[], max = 3): string {
  const shown = ds.slice(0, max).map(showDifference).join('; ');
  return ds.length > max ? `${shown}; and ${ds.length - max} more` : shown;
}

/** How the reflection control came out. */
export type Reflection =
  /** The control canary came back: the server shows back what it was sent. */
  | 'reflected'
  /** Accepted, and the control did not come back: the server shows only what it uses. */
  | 'not reflected'
  /** The state with the control was refused: the server checks the state's shape or origin. */
  | 'refused'
  /** No decision (timeout, 5xx): the control proves nothing. */
  | 'failure'
  /** The state has no field to plant beside (opaque), or the change did not apply. */
  | 'not applicable';

/**
 * The reflection control: the same flow, its state changed by `plant` with a fresh control canary
 * in a field the server has never seen. See the module comment for how it reads.
 */
export async function reflectionControl(
  ctx: ProbeContext,
  call: Call,
  send: Send & { readonly round?: number; readonly label: string },
  plant: ((state: string, control: string) => string | undefined) | undefined,
): Promise<{ reflection: Reflection; control: string; detail: string }> {
  const control = makeCanary('control');
  if (ctx.settings.ablate?.reflection === true)
    return { reflection: 'not applicable', control, detail: 'the control was left out (ablated)' };
  if (plant === undefined)
    return { reflection: 'not applicable', control, detail: 'the state has no fields' };
  const r = await retryFresh(ctx, call, { ...send, change: (s) => plant(s, control) });
  if (r.resumed === undefined)
    return {
      reflection: r.round1.outcome.kind === 'failure' ? 'failure' : 'not applicable',
      control,
      detail: describe(r.round1),
    };
  const { reading, rounds, exchange } = r.resumed;
  if (reading === 'failure') return { reflection: 'failure', control, detail: describe(exchange) };
  if (reading !== 'accepted') return { reflection: 'refused', control, detail: describe(exchange) };
  // In any encoding: a server that shows back its request base64'd in a trace line shows it back.
  // The next round's `requestState` is left out: a server that carries its state forward into the
  // state it issues next is not showing it to anyone.
  const shown = rounds.some(
    (e) => e.outcome.kind !== 'failure' && stringCarries(textOf(withoutState(e.outcome)), control),
  );
  return {
    reflection: shown ? 'reflected' : 'not reflected',
    control,
    detail: shown
      ? 'the control canary came back'
      : 'accepted; the control canary did not come back',
  };
}

/** An outcome without the `requestState` a result hands out. */
function withoutState(outcome: Exchange['outcome']): unknown {
  if (outcome.kind !== 'result') return outcome;
  const { requestState: _next, ...rest } = outcome.result;
  return rest;
}
