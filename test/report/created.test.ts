/**
 * What a scan created reaches the report as evidence does: redacted (an identity the server put in
 * an id is its placeholder), each value cut, the first 50 named and all of them counted.
 */
import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/probe/evidence/evidence.js';
import { shownCreated } from '../../src/probe/runner/scan-report.js';
import { MAX_CREATED_SHOWN, MAX_CREATED_VALUE } from '../../src/probe/model/report.js';
import { createdSentence } from '../../src/report/created.js';

const IDENTITY_A = 'alice-token-5b1e0c9d';
const redactor = createRedactor({ A: IDENTITY_A });

describe('shownCreated', () => {
  it('is absent when the scan created nothing', () => {
    expect(shownCreated([], redactor)).toBeUndefined();
    expect(shownCreated(undefined, redactor)).toBeUndefined();
  });

  it('redacts what a server put in an id, and cuts a long value', () => {
    const shown = shownCreated(
      [
        { tool: 'create_note', value: `note-of-${IDENTITY_A}` },
        { tool: 'create_blob', value: 'x'.repeat(10_000) },
      ],
      redactor,
    );
    expect(JSON.stringify(shown)).not.toContain(IDENTITY_A);
    expect(shown?.items[0]?.value).toContain('<identity-A>');
    expect([...(shown?.items[1]?.value ?? '')]).toHaveLength(MAX_CREATED_VALUE);
    expect(shown?.items[1]?.value.endsWith('…')).toBe(true);
  });

  it('names the first 50 and counts them all, and the sentence says so', () => {
    const many = Array.from({ length: 130 }, (_, i) => ({
      tool: 'create_note',
      value: `note-${i}`,
    }));
    const shown = shownCreated(many, redactor);
    expect(shown?.total).toBe(130);
    expect(shown?.items).toHaveLength(MAX_CREATED_SHOWN);
    expect(createdSentence(shown!)).toBe(
      'This scan created 130 objects on the target (the tool called, and the id or handle it handed out); it removes none of them. The first 50 are listed, 80 more are not.',
    );
  });
});
