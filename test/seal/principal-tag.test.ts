import { describe, expect, it } from 'vitest';
import { createKeyRing } from '../../src/seal/key.js';
import {
  createPrincipalTagger,
  isEmptyPrincipal,
  principalTagText,
} from '../../src/seal/principal-tag.js';
import { EMPTY_PRINCIPALS } from '../bind/empty-principals.js';
import { KEY_A, KEY_B } from './helpers.js';

describe('the text a principal is tagged as', () => {
  it('is absent for no principal and for an object with no field set', () => {
    expect(principalTagText(undefined)).toBeUndefined();
    expect(principalTagText({})).toBeUndefined();
    expect(principalTagText({ clientId: undefined, issuer: undefined })).toBeUndefined();
  });

  it.each(EMPTY_PRINCIPALS)('is absent for %s, which names no one', (_, empty) => {
    expect(principalTagText(empty)).toBeUndefined();
    expect(isEmptyPrincipal(empty)).toBe(true);
  });

  it('is present for a principal with one field that names someone, blank fields beside it', () => {
    for (const principal of [' alice', { subject: 'alice', clientId: '' }, { issuer: ' i ' }]) {
      expect(principalTagText(principal)).toBeTypeOf('string');
      expect(isEmptyPrincipal(principal)).toBe(false);
    }
  });

  it('is the same whatever the field order, and different for any other principal', () => {
    const texts = [
      'alice',
      ' alice',
      { clientId: 'alice' },
      { issuer: 'alice' },
      { subject: 'alice' },
      { clientId: '', subject: 's' },
      { subject: 's' },
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

describe('the tagger', () => {
  const ring = createKeyRing([KEY_A, KEY_B], 'requestState');
  const [keyA, keyB] = ring.all as [(typeof ring.all)[number], (typeof ring.all)[number]];
  /** The tag a tagger with no history gives. */
  const fresh = (
    key: typeof keyA,
    principal: Parameters<ReturnType<typeof createPrincipalTagger>>[1],
  ) => createPrincipalTagger(16)(key, principal)?.toString('hex');

  it('answers for the principal asked, not the last one, even when the same object changed', () => {
    const tag = createPrincipalTagger(16);
    const principal: { clientId?: string; issuer?: string; subject?: string } = {
      clientId: 'c',
      issuer: 'i',
      subject: 'alice',
    };
    const alice = tag(keyA, principal)?.toString('hex');
    expect(alice).toBe(fresh(keyA, { clientId: 'c', issuer: 'i', subject: 'alice' }));
    principal.subject = 'bob';
    const bob = tag(keyA, principal)?.toString('hex');
    expect(bob).toBe(fresh(keyA, { clientId: 'c', issuer: 'i', subject: 'bob' }));
    expect(bob).not.toBe(alice);
    delete principal.subject;
    expect(tag(keyA, principal)?.toString('hex')).toBe(fresh(keyA, { clientId: 'c', issuer: 'i' }));
  });

  it('answers per key, and never confuses a string with an object of the same text', () => {
    const tag = createPrincipalTagger(16);
    const sequence: [typeof keyA, Parameters<typeof tag>[1]][] = [
      [keyA, 'alice'],
      [keyB, 'alice'],
      [keyA, { clientId: 'alice' }],
      [keyA, 'alice'],
      [keyA, undefined],
      [keyA, {}],
      [keyA, ''],
      [keyA, { subject: ' ' }],
      [keyA, { clientId: 'alice' }],
      [keyB, { clientId: 'alice' }],
    ];
    for (const [key, principal] of sequence) {
      expect(tag(key, principal)?.toString('hex')).toBe(fresh(key, principal));
    }
    expect(fresh(keyA, 'alice')).not.toBe(fresh(keyB, 'alice'));
    expect(fresh(keyA, 'alice')).not.toBe(fresh(keyA, { clientId: 'alice' }));
  });

  it('re-reads a field that is an object, so a change inside it changes the tag', () => {
    const tag = createPrincipalTagger(16);
    const inner = { id: 1 };
    const principal = { clientId: inner } as unknown as { clientId: string };
    const before = tag(keyA, principal)?.toString('hex');
    inner.id = 2;
    const after = tag(keyA, principal)?.toString('hex');
    expect(after).not.toBe(before);
    expect(after).toBe(fresh(keyA, { clientId: { id: 2 } } as unknown as { clientId: string }));
  });
});
