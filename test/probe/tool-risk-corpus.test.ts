/**
 * The classifier against a corpus of tool declarations (`data/tool-risk-corpus.json`): English,
 * German, French, Spanish, Portuguese, Italian, Dutch, Polish, Russian, Turkish, Japanese (kana,
 * kanji, romaji), Chinese and Korean; destructive and not, annotated and not, glued and separated,
 * with risky parameters at any depth. Every disagreement is printed. A destructive or risky tool
 * judged callable is a harm: there must be none. A harmless tool left alone costs coverage: their
 * count is printed and bounded.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { riskReason } from '../../src/probe/surface/tool-risk.js';
import type { ToolInfo } from '../../src/probe/types.js';

interface Case {
  readonly lang: string;
  readonly expected: 'destructive' | 'risky' | 'safe';
  readonly tool: ToolInfo;
}

const corpus = JSON.parse(
  readFileSync(new URL('./data/tool-risk-corpus.json', import.meta.url), 'utf8'),
) as Case[];

/** Harmless tools the classifier may leave alone, at most (a share of the harmless ones). */
const SAFE_REFUSED_BOUND = 0.05;

describe('the tool-risk corpus', () => {
  const judged = corpus.map((c) => ({ ...c, why: riskReason(c.tool) }));
  const harms = judged.filter((c) => c.expected !== 'safe' && c.why === undefined);
  const refused = judged.filter((c) => c.expected === 'safe' && c.why !== undefined);
  const wrongKind = judged.filter(
    (c) =>
      c.why !== undefined &&
      c.expected !== 'safe' &&
      !c.why.startsWith(c.expected === 'destructive' ? 'may destroy' : 'may run'),
  );

  it('is large and covers every language', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(200);
    const langs = new Set(corpus.map((c) => c.lang));
    for (const l of ['en', 'de', 'fr', 'es', 'pt', 'it', 'nl', 'pl', 'ru', 'tr', 'ja', 'zh', 'ko'])
      expect(langs.has(l), l).toBe(true);
    expect(corpus.some((c) => c.tool.annotations !== undefined)).toBe(true);
  });

  it('calls no destructive or risky tool, and leaves few harmless ones alone', () => {
    const show = (c: (typeof judged)[number]): string =>
      `  [${c.lang}] ${c.tool.name}${c.tool.description ? ` ("${c.tool.description}")` : ''}: expected ${c.expected}, judged ${c.why ?? 'callable'}`;
    console.log(
      [
        `tool-risk corpus: ${corpus.length} declarations`,
        `destructive or risky judged callable: ${harms.length}`,
        ...harms.map(show),
        `harmless left alone: ${refused.length} of ${judged.filter((c) => c.expected === 'safe').length}`,
        ...refused.map(show),
        `left alone for another reason than expected (still left alone): ${wrongKind.length}`,
        ...wrongKind.map(show),
      ].join('\n'),
    );
    expect(harms.map((c) => c.tool.name)).toEqual([]);
    const safe = judged.filter((c) => c.expected === 'safe').length;
    expect(refused.length).toBeLessThanOrEqual(Math.floor(safe * SAFE_REFUSED_BOUND));
  });
});
