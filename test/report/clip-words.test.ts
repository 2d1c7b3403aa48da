/** A sentence a reader is meant to follow is cut at a word, never mid-word (report/plan.ts). */
import { describe, expect, it } from 'vitest';
import { clipWords } from '../../src/report/plan.js';

describe('clipWords', () => {
  it('keeps a short text whole', () => {
    expect(clipWords('raise --deadline to reach them', 40)).toBe('raise --deadline to reach them');
  });

  it('cuts at the last word boundary that fits, marks the cut, and drops trailing punctuation', () => {
    const cut = clipWords(
      'discovery did not finish within the survey time cap; raise --deadline',
      40,
    );
    expect(cut).toBe('discovery did not finish within the …');
    expect([...cut].length).toBeLessThanOrEqual(40);
  });

  it('cuts a single word longer than the limit as it must', () => {
    expect(clipWords('x'.repeat(50), 10)).toBe(`${'x'.repeat(9)}…`);
  });
});
