import { describe, expect, it } from 'vitest';
import {
  differences,
  leavesOf,
  noiseOf,
  tokenize,
  valueAt,
  varyingValues,
} from '../../src/probe/evidence/positions.js';

const text = (t: string) => ({ content: [{ type: 'text', text: t }] });

describe('positions', () => {
  it('splits any script into word-like tokens and keeps ids whole', () => {
    expect(tokenize('Your booking BK-7Q2M9X is confirmed for 4.')).toEqual([
      'Your',
      'booking',
      'BK-7Q2M9X',
      'is',
      'confirmed',
      'for',
      '4',
    ]);
    expect(tokenize('Konto gelöscht: 削除 済み')).toEqual(['Konto', 'gelöscht', '削除', '済み']);
  });

  it('keeps the characters an id drew at its ends, and trims only the sentence around it', () => {
    // base64url's `-` and `_`, base64's padding, a path's slash, a phone number's plus: each drawn
    // at random by some server, each the id's own (a booking code cut short is somebody else's).
    for (const id of ['-Ab3_', 'Ab3_-', '_x9', 'QUJD==', 'a/b/', '+4930', '~k']) {
      expect(tokenize(`Your code ${id} is ready.`)).toEqual(['Your', 'code', id, 'is', 'ready']);
      expect(tokenize(`Your code is ${id}.`)[3]).toBe(id);
      expect(tokenize(`Code: ${id}: done`)[1]).toBe(id);
    }
    expect(tokenize('ticket #17 - filed')).toEqual(['ticket', '17', 'filed']);
  });

  it('opens JSON written in a text and reads every depth, _meta included', () => {
    const paths = leavesOf({
      content: [{ type: 'text', text: '{"a":{"b":["x","y"]}}' }],
      _meta: { ref: 'r-1' },
    }).map((l) => l.path);
    expect(paths).toEqual([
      'content.0.type',
      'content.0.text#json.a.b.0',
      'content.0.text#json.a.b.1',
      '_meta.ref',
    ]);
  });

  it('ignores what varies between two identical requests, and reports what else differs', () => {
    const one = leavesOf(text('Trip planned for alice at 2026-12-01T10:00:00Z'));
    const two = leavesOf(text('Trip planned for alice at 2026-12-01T10:00:07Z'));
    const noise = noiseOf([one, two]);
    expect(differences(one, two, noise)).toEqual([]);
    const other = leavesOf(text('Trip planned for undefined at 2026-12-01T10:00:09Z'));
    const diff = differences(one, other, noise);
    expect(diff).toHaveLength(1);
    expect(diff[0]?.after).toContain('undefined');
    // Without the noise model the clock alone is a difference.
    expect(differences(one, two)).toHaveLength(1);
  });

  it('finds what two identical mints minted, wherever it sits, and the fresh value at that place', () => {
    const a = leavesOf(text('Your booking BK-AAAAAA is confirmed for 4.'));
    const b = leavesOf(text('Your booking BK-123456 is confirmed for 4.'));
    const minted = varyingValues(a, b);
    expect(minted.map((m) => m.value)).toEqual(['BK-AAAAAA']);
    const fresh = leavesOf(text('Your booking BK-Q9Z7XX is confirmed for 4.'));
    expect(valueAt(fresh, minted[0]!)).toBe('BK-Q9Z7XX');
    const meta = varyingValues(
      leavesOf({ _meta: { id: 'x1' } }),
      leavesOf({ _meta: { id: 'x2' } }),
    );
    expect(meta).toEqual([{ path: '_meta.id', value: 'x1' }]);
  });

  it('stays bounded on a huge answer', () => {
    const huge = { content: [{ type: 'text', text: 'w '.repeat(2_000_000) }] };
    const leaves = leavesOf(huge);
    expect(leaves[0]!.tokens.length).toBeLessThanOrEqual(1 << 16);
  });
});
