/**
 * The call plan as people read it: what `stateguard scan --plan` prints (and calls nothing), and
 * the pieces every other format shows of it (the counts line, the decision of one entry, the
 * flag that would call an entry left alone, the rule).
 *
 * Every name and every piece of evidence comes from the target, and a hostile server may list
 * 10,000 tools with names a megabyte long: rows are capped per group (called, left alone), each
 * cell is cut to a width, and what was cut is said; control and bidi characters are shown
 * escaped, line breaks included, so one name is one cell of one row ({@link visibleLine}).
 */
import {
  CALL_CLASSES,
  type CallClass,
  type CallPlan,
  type PlanEntry,
} from '../probe/model/tools.js';
import { visibleLine } from './visible.js';

/** The rule, said once under every plan shown to a person. */
export const PLAN_RULE =
  'only read and create are called without your word; --allow-tool <name> calls one tool; --include-destructive calls everything, last, only on objects this scan created';

/** What a row of a format says of entries it did not show. */
export const PLAN_ELSEWHERE = 'the JSON report (--format json) lists every entry';

/** True when the scan may call `e`. */
export const isCalled = (e: PlanEntry): boolean => e.calledBy !== undefined;

/** The entries as two groups, each in the plan's order: those called, those left alone. */
export function planGroups(plan: CallPlan): { called: PlanEntry[]; left: PlanEntry[] } {
  return {
    called: plan.entries.filter(isCalled),
    left: plan.entries.filter((e) => !isCalled(e)),
  };
}

/** `2 read, 2 create`: the non-zero counts of each class, in the classes' order. */
function classCounts(entries: readonly PlanEntry[]): string {
  const count = (c: CallClass): number => entries.filter((e) => e.class === c).length;
  return CALL_CLASSES.filter((c) => count(c) > 0)
    .map((c) => `${count(c)} ${c}`)
    .join(', ');
}

/**
 * `4 called (2 read, 2 create) · 6 left alone (1 write, 3 outside, 1 destroy, 1 unknown)`. Only
 * counts and the class words: nothing the target sent.
 */
export function planCounts(plan: CallPlan): string {
  if (plan.entries.length === 0)
    return 'nothing to call (the target lists no tool, prompt or resource template)';
  const { called, left } = planGroups(plan);
  const group = (what: string, entries: PlanEntry[]): string =>
    entries.length === 0 ? `0 ${what}` : `${entries.length} ${what} (${classCounts(entries)})`;
  return `${group('called', called)} · ${group('left alone', left)}`;
}

/** `call plan: 4 called (2 read, 2 create) · 6 left alone (…)`: the line every format leads with. */
export const planHeadline = (plan: CallPlan): string => `call plan: ${planCounts(plan)}`;

/** Rows of a format that shows a plan as a table: the entries shown and what was left out. */
export interface PlanRows {
  readonly shown: PlanEntry[];
  /** One line per group cut: `… 12 more left alone, not shown: the JSON report …`. */
  readonly cuts: string[];
}

/** The rows shown of `plan`, at most `max` of each group (called first, then left alone). */
export function planRows(plan: CallPlan, rows: 'all' | 'left alone', max: number): PlanRows {
  const { called, left } = planGroups(plan);
  const groups: [string, PlanEntry[]][] =
    rows === 'all'
      ? [
          ['called', called],
          ['left alone', left],
        ]
      : [['left alone', left]];
  return {
    shown: groups.flatMap(([, g]) => g.slice(0, max)),
    cuts: groups
      .filter(([, g]) => g.length > max)
      .map(([what, g]) => `… ${g.length - max} more ${what}, not shown: ${PLAN_ELSEWHERE}`),
  };
}

// Characters a POSIX shell takes literally in a bare word.
const SHELL_SAFE = /^[A-Za-z0-9_.,:/@%+=-]+$/;

/** `s` as one shell word: bare when it is safe, else single-quoted. Still to be made visible. */
export function shellWord(s: string): string {
  return SHELL_SAFE.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The flag that would call `e`, as a user would type it: the tool's name quoted for the shell
 * when it needs to be (a name with a space, a quote or `;` must not become two arguments or a
 * second command when pasted). The name is cut to `max` code points first (a cut one cannot be
 * typed anyway, and a megabyte is not quoted). `undefined` for an entry the scan calls.
 */
export function reachOf(e: PlanEntry, max = Number.POSITIVE_INFINITY): string | undefined {
  const { reach, name } = e;
  if (reach === undefined) return undefined;
  const prefix = '--allow-tool ';
  // `===` compares as memory does; `endsWith` goes a character at a time (a megabyte name).
  const names =
    reach.length === prefix.length + name.length &&
    reach.startsWith(prefix) &&
    reach.slice(prefix.length) === name;
  if (names) return `${prefix}${shellWord(clipRaw(name, max))}`;
  return clipRaw(reach, max + prefix.length);
}

/**
 * `called (default)`, `called (--allow-tool)`, or `left alone: --allow-tool delete_order`; a name
 * in the flag cut to `max` code points.
 */
export function decisionOf(e: PlanEntry, max?: number): string {
  if (e.calledBy !== undefined) return `called (${e.calledBy})`;
  const reach = reachOf(e, max);
  return reach === undefined ? 'left alone' : `left alone: ${reach}`;
}

/** `s` cut to at most `max` code points, the cut marked `…`; surrogate pairs stay whole. */
export function clipRaw(s: string, max: number): string {
  if (s.length <= max) return s;
  // Only the first max + 1 code points are ever looked at, however long `s` is.
  const points: string[] = [];
  for (const c of s) {
    points.push(c);
    if (points.length > max) break;
  }
  return points.length <= max ? s : `${points.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/**
 * `s` cut to at most `max` code points at a word boundary, the cut marked `…`: a sentence a reader
 * is meant to follow is never cut mid-word. A single word longer than `max` is cut as
 * {@link clipRaw} cuts it.
 */
export function clipWords(s: string, max: number): string {
  const raw = clipRaw(s, max);
  if (raw === s) return s;
  const kept = raw.slice(0, -1);
  const space = kept.search(/\s\S*$/);
  return space <= 0 ? raw : `${kept.slice(0, space).replace(/[\s,;:(]+$/, '')} …`;
}

/**
 * `s` {@link visibleLine}, at most `max` UTF-16 units shown (about the columns a terminal gives
 * them: an emoji is two of each): an escape (`\x1b`, `\u202e`) or a surrogate pair is never cut
 * in half, and a cut ends in `…`. Reads at most `max` code points of `s`.
 */
export function clipVisible(s: string, max: number): string {
  return clipped(s, max).text;
}

/** {@link clipVisible}, and whether it cut. */
function clipped(s: string, max: number): { text: string; cut: boolean } {
  let out = '';
  let seen = 0;
  for (const c of s) {
    const shown = visibleLine(c);
    if (out.length + shown.length > max) {
      // What is already out may need room for the mark.
      while (out.length > 0 && out.length + 1 > max) out = dropLast(out);
      return { text: `${out}…`, cut: true };
    }
    out += shown;
    seen += c.length;
  }
  return { text: out, cut: seen !== s.length };
}

/** `s` without its last code point, or its last escape when it ends in one. */
function dropLast(s: string): string {
  const escape = /\\(x[0-9a-f]{2}|u[0-9a-f]{4})$/.exec(s);
  if (escape !== null) return s.slice(0, escape.index);
  const points = [...s];
  points.pop();
  return points.join('');
}

/** The deciding evidence of `e` and how many more pieces it has. */
export function decidingEvidence(e: PlanEntry): { first: string | undefined; more: number } {
  return { first: e.evidence[0], more: Math.max(0, e.evidence.length - 1) };
}

/**
 * One line for an entry left alone, for formats that list them one by one (SARIF notifications,
 * JUnit properties): `tool delete_order (destroy): destructiveHint: true; --allow-tool
 * delete_order would call it`. Raw: the format escapes it. Name and evidence cut to `max` each.
 */
export function leftAloneLine(e: PlanEntry, max = 500): string {
  const { first, more } = decidingEvidence(e);
  const why = first === undefined ? 'no evidence' : clipRaw(first, max);
  const also = more > 0 ? ` (+${more} more)` : '';
  const reach = reachOf(e, max);
  const flag = reach === undefined ? '' : `; ${reach} would call it`;
  return `${e.kind} ${clipRaw(e.name, max)} (${e.class}): ${why}${also}${flag}`;
}

/** The bounds of a plan shown as text. */
export interface PlanBounds {
  /** Most rows shown of each group (called, left alone). */
  readonly maxRows: number;
  /** Widest name cell. */
  readonly nameWidth: number;
  /** Widest call cell (the flag of an entry left alone names it). */
  readonly callWidth: number;
  /** Widest evidence cell. */
  readonly evidenceWidth: number;
}

/** What `--plan` shows at most: every row of a real server, a hostile list cut. */
export const PLAN_BOUNDS: PlanBounds = {
  maxRows: 500,
  nameWidth: 48,
  callWidth: 64,
  evidenceWidth: 100,
};

/** Options of a plan as text. */
export interface PlanTextOptions {
  readonly color: boolean;
  /** The rows shown: every entry (`--plan`, `--all`), or only those left alone. */
  readonly rows: 'all' | 'left alone';
  /** Before every row and note (not the counts line). */
  readonly indent?: string;
  readonly bounds?: PlanBounds;
}

const paint = (on: boolean, code: string, s: string): string =>
  on ? `\u001b[${code}m${s}\u001b[0m` : s;

/** The widest kind or class shown. */
const WORD_WIDTH = 20;

/** The classes that change something, in red when the scan calls them. */
const CHANGES: ReadonlySet<CallClass> = new Set<CallClass>(['write', 'outside', 'destroy']);

/** A plan as text, in its parts. */
interface PlanText {
  /** The counts line, the user's flags, any `--allow-tool` that names nothing. */
  readonly head: string[];
  /** The column heads and one row per entry shown; empty when none is. */
  readonly table: string[];
  /** What was cut, then the rule; empty when no row is shown. */
  readonly notes: string[];
}

function planText(plan: CallPlan, o: PlanTextOptions): PlanText {
  const b = o.bounds ?? PLAN_BOUNDS;
  const pad = o.indent ?? '';
  const head = [planHeadline(plan)];
  // The user's own words: what they allowed, and any name that matched nothing listed.
  if (plan.allowTools.length > 0 || plan.includeDestructive) {
    const words = [
      ...plan.allowTools.map((t) => `--allow-tool ${clipVisible(shellWord(t), b.nameWidth)}`),
      ...(plan.includeDestructive ? ['--include-destructive'] : []),
    ];
    head.push(`${pad}your word: ${words.join(' · ')}`);
  }
  const tools = new Set(plan.entries.filter((e) => e.kind === 'tool').map((e) => e.name));
  for (const t of plan.allowTools.filter((name) => !tools.has(name)))
    head.push(
      `${pad}${paint(o.color, '1;33', '!')} --allow-tool ${clipVisible(shellWord(t), b.nameWidth)} names no tool the target lists`,
    );
  const { shown, cuts } = planRows(plan, o.rows, b.maxRows);
  if (shown.length === 0) return { head, table: [], notes: [] };
  let cut = false;
  const clip = (s: string, max: number): string => {
    const c = clipped(s, max);
    cut ||= c.cut;
    return c.text;
  };
  const rows = shown.map((e) => {
    const { first, more } = decidingEvidence(e);
    const evidence =
      first === undefined
        ? '—'
        : `${clip(first, b.evidenceWidth)}${more > 0 ? ` (+${more} more)` : ''}`;
    return {
      e,
      cells: [
        // Kind and class are ours, but a report read back from a file is escaped like the rest.
        clip(e.kind, WORD_WIDTH),
        clip(e.name, b.nameWidth),
        clip(e.class, WORD_WIDTH),
        clip(decisionOf(e, b.callWidth), b.callWidth),
      ],
      evidence,
    };
  });
  const heads = ['kind', 'name', 'class', 'call'];
  const widths = heads.map((h, i) =>
    Math.max(h.length, ...rows.map((r) => r.cells[i]?.length ?? 0)),
  );
  const align = (cells: string[]): string[] => cells.map((c, i) => c.padEnd(widths[i] ?? 0));
  const table = [`${pad}${[...align(heads), 'evidence'].join('  ')}`];
  for (const { e, cells, evidence } of rows) {
    const [kind = '', name = '', cls = '', call = ''] = align(cells);
    // Colour after padding, so the codes never count as width.
    const shownCls = isCalled(e) && CHANGES.has(e.class) ? paint(o.color, '1;31', cls) : cls;
    const shownCall = isCalled(e) ? call : paint(o.color, '33', call);
    table.push(`${pad}${[kind, name, shownCls, shownCall, evidence].join('  ')}`.trimEnd());
  }
  const notes = cuts.map((c) => `${pad}${c}`);
  if (cut) notes.push(`${pad}… marks a name or evidence cut to fit; ${PLAN_ELSEWHERE} whole`);
  notes.push(`${pad}${PLAN_RULE}`);
  return { head, table, notes };
}

/**
 * The counts line, then the rows asked for (kind, name, class, call, deciding evidence), aligned,
 * escaped and bounded, each cut said; then, when any row is shown, the rule. Lines, no newline.
 */
export function planLines(plan: CallPlan, o: PlanTextOptions): string[] {
  const { head, table, notes } = planText(plan, o);
  return [...head, ...table, ...notes];
}

/** Options of {@link renderPlan}. */
export interface RenderPlanOptions {
  readonly color: boolean;
  readonly bounds?: PlanBounds;
}

/**
 * What `stateguard scan --plan` prints: the counts line, the user's flags (and any `--allow-tool`
 * that names nothing), one row per entry (called first, then left alone), what was cut, and the
 * rule, always.
 */
export function renderPlan(plan: CallPlan, opts: RenderPlanOptions): string {
  const { head, table, notes } = planText(plan, {
    color: opts.color,
    rows: 'all',
    ...(opts.bounds === undefined ? {} : { bounds: opts.bounds }),
  });
  const tail = notes.length > 0 ? notes : [PLAN_RULE];
  return `${[...head, '', ...(table.length > 0 ? [...table, ''] : []), ...tail].join('\n')}\n`;
}
