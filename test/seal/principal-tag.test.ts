import { describe, expect, it } from 'vitest';
import { principalTagText } from '../../src/seal/principal-tag.js';

describe('the text a principal is tagged as', () => {
  it('is absent for no principal and for an object with no field set', () => {
    expect(principalTagText(undefined)).toBeUndefined();
    expect(principalTagText({})).toBeUndefined();
    expect(principalTagText({ clientId: undefined, issuer: undefined })).toBeUndefined();
  });

  it('is the same whatever the field order, and different for any other principal', () => {
    const texts = [
      'alice',
      '',
      { clientId: 'alice' },
      { issuer: 'alice' },
      { subject: 'alice' },
      { clientId: '' },
      { clientId: 'a', issuer: 'bc' },
      { clientId: 'ab', issuer: 'c' },
      { clientId: 'a', subject: 'bc' },
      { issuer: '1:a', subject: '-' },
      { issuer: '1', subject: 'a-' },
      { clientId: 7 as unknown as string },
      { clientId: '7' },
      'o5:alice--',
    ].map((p) => principalTagText(p));
    expect(new Set(texts).size).toBe(texts.length);
    expect(principalTagText({ subject: 's', clientId: 'c', issuer: 'i' })).toBe(
      principalTagText({ clientId: 'c', issuer: 'i', subject: 's' }),
    );
  });

  it('refuses a principal that is neither a string nor an object, naming only its type', () => {
    expect(() => principalTagText(42 as unknown as string)).toThrow(/got number/);
    expect(() => principalTagText(null as unknown as string)).toThrow(TypeError);
  });
});
