import { HANDLE_HIJACKING, TASKS_SECURITY } from '../../model/references.js';
import { defineProbe, errored } from '../../model/probe.js';
import { taskMakerOrEnd } from '../../experiments/tasks.js';
import { tryTaskPair } from '../../experiments/task-trial.js';
import { report } from '../../experiments/trial.js';

const MAX_CALLS = 72;
/** What the experiment needs once a task tool is found (B's task, up to ten polls of each task, the reads, the list, the update and the cancel); the rest tries tools. */
const EXPERIMENT_CALLS = 44;

const RATIONALE = `
A task is state that spans requests, referenced by its id alone: the client polls \`tasks/get\`,
answers an \`input_required\` task with \`tasks/update\`, and may \`tasks/cancel\` it. The Tasks
extension says servers "MUST perform authentication and authorization checks on each task-related
request"; a store that looks tasks up by id alone lets anyone who sees an id (in a log, a shared
context, a guess) read another client's task, answer its questions, or cancel it.

The task tool is found from \`tools/list\` (tools declaring \`execution.taskSupport\` first), then
by calling every callable tool in the server's order within the budget. A creates a task (a canary
in the tool's free-form strings); B creates its own; both are polled with \`tasks/get\` to their end
(the server's \`pollInterval\` and \`ttl\` honoured, bounded), so what B sees of A's task is
compared once A's result exists. For every task
read the server offers (the extension's \`tasks/get\`, and 2025-11-25's \`tasks/result\` and
\`tasks/list\` where a server still speaks them), A reads its task twice (what moves by itself is
noise), B reads its own, B presents a forged id, then B presents A's. B then answers A's task with
\`tasks/update\` (its own canary in the answers) and A reads its task again; \`tasks/cancel\` is
tried only with \`--include-destructive\`, and only on a task this scan created for it.

**Confirmed** when B learns or changes anything of A's task: an answer on A's task that shows A's
canary, or that is given where the forged id is refused; B's canary in A's task after B's update,
or A's status moved by B's accepted update or cancel. **Refuted** when B is refused A's task on
every method tried and the owner's own update (and cancel) still work, so the refusal is about B.

Controls: both identities create and read their own tasks; the forged id draws a decision; the
server tells A and B apart (it refuses B what it gives A, or names something for A that it never
names for B), so two identical identities end \`errored\`, never \`confirmed\`. Skipped when the
server declares no tasks (\`capabilities.extensions["io.modelcontextprotocol/tasks"]\`, or a
2025-11-25 server's \`capabilities.tasks\` in its \`initialize\` answer).

Both task wires are spoken: the 2026-07-28 extension (the server answers a plain \`tools/call\`
with \`resultType: "task"\`) and the 2025-11-25 experimental tasks of the SDK v1 (the scan asks
for a task with \`params.task\` on a \`tools/call\` to a tool whose \`execution.taskSupport\` is
\`optional\` or \`required\`, and reads the \`{ task }\` answer, \`tasks/result\` and
\`tasks/list\`).`;

export default defineProbe({
  id: 'handle/task-cross-principal',
  title: 'A task created by one principal is refused to another',
  flaw: 'A task created by one principal is read or changed by another',
  severity: 'high',
  rationale: RATIONALE.trim(),
  references: [TASKS_SECURITY, HANDLE_HIJACKING],
  maxCalls: MAX_CALLS,
  touches: ['task-ids'],
  // Tasks are spoken on both wires: 2025-11-25's experimental tasks are as presentable by anyone.
  runsOnLegacy: true,
  async run(ctx) {
    const found = await taskMakerOrEnd(ctx, MAX_CALLS - EXPERIMENT_CALLS);
    if (!('maker' in found)) return found;
    ctx.control('taskCreated', {
      held: true,
      expected: 'A creates a task',
      observed: `${found.maker.tool.name} answered with a task`,
    });
    const trial = await tryTaskPair(ctx, found.maker, found.first);
    return report(ctx, [trial], errored('the task trial reached no decision'));
  },
});
