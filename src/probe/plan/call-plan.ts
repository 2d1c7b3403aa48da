/**
 * The call plan: what a scan may call, decided once from `tools/list`, `prompts/list` and
 * `resources/templates/list` before any call, and shown to the user (`stateguard scan --plan`, and
 * every report). Every tool, prompt and resource template gets one class and the evidence for it
 * (`classify.ts`), and either who lets it be called or the flag that would.
 */
import { classOf, grantOf, type CallPermission } from './tool-risk.js';
import type { CallClass, CallGrant, CallPlan, PlanEntry } from '../model/tools.js';
import type { ProtocolInfo } from '../model/wire.js';
import { SAFE_CLASSES } from '../model/tools.js';
import { classifyReadable } from './classify.js';

/** What the user said about calls. */
export interface CallWord {
  readonly includeDestructive: boolean;
  /** `--allow-tool`, as given (names the server may not list are kept, and reported). */
  readonly allowTools: readonly string[];
}

/** The permission of the pass where the user's word is in force. */
export const permissionOf = (word: CallWord): CallPermission => ({
  includeDestructive: word.includeDestructive,
  allowTools: new Set(word.allowTools),
});

/** Builds the plan of a scan. Pure: it reads the lists the target gave and calls nothing. */
export function buildCallPlan(protocol: ProtocolInfo, word: CallWord): CallPlan {
  const permission = permissionOf(word);
  const tools: PlanEntry[] = protocol.tools.map((tool) => {
    const { class: cls, evidence } = classOf(tool);
    const grant = grantOf(tool, permission);
    return {
      kind: 'tool',
      name: tool.name,
      class: cls,
      evidence,
      ...(grant === undefined ? { reach: `--allow-tool ${tool.name}` } : { calledBy: grant }),
    };
  });
  // prompts/get and resources/read are reads by the protocol; a harmful name still holds one back,
  // and only --include-destructive reaches it (--allow-tool names tools).
  const readable = (
    kind: 'prompt' | 'resource-template',
    name: string,
    description: string | undefined,
  ): PlanEntry => {
    const { class: cls, evidence } = classifyReadable(
      name,
      description,
      kind === 'prompt' ? 'prompts/get' : 'resources/read',
    );
    const grant = readableGrant(cls, permission);
    return {
      kind,
      name,
      class: cls,
      evidence,
      ...(grant === undefined ? { reach: '--include-destructive' } : { calledBy: grant }),
    };
  };
  return {
    entries: [
      ...tools,
      ...protocol.prompts.map((p) => readable('prompt', p.name, undefined)),
      ...protocol.resourceTemplates.map((t) => readable('resource-template', t, undefined)),
    ],
    allowTools: [...word.allowTools],
    includeDestructive: word.includeDestructive,
  };
}

/**
 * Who lets a prompt or a resource template of class `cls` be read: everyone for read and create,
 * else only `--include-destructive` (`--allow-tool` names tools). The survey asks the same.
 */
export function readableGrant(cls: CallClass, permission: CallPermission): CallGrant | undefined {
  if (SAFE_CLASSES.has(cls)) return 'default';
  return permission.includeDestructive ? '--include-destructive' : undefined;
}

/** The names given with `--allow-tool` that the server does not list (a typo must not pass silently). */
export function unlistedAllowed(protocol: ProtocolInfo, word: CallWord): string[] {
  const listed = new Set(protocol.tools.map((t) => t.name));
  return word.allowTools.filter((name) => !listed.has(name));
}
