import { TASKS_SECURITY } from '../../model/references.js';
import {
  confirmed,
  defineProbe,
  errored,
  refuted,
  type ProbeContext,
  type ProbeDecision,
} from '../../model/probe.js';
import { taskMakerOrEnd, taskRequest } from '../../experiments/tasks.js';
import { describe, readOutcome } from '../../driver/rounds.js';
import { clockParts, MIN_ID_BITS, predictNext, varyingBits } from '../../experiments/task-ids.js';
import { forgedTaskId } from '../../experiments/task-trial.js';
import { refusalView, sameRefusal } from '../../experiments/refusals.js';

const MAX_CALLS = 40;
/** What the experiment needs once a task tool is found (the discovery, three more tasks and four reads); the rest tries tools. */
const EXPERIMENT_CALLS = 10;

const RATIONALE = `
The Tasks extension lets a task id act as a bearer token, and so says servers "MUST generate them
with sufficient entropy". A counter (\`task-1\`, \`task-2\`), a clock, or a few random characters
let anyone enumerate the live tasks; and a store that answers another principal's id unlike an
unknown one (\`"belongs to another client"\` against \`"not found"\`) tells a stranger which ids are
live even when it refuses them: an existence oracle.

A creates three tasks one after the other. **Confirmed** when the id the scan predicts from them
(a decimal run stepping by the same amount) is the id the server mints for a fourth, or when fewer
than ${MIN_ID_BITS} bits vary across the four (a clock part counts as nothing). Then B presents
A's id and two ids never minted, each refused: what differs between the two unknown ids' answers
(the ids blanked) is noise; an answer on A's id that differs from both beyond that noise is the
oracle, **confirmed at low severity** when it is the only finding. **Refuted** when the ids vary in
at least ${MIN_ID_BITS} bits, no prediction came true, and A's id is refused exactly as an unknown
one. An answer that serves B A's task is no oracle: \`handle/task-cross-principal\` reports it.

Controls: A reads its own task (the id is live), and both unknown ids draw a decision. Skipped
when the server declares no tasks.`;

export default defineProbe({
  id: 'handle/task-guessable',
  title: 'Task ids are unguessable and unknown and foreign ids answer alike',
  flaw: 'Task ids can be guessed, or a foreign id answers unlike an unknown one',
  severity: 'medium',
  rationale: RATIONALE.trim(),
  references: [TASKS_SECURITY],
  maxCalls: MAX_CALLS,
  touches: ['task-ids'],
  // Tasks are spoken on both wires: 2025-11-25's experimental tasks are as presentable by anyone.
  runsOnLegacy: true,
  async run(ctx) {
    const found = await taskMakerOrEnd(ctx, MAX_CALLS - EXPERIMENT_CALLS);
    if (!('maker' in found)) return found;
    const ids = [found.first.taskId];
    for (const n of [2, 3]) {
      const made = await found.maker.create('A', `A creates task ${n}`);
      if (made.taskId === undefined)
        return errored(`A's task ${n} was not created: ${describe(made.exchange)}`);
      ids.push(made.taskId);
    }
    const predicted = predictNext(ids);
    const fourth = await found.maker.create('A', 'A creates task 4');
    if (fourth.taskId === undefined)
      return errored(`A's task 4 was not created: ${describe(fourth.exchange)}`);
    ids.push(fourth.taskId);
    ctx.control('idsMinted', {
      held: new Set(ids).size === ids.length,
      expected: 'four creations, four different task ids',
      observed: `${new Set(ids).size} distinct of ${ids.length}`,
    });
    const bits = varyingBits(ids, Date.now());
    const clock = clockParts(fourth.taskId, Date.now());
    ctx.observe(
      'task ids',
      `${ids.length} ids, about ${bits} varying bits${clock.length > 0 ? `; a clock part (${clock.join(', ')})` : ''}${predicted === undefined ? '' : `; predicted the 4th as ${predicted}`}`,
    );

    const presented = await presentations(ctx, ids);
    if ('decision' in presented) return presented.decision;
    const { served, oracle } = presented;
    if (predicted !== undefined && predicted === fourth.taskId)
      return confirmed(
        `sequential task ids: ${ids.slice(0, 3).join(', ')} predicted ${predicted}, and the server minted it`,
      );
    if (bits < MIN_ID_BITS)
      return confirmed(
        `short task ids: about ${bits} bits vary across ${ids.length} consecutive ids (fewer than ${MIN_ID_BITS})`,
      );
    if (oracle !== undefined) return confirmed(`existence oracle: ${oracle}`, 'low');
    const shown = bits > 128 ? 'over 128' : `about ${bits}`;
    const toB = served
      ? "B is answered on A's id (handle/task-cross-principal judges that)"
      : "A's id is refused to B as an unknown one is";
    return refuted(
      `${shown} bits vary across ${ids.length} consecutive task ids, none predicted, and ${toB}`,
    );
  },
});

/**
 * A reads its own task, then B presents an id never minted, A's id and another never minted: was B
 * served, and does A's id draw a refusal unlike an unknown one's (an existence oracle)?
 */
async function presentations(
  ctx: ProbeContext,
  ids: readonly string[],
): Promise<{ decision: ProbeDecision } | { served: boolean; oracle?: string }> {
  const own = await taskRequest(ctx, 'tasks/get', ids[0] as string, 'A', 'A reads its own task');
  ctx.control('ownerReadsOwnTask', {
    held: readOutcome(own.outcome) === 'accepted',
    expected: 'A reads its own task',
    observed: describe(own),
  });
  const unknown1 = forgedTaskId(ids[0] as string, ids);
  const unknown2 = forgedTaskId(ids[0] as string, [...ids, unknown1]);
  const u1 = await taskRequest(ctx, 'tasks/get', unknown1, 'B', 'B presents an id never minted');
  const cross = await taskRequest(ctx, 'tasks/get', ids[0] as string, 'B', "B presents A's id");
  const u2 = await taskRequest(
    ctx,
    'tasks/get',
    unknown2,
    'B',
    'B presents another id never minted',
  );
  const decided = [u1, u2].every((e) => readOutcome(e.outcome) !== 'failure');
  ctx.control('unknownIdDecided', {
    held: decided,
    expected: 'a decision on ids never minted',
    observed: [u1, u2].map(describe).join(' / '),
  });
  if (readOutcome(cross.outcome) === 'failure')
    return { decision: errored(`B's presentation of A's id drew no decision: ${describe(cross)}`) };

  let oracle: string | undefined;
  const served = readOutcome(cross.outcome) === 'accepted';
  if (served) {
    ctx.observe(
      'served, not an oracle',
      "B was answered on A's task id: handle/task-cross-principal judges that",
    );
  } else {
    const noise = !sameRefusal(refusalView(u1, unknown1), refusalView(u2, unknown2));
    const view = refusalView(cross, ids[0] as string);
    const differs =
      !sameRefusal(view, refusalView(u1, unknown1)) &&
      !sameRefusal(view, refusalView(u2, unknown2));
    if (noise)
      ctx.observe(
        'unknown ids answer unlike each other',
        'two ids never minted drew different refusals: no refusal difference counts',
      );
    else if (differs)
      oracle = `A's id is refused unlike an unknown one (${view.label} against ${refusalView(u1, unknown1).label})`;
  }
  return oracle === undefined ? { served } : { served, oracle };
}
