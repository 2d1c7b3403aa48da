/**
 * What a session lists once its era is known: the tools (a modern server's every page, bounded),
 * the prompts, resources and resource templates, and the server's self-description.
 */
import type { Outcome, ProtocolInfo } from '../model/wire.js';
import type { ToolInfo } from '../model/tools.js';
import { META } from './session-options.js';
import { isRecord } from '../model/json.js';

/** Sends one request of the opening as A and resolves with its outcome (recorded as evidence). */
export type OpeningStep = (
  method: string,
  label: string,
  params?: Record<string, unknown>,
) => Promise<Outcome>;

/** The lists besides the tools. */
export type OtherLists = Pick<ProtocolInfo, 'prompts' | 'resources' | 'resourceTemplates'>;

const MAX_TOOLS = 500;
// Most pages of `tools/list` followed (a page may be one tool), and most tools kept.
const MAX_TOOL_PAGES = 50;
const MAX_LISTED = 50;

const TASK_SUPPORT = ['required', 'optional', 'forbidden'] as const;

/** A tool's declared `execution.taskSupport`, when it is one of the three values. */
function taskSupportOf(execution: unknown): Pick<ToolInfo, 'taskSupport'> {
  const v = isRecord(execution) ? execution.taskSupport : undefined;
  const known = TASK_SUPPORT.find((s) => s === v);
  return known === undefined ? {} : { taskSupport: known };
}

/** The tools of one `tools/list` result, added to `into` up to the most kept. */
export function readTools(result: Record<string, unknown>, into: ToolInfo[]): void {
  const tools = Array.isArray(result.tools) ? result.tools : [];
  for (const t of tools) {
    if (into.length >= MAX_TOOLS || !isRecord(t) || typeof t.name !== 'string') continue;
    into.push({
      name: t.name,
      ...(typeof t.title === 'string' ? { title: t.title } : {}),
      ...(typeof t.description === 'string' ? { description: t.description } : {}),
      ...(isRecord(t.inputSchema) ? { inputSchema: t.inputSchema } : {}),
      ...(isRecord(t.annotations) ? { annotations: t.annotations } : {}),
      ...taskSupportOf(t.execution),
    });
  }
}

/** A server's `serverInfo` (`initialize`'s, or the modern `_meta` one), or nothing. */
export function readServerInfo(v: unknown): ProtocolInfo['serverInfo'] {
  if (!isRecord(v)) return undefined;
  // Self-reported and untrusted: kept short, it only labels the report.
  return {
    ...(typeof v.name === 'string' ? { name: v.name.slice(0, 200) } : {}),
    ...(typeof v.version === 'string' ? { version: v.version.slice(0, 100) } : {}),
  };
}

/** The `serverInfo` a modern result carries in its `_meta`, read. */
export function metaServerInfo(result: Record<string, unknown>): ProtocolInfo['serverInfo'] {
  return readServerInfo(isRecord(result._meta) ? result._meta[`${META}serverInfo`] : undefined);
}

/** Why the pages stop before `cursor`, when they do: a cursor seen before, or too many. */
function pagesStop(
  cursors: ReadonlySet<string>,
  cursor: string,
  page: number,
  tools: number,
): string | undefined {
  if (cursors.has(cursor))
    return `tools/list repeated a nextCursor after ${page} page(s): the pages after it were not read`;
  if (page >= MAX_TOOL_PAGES || tools >= MAX_TOOLS)
    return `tools/list had more than ${page} page(s) (${tools} tools read): the rest were not read`;
  return undefined;
}

/**
 * A modern server's tools, from `first` (a `tools/list` already sent while the era was learnt) or a
 * new one, into `tools`; what it did not do as the spec says goes to `deviations`. Resolves with the
 * `serverInfo` of the first page that carries one.
 */
export async function readModernTools(
  step: OpeningStep,
  first: Outcome | undefined,
  tools: ToolInfo[],
  deviations: string[],
): Promise<ProtocolInfo['serverInfo']> {
  let outcome = first ?? (await step('tools/list', 'tools/list'));
  if (outcome.kind === 'result' && !('resultType' in outcome.result))
    deviations.push('tools/list result without resultType');
  let serverInfo: ProtocolInfo['serverInfo'];
  // Every page, by `nextCursor`, bounded: a cursor seen before (a loop) or too many pages stop
  // it, and the tools left unlisted are said to be so.
  const cursors = new Set<string>();
  for (let page = 1; ; page++) {
    if (outcome.kind !== 'result') break;
    readTools(outcome.result, tools);
    serverInfo ??= metaServerInfo(outcome.result);
    const cursor = outcome.result.nextCursor;
    if (typeof cursor !== 'string' || cursor.length === 0) break;
    const stop = pagesStop(cursors, cursor, page, tools.length);
    if (stop !== undefined) {
      deviations.push(stop);
      break;
    }
    cursors.add(cursor);
    outcome = await step('tools/list', `tools/list page ${page + 1}`, { cursor });
  }
  return serverInfo;
}

/**
 * The lists a server's capabilities leave unasked: none when they are unknown (no
 * `server/discover` answer), else those of a capability they do not name (`prompts`, `resources`).
 * A server declares what it serves; asking what it did not declare would only draw a refusal.
 */
export function undeclaredLists(
  capabilities: ProtocolInfo['capabilities'],
): ReadonlySet<'prompts' | 'resources'> {
  if (capabilities === undefined) return new Set();
  return new Set((['prompts', 'resources'] as const).filter((c) => !isRecord(capabilities[c])));
}

/**
 * The prompts, resources and resource templates a modern server lists (first page each), except
 * those of `unasked` (see `undeclaredLists`). A refusal (-32601: the server has none) is no
 * problem: the list stays empty.
 */
export async function readLists(
  step: (method: string, label: string) => Promise<Outcome>,
  unasked: ReadonlySet<'prompts' | 'resources'> = new Set(),
): Promise<OtherLists> {
  const list = async (method: string, key: string): Promise<unknown[]> => {
    if (unasked.has(method.startsWith('prompts') ? 'prompts' : 'resources')) return [];
    const o = await step(method, method);
    const items = o.kind === 'result' ? o.result[key] : undefined;
    return Array.isArray(items) ? items.slice(0, MAX_LISTED) : [];
  };
  const prompts = (await list('prompts/list', 'prompts')).flatMap((p) =>
    isRecord(p) && typeof p.name === 'string'
      ? [
          {
            name: p.name,
            arguments: (Array.isArray(p.arguments) ? p.arguments : []).flatMap((a) =>
              isRecord(a) && typeof a.name === 'string'
                ? [{ name: a.name, ...(a.required === true ? { required: true } : {}) }]
                : [],
            ),
          },
        ]
      : [],
  );
  const uris = (items: unknown[], key: string): string[] =>
    items.flatMap((r) => (isRecord(r) && typeof r[key] === 'string' ? [r[key] as string] : []));
  const resources = uris(await list('resources/list', 'resources'), 'uri');
  const resourceTemplates = uris(
    await list('resources/templates/list', 'resourceTemplates'),
    'uriTemplate',
  );
  return { prompts, resources, resourceTemplates };
}
