/**
 * The call plan's judgement of one tool (its class, through `classify.ts`) and what a pass may call:
 * `read` and `create` without the user's word, a tool named by `--allow-tool` or every tool with
 * `--include-destructive` in the pass where that word is in force; and the one sentence that says
 * why a tool is left alone. The runner's call gate (`runner/call-gate.ts`) enforces it.
 */
import { classifyTool, type Classified } from './classify.js';
import { SAFE_CLASSES, type CallClass, type CallGrant, type ToolInfo } from '../model/tools.js';

export { isRiskyParameter, paramsOf, slotRole, type SlotRole } from './slots.js';

const cache = new WeakMap<ToolInfo, Classified>();

/** The call plan's class of a tool, and the evidence for it (cached per declaration). */
export function classOf(tool: ToolInfo): Classified {
  const cached = cache.get(tool);
  if (cached !== undefined) return cached;
  const judged = classifyTool(tool);
  cache.set(tool, judged);
  return judged;
}

/** How the scan treats a tool's answers and arguments. */
export interface ToolJudgement {
  /** It only reads: what it hands out was there before this scan. */
  readonly reads: boolean;
  /** It does more than read: it gets only values this scan created. */
  readonly writes: boolean;
}

/** Judges a tool from its class in the call plan. */
export function judgeTool(tool: ToolInfo): ToolJudgement {
  const reads = classOf(tool).class === 'read';
  return { reads, writes: !reads };
}

/** What the user's word lets a pass call, beyond `read` and `create`. */
export interface CallPermission {
  /** `--include-destructive`, in force in this pass: every tool. */
  readonly includeDestructive: boolean;
  /** `--allow-tool`, in force in this pass: these tools, by name. */
  readonly allowTools?: ReadonlySet<string>;
}

/** Whether the call plan calls this tool without the user's word (its class is read or create). */
export const byDefault = (tool: ToolInfo): boolean => SAFE_CLASSES.has(classOf(tool).class);

/** Who lets this tool be called under `permission`, or `undefined` when nobody does. */
export function grantOf(tool: ToolInfo, permission: CallPermission): CallGrant | undefined {
  if (byDefault(tool)) return 'default';
  if (permission.allowTools?.has(tool.name) === true) return '--allow-tool';
  if (permission.includeDestructive) return '--include-destructive';
  return undefined;
}

/**
 * The tools a probe may call in this pass: the call plan's `read` and `create` tools, and those the
 * user's word in force lets it call ({@link grantOf}).
 */
export function callableTools(tools: readonly ToolInfo[], permission: CallPermission): ToolInfo[] {
  return tools.filter((t) => grantOf(t, permission) !== undefined);
}

/** Why a tool needs the user's word (its class and the deciding evidence), or `undefined`. */
export function riskReason(tool: ToolInfo): string | undefined {
  const { class: cls, evidence } = classOf(tool);
  if (SAFE_CLASSES.has(cls)) return undefined;
  return classReason(cls, evidence);
}

const classReason = (cls: CallClass, evidence: readonly string[]): string =>
  `${CLASS_TEXT[cls] ?? cls}: ${evidence[0] ?? 'no evidence'}`;

/**
 * Why a tool is left alone, the one sentence every place says it in (the report's `uncalled`, a
 * skip's note, the runner's refusal): its class in words, the deciding evidence, the flag that
 * would call it. `may destroy data: declares destructiveHint: true (needs --allow-tool tidy)`.
 */
export function leftAloneWhy(cls: CallClass, evidence: readonly string[], flag: string): string {
  return `${classReason(cls, evidence)} (needs ${flag})`;
}

const CLASS_TEXT: Readonly<Record<string, string>> = {
  write: 'may change an existing object',
  outside: 'may reach beyond the server (send, pay, publish, deploy, run, fetch)',
  destroy: 'may destroy data',
  unknown: 'what it does is unknown',
};

/** A tool the scan did not call, why, and the flag that would call it. */
export interface UncalledTool {
  readonly tool: string;
  readonly why: string;
  readonly flag: string;
}

/** Every tool of `tools` the scan leaves alone under `permission`, with its reason, in list order. */
export function uncalledTools(
  tools: readonly ToolInfo[],
  permission: CallPermission,
): UncalledTool[] {
  return tools.flatMap((t) => {
    const { class: cls, evidence } = classOf(t);
    if (SAFE_CLASSES.has(cls) || grantOf(t, permission) !== undefined) return [];
    const flag = `--allow-tool ${t.name}`;
    return [{ tool: t.name, why: leftAloneWhy(cls, evidence, flag), flag }];
  });
}
