/**
 * What a server offers to be called (its tools and prompts as listed), and the classes the call
 * plan gives each of them.
 */

/** A tool as `tools/list` described it. */
export interface ToolInfo {
  readonly name: string;
  /** The tool's display name (`title`), read by the risk rules like its name. */
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema?: Record<string, unknown>;
  readonly annotations?: Record<string, unknown>;
  /**
   * `execution.taskSupport` as `tools/list` declares it (2025-11-25, kept by the Tasks extension):
   * whether the tool answers with a task. Any other value is dropped.
   */
  readonly taskSupport?: 'required' | 'optional' | 'forbidden';
}

/** A prompt as `prompts/list` described it. */
export interface PromptInfo {
  readonly name: string;
  readonly arguments: readonly { readonly name: string; readonly required?: boolean }[];
}

/**
 * What a call may do to the target, the one class a scan's call plan records for every tool,
 * prompt and resource template (docs/scanner.md, "What a scan calls"): `read` changes nothing;
 * `create` makes a new object for the caller; `write` changes an existing object; `outside` reaches
 * beyond the server's own store (sends, publishes, pays, deploys, runs, fetches a URL); `destroy`
 * deletes, cancels or undoes; `unknown` is what the evidence does not settle. Without the user's
 * word only `read` and `create` are called.
 */
export const CALL_CLASSES = ['read', 'create', 'write', 'outside', 'destroy', 'unknown'] as const;
export type CallClass = (typeof CALL_CLASSES)[number];

/** The classes a scan calls without the user's word. */
export const SAFE_CLASSES: ReadonlySet<CallClass> = new Set<CallClass>(['read', 'create']);

/** Who let a plan entry be called. */
export type CallGrant = 'default' | '--allow-tool' | '--include-destructive';

/** One tool, prompt or resource template of the call plan: its class, why, and whether it is called. */
export interface PlanEntry {
  readonly kind: 'tool' | 'prompt' | 'resource-template';
  /** The tool's or prompt's name, or the resource template's URI template. */
  readonly name: string;
  readonly class: CallClass;
  /** The evidence read, one short phrase each, the deciding one first. */
  readonly evidence: string[];
  /** Present when the scan may call it: whose word lets it. */
  readonly calledBy?: CallGrant;
  /** Present when it is left alone: the flag that would call it (`--allow-tool <name>`). */
  readonly reach?: string;
}

/** What a scan may call, decided once before any call, and shown to the user. */
export interface CallPlan {
  readonly entries: PlanEntry[];
  /** The tools the user named with `--allow-tool`, as given. */
  readonly allowTools: string[];
  readonly includeDestructive: boolean;
}
