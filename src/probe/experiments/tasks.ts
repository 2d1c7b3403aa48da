/**
 * Finding a server's tasks (the Tasks extension, `io.modelcontextprotocol/tasks`): whether it
 * declares the extension, which tool answers with a task, the task id in such an answer, and the
 * task methods sent as one identity.
 *
 * Both task wires are spoken. The 2026-07-28 extension: declared in `server/discover`'s
 * `capabilities.extensions`, the server answers a plain `tools/call` with `resultType: "task"`
 * beside a `taskId`. The 2025-11-25 experimental tasks (the SDK v1's): declared in `initialize`'s
 * `capabilities.tasks`, the client asks for a task with `params.task` on a `tools/call` to a tool
 * whose `execution.taskSupport` allows one, and the answer holds a `task` object with the
 * `taskId`. Everything read from an answer is bounded: a task id over 1024 characters is no task id.
 */
import { errored, skipped, type ProbeContext, type ProbeDecision } from '../model/probe.js';
import type { Exchange } from '../model/wire.js';
import type { IdentityName } from '../model/target.js';
import type { ToolInfo } from '../model/tools.js';
import { makeCanary } from '../evidence/markers.js';
import { describe, resultTypeOf } from '../driver/rounds.js';
import { argumentsFor } from '../driver/schema.js';
import { callableTools } from '../plan/tool-risk.js';
import { isRecord } from '../model/json.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

const MAX_TASK_ID = 1024;

/** The task id a result names, when it is a task-creating answer. */
export function taskIdOf(exchange: Exchange): string | undefined {
  const o = exchange.outcome;
  if (o.kind !== 'result') return undefined;
  const r = o.result;
  const nested = isRecord(r['task']) ? r['task']['taskId'] : undefined;
  const id = resultTypeOf(r) === 'task' ? (r['taskId'] ?? nested) : nested;
  return typeof id === 'string' && id.length > 0 && id.length <= MAX_TASK_ID ? id : undefined;
}

/** The `ttl` (ms) a 2025-11-25 `params.task` asks for: the scan's life, not the server's. */
export const LEGACY_TASK_TTL_MS = 60_000;

/**
 * Whether the server declares tasks: a legacy server in the capabilities its `initialize`
 * answered (2025-11-25's `capabilities.tasks`); a modern one in `server/discover`'s (the
 * extension, or the experimental `tasks` a server may still carry there).
 */
export async function declaresTasks(ctx: ProbeContext): Promise<{ declared: boolean }> {
  const { protocol } = ctx;
  if (protocol.era === 'legacy') return { declared: isRecord(protocol.capabilities?.['tasks']) };
  // The opening asked `server/discover` as A and kept the capabilities it named: the same question
  // is not sent again. Asked here only when the opening kept none (no answer, or an oversized one).
  if (protocol.discover && protocol.capabilities !== undefined) {
    const declared = tasksIn(protocol.capabilities);
    const named = Object.keys(protocol.capabilities).slice(0, 8).join(', ') || 'none';
    ctx.note(
      `server/discover, as the scan's opening asked it: capabilities ${named}; ${declared ? 'declares' : 'does not declare'} tasks`,
    );
    return { declared };
  }
  const exchange = await ctx.request('server/discover', {}, { identity: 'A', label: 'discover' });
  const o = exchange.outcome;
  return { declared: o.kind === 'result' && tasksIn(o.result['capabilities']) };
}

/** The extension's negotiation, or the 2025-11-25 experimental `capabilities.tasks`. */
function tasksIn(capabilities: unknown): boolean {
  const caps = isRecord(capabilities) ? capabilities : {};
  const extensions = isRecord(caps['extensions']) ? caps['extensions'] : {};
  return TASKS_EXTENSION in extensions || isRecord(caps['tasks']);
}

/** A tool that answers with a task, and how to call it again. */
export interface TaskMaker {
  readonly tool: ToolInfo;
  /** Create a task as `who` with `canary` in the tool's free-form strings. */
  create(who: IdentityName, label: string, canary?: string): Promise<CreatedTask>;
}

/** One creation: the task id (absent when the answer was no task) and its exchange. */
export interface CreatedTask {
  readonly taskId?: string;
  readonly canary: string;
  readonly exchange: Exchange;
}

/**
 * Whether a `tools/call` to `tool` asks for a task with `params.task`: on the 2025-11-25 wire, when
 * the tool declares it may run as one (`execution.taskSupport` `optional` or `required`; the spec
 * says a client must not ask it of any other tool). The 2026-07-28 extension has no such field:
 * the server decides.
 */
export function asksForTask(ctx: ProbeContext, tool: ToolInfo): boolean {
  return (
    ctx.protocol.era === 'legacy' &&
    (tool.taskSupport === 'optional' || tool.taskSupport === 'required')
  );
}

function makerOf(ctx: ProbeContext, tool: ToolInfo): TaskMaker {
  const task = asksForTask(ctx, tool) ? { task: { ttl: LEGACY_TASK_TTL_MS } } : {};
  return {
    tool,
    async create(who, label, canary = makeCanary(`task-${who.toLowerCase()}`)) {
      const args = argumentsFor(tool.inputSchema, { canary, boolean: false });
      const exchange = await ctx.request(
        'tools/call',
        { name: tool.name, arguments: args, ...task },
        { identity: who, label },
      );
      const taskId = taskIdOf(exchange);
      return taskId === undefined ? { canary, exchange } : { taskId, canary, exchange };
    },
  };
}

/** What looking for a task-creating tool found: the maker and A's first task, or what was tried. */
export type FoundMaker =
  | { readonly maker: TaskMaker; readonly first: CreatedTask & { taskId: string } }
  | { readonly maker?: undefined; readonly tried: readonly string[]; readonly callable: number };

/**
 * The order tools are tried in when looking for a task: those `tools/list` declares as answering
 * with one (`execution.taskSupport` `required`, then `optional`), then the undeclared, then those
 * declared `forbidden`; within each, the server's own order. Nothing is read from names or
 * descriptions, so a tool named in any language is tried like any other.
 */
export function makerOrder(tools: readonly ToolInfo[]): ToolInfo[] {
  const rank = (t: ToolInfo): number =>
    t.taskSupport === 'required'
      ? 0
      : t.taskSupport === 'optional'
        ? 1
        : t.taskSupport === 'forbidden'
          ? 3
          : 2;
  return tools
    .map((t, i) => ({ t, i }))
    .sort((a, b) => rank(a.t) - rank(b.t) || a.i - b.i)
    .map((x) => x.t);
}

/**
 * Call the callable tools as A, in {@link makerOrder}, until one answers with a task: every one
 * of them, up to `maxTries` (what the probe's budget leaves beside its experiment).
 */
export async function findTaskMaker(ctx: ProbeContext, maxTries: number): Promise<FoundMaker> {
  const callable = callableTools(ctx.protocol.tools, ctx);
  const ordered = makerOrder(callable);
  const tried: string[] = [];
  for (const tool of ordered.slice(0, Math.max(0, maxTries))) {
    const maker = makerOf(ctx, tool);
    const first = await maker.create('A', `A creates a task with ${tool.name}`);
    if (first.taskId !== undefined) return { maker, first: { ...first, taskId: first.taskId } };
    tried.push(`${tool.name} (${describe(first.exchange)})`);
  }
  return { tried, callable: callable.length };
}

/**
 * What every task probe starts with: the server declares tasks, and a tool answered A with one.
 * Otherwise the decision to end with: skipped when the extension is absent or no tool may be
 * called, errored when tools were tried and none answered with a task.
 */
export async function taskMakerOrEnd(
  ctx: ProbeContext,
  maxTries: number,
): Promise<Extract<FoundMaker, { maker: TaskMaker }> | ProbeDecision> {
  const { declared } = await declaresTasks(ctx);
  if (!declared)
    return skipped(
      ctx.protocol.era === 'legacy'
        ? 'precondition: the server declares no tasks (initialize capabilities.tasks, 2025-11-25)'
        : 'precondition: the server declares no tasks (server/discover capabilities)',
    );
  const found = await findTaskMaker(ctx, maxTries);
  if (found.maker !== undefined) return found;
  if (found.callable === 0)
    return skipped(
      'the server declares tasks, but the call plan calls none of its tools (--allow-tool <name> or --include-destructive would call one)',
    );
  const untried = found.callable - found.tried.length;
  return errored(
    `the server declares tasks, but no tool answered with one (tried ${found.tried.join(', ')}${untried > 0 ? `; ${untried} callable tool(s) left untried, past the budget` : ''})`,
  );
}

/** Send task method `method` on `taskId` as `who`. */
export function taskRequest(
  ctx: ProbeContext,
  method: string,
  taskId: string,
  who: IdentityName,
  label: string,
  extra: Record<string, unknown> = {},
): Promise<Exchange> {
  return ctx.request(method, { ...extra, taskId }, { identity: who, label });
}

/** The server does not speak this method (as opposed to refusing this task). */
export function notOffered(exchange: Exchange): boolean {
  const o = exchange.outcome;
  return o.kind === 'error' && o.code === -32601;
}
