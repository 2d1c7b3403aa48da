/**
 * The call plan's classifier against a labelled corpus of tool declarations
 * (`data/tool-plan-corpus.json`, its sources in `data/tool-plan-corpus.md`): the `tools/list` of
 * published servers and written shapes, in 28 languages, each labelled with what the tool really
 * does. Two numbers are printed every run (docs/benchmarks.md records them):
 * - side-effecting tools (write, outside, destroy) judged callable: a harm; the goal and the bound
 *   are 0;
 * - safe tools (read, create) judged callable: coverage; the goal is 95 %, the bound below is the
 *   floor this classifier has reached, so a change that loses coverage fails.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { classifyTool } from '../../src/probe/plan/classify.js';
import { SAFE_CLASSES, type CallClass, type ToolInfo } from '../../src/probe/model/tools.js';

interface Case {
  readonly lang: string;
  readonly class: Exclude<CallClass, 'unknown'>;
  readonly why: string;
  readonly source: string;
  readonly tool: ToolInfo;
}

const corpus = JSON.parse(
  readFileSync(new URL('./data/tool-plan-corpus.json', import.meta.url), 'utf8'),
) as Case[];

/** The share of safe tools that must stay callable (the goal is 0.95). */
const SAFE_CALLABLE_FLOOR = 0.95;

describe('the tool-plan corpus', () => {
  const judged = corpus.map((c) => ({ ...c, got: classifyTool(c.tool) }));
  const safe = judged.filter((c) => SAFE_CLASSES.has(c.class));
  const harms = judged.filter((c) => !SAFE_CLASSES.has(c.class) && SAFE_CLASSES.has(c.got.class));
  const refused = safe.filter((c) => !SAFE_CLASSES.has(c.got.class));

  it('is large, in many languages, from published servers and written shapes', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(400);
    expect(new Set(corpus.map((c) => c.lang)).size).toBeGreaterThanOrEqual(20);
    expect(corpus.filter((c) => c.source.startsWith('npm:')).length).toBeGreaterThan(100);
    for (const c of corpus) expect(c.why.length, c.tool.name).toBeGreaterThan(0);
  });

  it('judges no side-effecting tool callable, and most safe tools callable', () => {
    const show = (c: (typeof judged)[number]): string =>
      `  [${c.lang}] ${c.tool.name}: labelled ${c.class}, judged ${c.got.class} (${c.got.evidence[0] ?? ''})`;
    const share = safe.length === 0 ? 0 : (safe.length - refused.length) / safe.length;
    console.log(
      [
        `tool-plan corpus: ${corpus.length} declarations, ${new Set(corpus.map((c) => c.lang)).size} languages`,
        `side-effecting tools judged callable: ${harms.length} (goal 0)`,
        ...harms.map(show),
        `safe tools judged callable: ${safe.length - refused.length} of ${safe.length} (${(100 * share).toFixed(1)} %, goal 95 %)`,
        ...refused.map(show),
      ].join('\n'),
    );
    expect(harms.map((c) => c.tool.name)).toEqual([]);
    expect(share).toBeGreaterThanOrEqual(SAFE_CALLABLE_FLOOR);
  });
});
