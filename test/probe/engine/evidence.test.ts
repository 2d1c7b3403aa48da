import { describe, expect, it } from 'vitest';
import { boundValue, DEPTH_MARKER, EVIDENCE_LIMITS } from '../../../src/probe/evidence/bound.js';
import { createRedactor, jsonrpcEvidence } from '../../../src/probe/evidence/evidence.js';
import { tokensOf } from '../../../src/probe/evidence/markers.js';
import { IDS } from './helpers.js';

const r = createRedactor(IDS);

describe('redaction', () => {
  it('replaces identity secrets wherever they appear in a string', () => {
    expect(r.string(`owner=${IDS.A};peer=${IDS.B}`)).toBe('owner=<identity-A>;peer=<identity-B>');
  });

  it('replaces a secret in every form a token reading cuts it to: one ending in a dash is named without it', () => {
    // The identities the scanner makes up are base64url: one in 32 ends in "-", and a probe that
    // names the principal it found (a token of the answer) names it without that dash.
    const secret = 'stateguard-a-FJoetx6tbHo-zIa-';
    const dashed = createRedactor({ A: secret });
    const [token] = [...tokensOf({ text: `done as principal ${secret}.` })].filter((t) =>
      t.startsWith('stateguard-a'),
    );
    expect(token).toBe('stateguard-a-FJoetx6tbHo-zIa');
    expect(dashed.string(`principal came back: ${token}`)).toBe(
      'principal came back: <identity-A>',
    );
    expect(dashed.string(`owner ${secret} and ${token}`)).toBe(
      'owner <identity-A> and <identity-A>',
    );
  });

  it('replaces any other bearer token', () => {
    expect(r.string('Authorization: Bearer abc.def-ghi_123')).toBe(
      'Authorization: Bearer <redacted>',
    );
  });

  it('replaces a base64 or base64url run that encodes an identity, as in a state blob', () => {
    const blob = Buffer.from(JSON.stringify({ principal: IDS.A, n: 1 })).toString('base64url');
    const out = r.string(`v1.${blob}.c2lnbmF0dXJlLWJ5dGVz`);
    expect(out).toBe('v1.<encoded: contains <identity-A>>.c2lnbmF0dXJlLWJ5dGVz');
  });

  it('names the identity behind an Authorization header and hides any other credential header', () => {
    expect(
      r.headers({
        Authorization: `Bearer ${IDS.B}`,
        Cookie: 'sid=1',
        'Proxy-Authorization': 'Basic x',
        Accept: 'a',
      }),
    ).toEqual({
      authorization: 'Bearer <identity-B>',
      cookie: '<redacted>',
      'proxy-authorization': '<redacted>',
      accept: 'a',
    });
    expect(r.headers({ authorization: 'Bearer other-token' })).toEqual({
      authorization: 'Bearer <redacted>',
    });
  });

  it('redacts inside the values of evidence, keys included', () => {
    const e = jsonrpcEvidence(r, {
      label: 'x',
      transport: 'stdio',
      sent: { params: { _meta: { 'io.modelcontextprotocol/principal': IDS.A } } },
      received: [{ result: { [IDS.B]: 'owner' } }],
      ms: 1,
    });
    expect(JSON.stringify(e)).not.toMatch(/alice|bob/);
  });
});

describe('bounding', () => {
  it('replaces what nests deeper than the limit with a marker', () => {
    let deep: unknown = 'core';
    for (let i = 0; i < 1000; i++) deep = [deep];
    const out = JSON.stringify(boundValue(deep));
    expect(out).toContain(DEPTH_MARKER);
    expect(out).not.toContain('core');
  });

  it('cuts long strings, long arrays, many keys and the total size', () => {
    const out = boundValue({
      s: 'x'.repeat(EVIDENCE_LIMITS.maxString + 10),
      a: Array.from({ length: 500 }, (_, i) => i),
      o: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, i])),
      many: Array.from({ length: 90 }, () => 'y'.repeat(4000)),
    }) as Record<string, unknown>;
    expect(out.s).toMatch(/<truncated: 8202 chars>$/);
    expect(out.a).toHaveLength(EVIDENCE_LIMITS.maxItems + 1);
    expect(Object.keys(out.o as object)).toHaveLength(EVIDENCE_LIMITS.maxItems + 1);
    expect(JSON.stringify(out).length).toBeLessThan(EVIDENCE_LIMITS.maxTotal + 20_000);
  });

  it('keeps a hostile __proto__ key as a plain key', () => {
    const out = boundValue(JSON.parse('{"__proto__":{"polluted":true}}')) as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
