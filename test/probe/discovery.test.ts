/**
 * Discovery's pieces on their own: what a value harvest finds in an answer, and how a value is
 * fitted to a parameter. The end-to-end proof (servers nobody here wrote) is foreign-proof.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { findLike, harvest } from '../../src/probe/surface/harvest.js';
import { fitScore } from '../../src/probe/surface/survey.js';
import type { ToolInfo } from '../../src/probe/types.js';

const text = (t: string) => ({ type: 'text', text: t });

describe('a harvest of what an answer hands out', () => {
  const request = { name: 'startDraft', arguments: { subject: 'sg-label-1234abcd' } };

  it('finds values at any depth of structured content, with the key they sat under', () => {
    const found = harvest(
      { structuredContent: { booking: { confirmation: { bookingCode: 'TRV-7Q2K9' } } } },
      request,
    );
    expect(found).toContainEqual({
      value: 'TRV-7Q2K9',
      key: 'bookingCode',
      kind: 'structured',
      where: 'r0:structured.booking.confirmation.bookingCode',
    });
  });

  it('finds JSON after prose and in a code fence, and id-like words in a sentence', () => {
    const found = harvest(
      {
        content: [
          text('Created.\n```json\n{"ledger": "lg-81f2a"}\n```'),
          text('Your draft dr_7Qk2xZ9 is ready. Share it with reviewers.'),
        ],
      },
      request,
    );
    expect(found.map((f) => [f.value, f.kind])).toEqual([
      ['lg-81f2a', 'json'],
      ['dr_7Qk2xZ9', 'prose'],
    ]);
  });

  it('finds resource links and embedded resources', () => {
    const found = harvest(
      {
        content: [
          { type: 'resource_link', uri: 'snippet://a1b2c3', name: 'x' },
          { type: 'resource', resource: { uri: 'notes://9', text: 'n' } },
        ],
      },
      request,
    );
    expect(found.filter((f) => f.kind === 'link').map((f) => f.value)).toEqual([
      'snippet://a1b2c3',
      'notes://9',
    ]);
  });

  it('never offers what the request itself sent, nor words, dates and numbers', () => {
    const found = harvest(
      {
        structuredContent: { label: 'sg-label-1234abcd', at: '2026-07-28T10:00:00Z', n: '42' },
        content: [text('Saved sg-label-1234abcd at 2026-07-28 for everyone.')],
      },
      request,
    );
    expect(found).toEqual([]);
  });

  it('finds the fresh value in the same place of a fresh answer', () => {
    const first = harvest({ content: [text('Your draft dr_AAAA1111 is ready.')] }, request);
    const like = first[0];
    if (like === undefined) throw new Error('nothing harvested');
    const again = findLike(
      [{ content: [text('Your draft dr_BBBB2222 is ready.')] }],
      [request],
      like,
    );
    expect(again).toBe('dr_BBBB2222');
  });
});

describe('fitting a value to a parameter', () => {
  const minter: ToolInfo = { name: 'bookTrip' };
  const offer = (value: string, key?: string) => ({
    minter,
    found: { value, kind: 'structured' as const, where: 'x', ...(key ? { key } : {}) },
  });

  it('lets the schema rule a value out: pattern, lengths, format', () => {
    const slot = (schema: Record<string, unknown>) => ({ path: ['code'], schema, required: true });
    expect(fitScore(slot({ pattern: '^TRV-' }), offer('XYZ-1'))).toBeUndefined();
    expect(fitScore(slot({ maxLength: 4 }), offer('TRV-12345'))).toBeUndefined();
    expect(fitScore(slot({ format: 'uri' }), offer('TRV-1'))).toBeUndefined();
    expect(fitScore(slot({ pattern: '^TRV-' }), offer('TRV-1'))).toBeGreaterThan(0);
  });

  it('ranks the value whose key matches the parameter above the one whose tool name does', () => {
    const slot = { path: ['lookup', 'bookingCode'], schema: {}, required: true };
    const byKey = fitScore(slot, offer('TRV-1', 'bookingCode')) ?? -1;
    const other = fitScore(slot, offer('stateguard-x1', 'traveller')) ?? -1;
    expect(byKey).toBeGreaterThan(other);
  });
});
