/**
 * The call plan as text (`stateguard scan --plan`, and the text report's plan): pinned for the
 * sample plan, escaped whatever the target named its tools, and bounded for a target that lists
 * ten thousand tools with names a megabyte long.
 */
import { describe, expect, it } from 'vitest';
import type { CallPlan, PlanEntry } from '../../src/probe/model/tools.js';
import type { RunReport } from '../../src/probe/model/report.js';
import { REPORTERS } from '../../src/report/index.js';
import {
  clipRaw,
  clipVisible,
  leftAloneLine,
  PLAN_RULE,
  planHeadline,
  reachOf,
  renderPlan,
  shellWord,
} from '../../src/report/plan.js';
import { plan, plannedReport } from './sample-report.js';

const RULE =
  'only read and create are called without your word; --allow-tool <name> calls one tool; --include-destructive calls everything, last, only on objects this scan created';

/** Every character a terminal would act on: C0 but newline, DEL, C1, bidi controls. */
const ACTIVE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const EVIL = 'x\u001b[2J\u001b]52;c;cGF5\u0007\u202egnp.exe\r\nfake row\tcalled (default)';

describe('renderPlan', () => {
  it('prints the counts, one aligned row per entry (called first), and the rule', () => {
    expect(renderPlan(plan, { color: false })).toBe(
      [
        'call plan: 4 called (2 read, 2 create) · 6 left alone (1 write, 3 outside, 1 destroy, 1 unknown)',
        '',
        'kind               name              class    call                                     evidence',
        'tool               list_orders       read     called (default)                         readOnlyHint: true (+1 more)',
        'tool               create_order      create   called (default)                         the name starts with "create"',
        'prompt             summarise         read     called (default)                         a prompt only returns messages',
        'tool               upload_document   create   called (default)                         "upload" returns a new object to the caller',
        'tool               update_profile    write    left alone: --allow-tool update_profile  the name starts with "update" (+1 more)',
        'tool               send_invoice      outside  left alone: --allow-tool send_invoice    "send" in the name',
        'tool               fetch_page        outside  left alone: --allow-tool fetch_page      parameter url: a URL the server fetches',
        'resource-template  mail://{to}/send  outside  left alone: --include-destructive        "send" in the URI template',
        'tool               delete_order      destroy  left alone: --allow-tool delete_order    destructiveHint: true (+1 more)',
        'tool               frobnicate        unknown  left alone: --allow-tool frobnicate      —',
        '',
        RULE,
        '',
      ].join('\n'),
    );
    expect(PLAN_RULE).toBe(RULE);
  });

  it('names the user’s flags, says which --allow-tool matched nothing, and how each was called', () => {
    const given: CallPlan = {
      ...plan,
      allowTools: ['send_invoice', 'sendInvoice'],
      includeDestructive: true,
      entries: plan.entries.map((e) =>
        e.name === 'send_invoice'
          ? { ...e, calledBy: '--allow-tool', reach: undefined }
          : e.reach === undefined
            ? e
            : { ...e, calledBy: '--include-destructive', reach: undefined },
      ),
    };
    const out = renderPlan(given, { color: false }).split('\n');
    expect(out.slice(0, 4)).toEqual([
      'call plan: 10 called (2 read, 2 create, 1 write, 3 outside, 1 destroy, 1 unknown) · 0 left alone',
      'your word: --allow-tool send_invoice · --allow-tool sendInvoice · --include-destructive',
      '! --allow-tool sendInvoice names no tool the target lists',
      '',
    ]);
    expect(out).toContain(
      'tool               send_invoice      outside  called (--allow-tool)           "send" in the name',
    );
    expect(out).toContain(
      'tool               delete_order      destroy  called (--include-destructive)  destructiveHint: true (+1 more)',
    );
  });

  it('says so when there is nothing to call, and still states the rule', () => {
    expect(renderPlan({ entries: [], allowTools: [], includeDestructive: false }, { color: false }))
      .toBe(`call plan: nothing to call (the target lists no tool, prompt or resource template)

${RULE}
`);
  });

  it('colours only when asked: an entry left alone in yellow, a called change in red', () => {
    expect(renderPlan(plan, { color: false })).not.toContain('\u001b');
    const coloured = renderPlan(
      {
        ...plan,
        entries: [
          { ...plan.entries[4]!, calledBy: '--allow-tool', reach: undefined },
          plan.entries[5]!,
        ],
      },
      { color: true },
    );
    expect(coloured).toContain('\u001b[1;31mwrite  \u001b[0m');
    expect(coloured).toContain('\u001b[33mleft alone: --allow-tool send_invoice\u001b[0m');
  });
});

describe('what a hostile target names is shown, never obeyed', () => {
  const hostile: CallPlan = {
    allowTools: [],
    includeDestructive: false,
    entries: [
      {
        kind: 'tool',
        name: EVIL,
        class: 'destroy',
        evidence: [`says ${EVIL}`],
        reach: `--allow-tool ${EVIL}`,
      },
      { kind: 'prompt', name: 'ok', class: 'read', evidence: [EVIL], calledBy: 'default' },
    ],
  };

  it('escapes controls, bidi and line breaks: one entry, one line', () => {
    const out = renderPlan(hostile, { color: false });
    expect(out).not.toMatch(ACTIVE);
    const lines = out.split('\n');
    expect(lines.filter((l) => l.startsWith('tool ') || l.startsWith('prompt '))).toHaveLength(2);
    expect(lines.some((l) => l.startsWith('fake row'))).toBe(false);
    expect(out).toContain('x\\x1b[2J\\x1b]52;c;cGF5\\x07\\u202egnp.exe\\x0d\\x0afake row');
  });

  it('quotes a name for the shell in the flag that would call it', () => {
    expect(shellWord('delete_order')).toBe('delete_order');
    expect(shellWord("it's; rm -rf ~")).toBe(`'it'\\''s; rm -rf ~'`);
    const e: PlanEntry = {
      kind: 'tool',
      name: 'a b',
      class: 'write',
      evidence: [],
      reach: '--allow-tool a b',
    };
    expect(reachOf(e)).toBe("--allow-tool 'a b'");
    expect(reachOf({ ...e, reach: '--include-destructive' })).toBe('--include-destructive');
    expect(reachOf({ ...e, reach: undefined, calledBy: 'default' })).toBeUndefined();
    expect(leftAloneLine(e)).toBe(
      "tool a b (write): no evidence; --allow-tool 'a b' would call it",
    );
  });

  it('cuts without halving a surrogate pair or an escape', () => {
    expect(clipRaw('abcdef', 6)).toBe('abcdef');
    expect(clipRaw('abcdefg', 6)).toBe('abcde…');
    expect(clipRaw('😀😀😀', 2)).toBe('😀…');
    expect(clipVisible('ab\u001bcd', 5)).toBe('ab…');
    expect(clipVisible('ab\u001bcd', 7)).toBe('ab\\x1b…');
    expect(clipVisible('ab\u001bcd', 8)).toBe('ab\\x1bcd');
    expect(clipVisible('😀😀😀', 3)).toBe('😀…');
  });
});

describe('a plan of ten thousand tools with names a megabyte long', () => {
  const long = `${'n'.repeat(1 << 20)}\u001b`;
  // One flat string, as JSON.parse gives.
  const reach = `--allow-tool ${long}`.split('').join('');
  const entries: PlanEntry[] = Array.from({ length: 10_000 }, (_, i) =>
    i % 2 === 0
      ? { kind: 'tool', name: long, class: 'read', evidence: [long, long], calledBy: 'default' }
      : {
          kind: 'tool',
          name: long,
          class: 'outside',
          evidence: [long],
          reach,
        },
  );
  const huge: CallPlan = { entries, allowTools: [], includeDestructive: false };

  it('shows a bounded table and says what it cut', () => {
    const started = performance.now();
    const out = renderPlan(huge, { color: false });
    expect(performance.now() - started).toBeLessThan(5_000);
    const lines = out.split('\n');
    expect(planHeadline(huge)).toBe(
      'call plan: 5000 called (5000 read) · 5000 left alone (5000 outside)',
    );
    expect(lines.length).toBeLessThan(1_020);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(300);
    expect(out.length).toBeLessThan(300_000);
    expect(lines).toContain(
      '… 4500 more called, not shown: the JSON report (--format json) lists every entry',
    );
    expect(lines).toContain(
      '… 4500 more left alone, not shown: the JSON report (--format json) lists every entry',
    );
    expect(lines).toContain(
      '… marks a name or evidence cut to fit; the JSON report (--format json) lists every entry whole',
    );
    expect(lines.at(-2)).toBe(RULE);
    expect(out).not.toMatch(ACTIVE);
  });

  it('bounds the one-line form too', () => {
    expect(leftAloneLine(entries[1]!).length).toBeLessThan(1_700);
  });
});

describe('the text report of a run with a plan', () => {
  const text = (r: RunReport, all = false): string =>
    REPORTERS.text.render(r, { color: false, evidence: 'summary', all });

  it('says the counts, then the entries left alone with the flag that would call each, once', () => {
    const out = text(plannedReport);
    expect(out).toContain(`\n${planHeadline(plan)}\n`);
    expect(out).toContain(
      '    tool               delete_order      destroy  left alone: --allow-tool delete_order    destructiveHint: true (+1 more)',
    );
    expect(out).not.toContain('list_orders');
    expect(out).not.toContain('not called');
    expect(out).toContain(`    ${RULE}\n`);
  });

  it('shows every entry with --all', () => {
    const out = text(plannedReport, true);
    for (const e of plan.entries) expect(out).toContain(`  ${e.name}  `);
  });

  it('keeps the old list for a report without a plan (an older JSON file fed back in)', () => {
    const { plan: _, ...old } = plannedReport;
    const out = text(old);
    expect(out).toContain('not called (5):\n    update_profile: the name starts with "update"\n');
    expect(out).not.toContain('call plan');
  });
});
