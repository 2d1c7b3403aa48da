/**
 * Which tools the scanner leaves alone unless the user opts in: the destructive ones (see
 * `schema.ts`), and the ones that act on the target's host or beyond it. A tool that runs a shell
 * command, evaluates code, runs a query, fetches a URL or touches files turns every canary the
 * probes send into a command, a query, a request or a path on someone's machine. Real servers
 * expose such tools without annotations ("Run a shell command on the host and return its output"),
 * so annotations cannot clear one: the name, the description and the parameter names are read, and
 * any of them is enough. The rule errs towards caution; a tool left alone costs coverage, a tool
 * called wrongly costs the target's owner.
 *
 * Discovery by value must also never hand a value the server minted to such a parameter of another
 * tool, even with the opt-in: the server would then choose what runs. {@link isRiskyParameter} is
 * the test for that; the runner applies it too (see {@link mintedIntoRisky}).
 */
import { destructiveReason, wordsOf } from './schema.js';
import type { ToolInfo } from '../types.js';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Words in a tool's name that say it runs, evaluates, queries, fetches or touches files. */
const RISKY_NAME_WORDS = new Set(
  (
    'shell bash sh zsh powershell cmd terminal exec execute executes eval evaluate command commands ' +
    'script scripts sql query subprocess spawn python javascript js interpreter repl code ' +
    'fetch curl wget http https url urls download browse crawl scrape webhook ' +
    'file files filesystem fs path dir directory folder upload'
  ).split(' '),
);

/**
 * Phrases in a description that say the same. Matched on the lower-case description; a negation
 * in the three words before ("never runs a command") clears a match.
 */
const RISKY_PHRASES: readonly RegExp[] = [
  /\b(shell|bash|terminal|system|os) commands?\b/,
  /\bexecut(e|es|ing|ion of)\b/,
  /\bruns? (a |an |the |any |arbitrary |given )?(shell |system |terminal )?(commands?|scripts?|code|programs?|binar(y|ies)|quer(y|ies))\b/,
  /\beval(uate|uates|uating)? (a |an |the |any |arbitrary )?(expressions?|code|javascript|python|snippets?)\b/,
  /\bsql\b/,
  /\bquer(y|ies) (a |the )?(database|db|table)\b/,
  /\bfetch(es|ing)? (a |an |the |any )?(urls?|uris?|web ?pages?|pages?|websites?|resources? from)\b/,
  /\b(http|web) requests?\b/,
  /\bdownload(s|ing)?\b/,
  /\b(read|reads|write|writes|open|opens|list|lists|create|creates|delete|deletes|edit|edits)( a| an| the| any)? (local )?(files?|director(y|ies)|folders?)\b/,
  /\bfile ?system\b/,
  /\bfile paths?\b/,
];

/** Parameter words that, alone, name code, a command, a query, a location or a file. */
const RISKY_PARAMETER_WORDS = new Set(
  (
    'command commands cmd shell exec code script program expression expr eval query sql ' +
    'url urls uri href link endpoint path paths file files filename filepath dir directory folder'
  ).split(' '),
);
/** Of those, the ones that still say it as the last word of a longer name (`target_url`). */
const RISKY_PARAMETER_SUFFIXES = new Set(
  'command cmd script sql url uri href endpoint path filename filepath directory'.split(' '),
);
const URI_FORMATS = new Set(['uri', 'uri-reference', 'iri', 'iri-reference', 'url']);

/**
 * True when a parameter with this name (and, if given, this JSON Schema) takes a command, code, a
 * query, a URL or a file path. Matches a whole name (`command`, `cmd`, `code`, `script`, `query`,
 * `url`, `path`, …, in any case style) or a name ending in one of the unambiguous ones
 * (`shell_command`, `targetUrl`, `file_path`), and any string schema with `format: uri`.
 */
export function isRiskyParameter(name: string, schema?: unknown): boolean {
  const words = wordsOf(name);
  if (RISKY_PARAMETER_WORDS.has(words.join(''))) return true;
  const last = words[words.length - 1];
  if (words.length > 1 && last !== undefined && RISKY_PARAMETER_SUFFIXES.has(last)) return true;
  if (isRecord(schema) && typeof schema.format === 'string' && URI_FORMATS.has(schema.format))
    return true;
  return false;
}

/** Matches {@link isRiskyParameter}'s whole-name rule, for callers that only have a name. */
export const RISKY_PARAMETER = {
  test: (name: string): boolean => isRiskyParameter(name),
} as const;

const NEGATIONS = new Set(['not', 'never', 'no', 'without', "doesn't", "don't", "won't"]);

function negated(text: string, at: number): boolean {
  const before = wordsOf(text.slice(0, at)).slice(-3);
  return before.some((w) => NEGATIONS.has(w));
}

// Nouns a name puts after "file" when it means the thing on disk (`file_info`, `file_read`).
const FILE_NOUN_FOLLOWERS = new Set(
  'read write open list info stat upload download path paths name names contents content search'.split(
    ' ',
  ),
);

/**
 * "file" leading a name and followed by something else is the verb (`file_ticket`, `fileClaim`):
 * to file a ticket touches no file. It still counts where the next word keeps it a noun.
 */
function fileAsVerb(words: readonly string[], i: number): boolean {
  const next = words[i + 1];
  return words[i] === 'file' && i === 0 && next !== undefined && !FILE_NOUN_FOLLOWERS.has(next);
}

/**
 * Why a tool counts as running, evaluating, querying, fetching or touching files, or `undefined`.
 * Destructiveness is {@link destructiveReason}'s; {@link riskReason} asks both.
 */
export function executionReason(tool: ToolInfo): string | undefined {
  const words = wordsOf(tool.name);
  const inName = words.find((w, i) => RISKY_NAME_WORDS.has(w) && !fileAsVerb(words, i));
  if (inName !== undefined) return `its name says "${inName}"`;
  const description = (tool.description ?? '').toLowerCase();
  for (const phrase of RISKY_PHRASES) {
    const found = phrase.exec(description);
    if (found && !negated(description, found.index))
      return `its description says "${found[0].trim()}"`;
  }
  const properties = isRecord(tool.inputSchema?.properties) ? tool.inputSchema.properties : {};
  for (const [param, schema] of Object.entries(properties)) {
    if (isRiskyParameter(param, schema)) return `it takes a parameter "${param}"`;
  }
  return undefined;
}

/**
 * Why the scanner does not call this tool without `--include-destructive`, or `undefined` when it
 * may: it may destroy data, or it runs commands or code, runs queries, fetches URLs or touches
 * files on the target's host.
 */
export function riskReason(tool: ToolInfo): string | undefined {
  const destructive = destructiveReason(tool);
  if (destructive !== undefined) return `may destroy data: ${destructive}`;
  const executes = executionReason(tool);
  if (executes !== undefined)
    return `may run commands, code or queries, fetch URLs or touch files: ${executes}`;
  return undefined;
}

/** A tool the scan did not call, and why. */
export interface UncalledTool {
  readonly tool: string;
  readonly why: string;
}

/** Every tool of `tools` the scan leaves alone under this opt-in, with its reason, in list order. */
export function uncalledTools(
  tools: readonly ToolInfo[],
  includeDestructive: boolean,
): UncalledTool[] {
  if (includeDestructive) return [];
  return tools.flatMap((t) => {
    const why = riskReason(t);
    return why === undefined ? [] : [{ tool: t.name, why: `${why} (needs --include-destructive)` }];
  });
}

/** Strings this short are too common to say where a value came from. */
const MIN_MINTED_LENGTH = 6;
const MAX_MINTED = 4096;

/** The string values a server has handed back in one scan, for {@link mintedIntoRisky}. */
export interface MintedValues {
  /** Remembers every string leaf of a received answer that the scanner did not send first. */
  learn(value: unknown): void;
  /** Remembers the string arguments of a call as ours: an echo of a canary is not minted. */
  sent(args: unknown): void;
  /** The risky parameter of `tool` whose argument is a value the server minted, if any. */
  mintedIntoRisky(tool: ToolInfo | undefined, args: unknown): string | undefined;
}

/**
 * Creates the record of minted values. Defence in depth for discovery by value: whatever code picks
 * the arguments, a call that puts a server-minted string into a risky parameter is refused.
 */
export function createMintedValues(): MintedValues {
  const seen = new Set<string>();
  const ours = new Set<string>();
  const walk = (v: unknown, depth: number): void => {
    if (seen.size >= MAX_MINTED || depth > 12) return;
    if (typeof v === 'string') {
      if (v.length >= MIN_MINTED_LENGTH && v.length <= 4096 && !ours.has(v)) seen.add(v);
      // A text block often carries JSON; its strings are minted values too.
      if (v.startsWith('{') || v.startsWith('[')) {
        try {
          walk(JSON.parse(v), depth + 1);
        } catch {
          // Plain text.
        }
      }
    } else if (Array.isArray(v)) for (const item of v) walk(item, depth + 1);
    else if (isRecord(v)) for (const item of Object.values(v)) walk(item, depth + 1);
  };
  return {
    learn: (value) => walk(value, 0),
    sent(args) {
      if (!isRecord(args)) return;
      for (const value of Object.values(args))
        if (typeof value === 'string' && ours.size < MAX_MINTED && !seen.has(value))
          ours.add(value);
    },
    mintedIntoRisky(tool, args) {
      if (!isRecord(args)) return undefined;
      const properties = isRecord(tool?.inputSchema?.properties) ? tool.inputSchema.properties : {};
      for (const [param, value] of Object.entries(args)) {
        if (typeof value !== 'string' || !isRiskyParameter(param, properties[param])) continue;
        if (seen.has(value)) return param;
      }
      return undefined;
    },
  };
}

/** What the runner needs to decide whether a `tools/call` may be sent. */
export interface CallGate {
  readonly includeDestructive: boolean;
  /** `--allow-minted-in-risky`: let a server-minted value reach a risky parameter. */
  readonly allowMintedInRisky?: boolean;
  readonly minted?: MintedValues;
}

/**
 * Why the runner must not send this `tools/call`, or `undefined` when it may. Probes filter with
 * the same rules; this is the defence in depth that catches a probe (or discovery) bug.
 */
export function callRefusal(
  tool: ToolInfo | undefined,
  name: string,
  args: unknown,
  gate: CallGate,
): string | undefined {
  if (!gate.includeDestructive) {
    const risk = riskReason(tool ?? { name });
    if (risk !== undefined) return `'${name}' ${risk} (needs --include-destructive)`;
  }
  const param = gate.allowMintedInRisky ? undefined : gate.minted?.mintedIntoRisky(tool, args);
  if (param !== undefined)
    return `'${name}' would get a value the server minted in its parameter "${param}" (needs --allow-minted-in-risky)`;
  gate.minted?.sent(args);
  return undefined;
}
