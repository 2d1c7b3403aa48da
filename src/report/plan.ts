/**
 * The call plan as a person reads it (`stateguard scan --plan`): counts by class, one row per tool,
 * prompt and resource template, and the rule. Everything in it came from the target: escaped.
 */
import type { CallPlan, PlanEntry } from '../probe/types.js';
import { visibleLine } from './visible.js';

const MAX_ROWS = 500;
const MAX_CELL = 80;

const cell = (text: string): string => {
  const line = visibleLine(text);
  return line.length > MAX_CELL ? `${line.slice(0, MAX_CELL - 1)}…` : line;
};

/** The plan's counts, e.g. `call plan: 4 called (2 read, 2 create) · 3 left alone (1 outside, …)`. */
export function planCounts(plan: CallPlan): string {
  const by = (entries: readonly PlanEntry[]): string => {
    const counts = new Map<string, number>();
    for (const e of entries) counts.set(e.class, (counts.get(e.class) ?? 0) + 1);
    return [...counts].map(([c, n]) => `${n} ${c}`).join(', ');
  };
  const called = plan.entries.filter((e) => e.calledBy !== undefined);
  const alone = plan.entries.filter((e) => e.calledBy === undefined);
  return (
    `call plan: ${called.length} called${called.length > 0 ? ` (${by(called)})` : ''}` +
    ` · ${alone.length} left alone${alone.length > 0 ? ` (${by(alone)})` : ''}`
  );
}

/** Renders the plan as aligned text rows. */
export function renderPlan(plan: CallPlan): string {
  const rows = plan.entries.slice(0, MAX_ROWS).map((e) => [
    e.kind,
    cell(e.name),
    e.class,
    e.calledBy === undefined ? `left alone (${cell(e.reach ?? '')})` : `called (${e.calledBy})`,
    cell(e.evidence[0] ?? ''),
  ]);
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => (r[i] as string).length), 0));
  const lines = rows.map((r) =>
    r.map((c, i) => (i < 4 ? c.padEnd(widths[i] as number) : c)).join('  ').trimEnd(),
  );
  const cut = plan.entries.length - MAX_ROWS;
  return [
    planCounts(plan),
    ...lines,
    ...(cut > 0 ? [`… and ${cut} more (the JSON format lists them all)`] : []),
    'only read and create are called without your word; --allow-tool <name> calls one tool; ' +
      '--include-destructive calls everything, last, only on objects this scan created',
    '',
  ].join('\n');
}
