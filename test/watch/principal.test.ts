import { describe, expect, it } from 'vitest';
import { createDigester } from '../../src/watch/capture.js';
import { principalDigest } from '../../src/watch/principal.js';

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const jwt = (claims: Record<string, unknown>) =>
  `${b64({ alg: 'RS256' })}.${b64(claims)}.c2lnbmF0dXJl`;

describe('principalDigest', () => {
  const d = createDigester();
  const sources = { metaKey: 'io.modelcontextprotocol/principal', header: 'x-user' };
  const of = (headers: Record<string, string>, message: unknown = {}) =>
    principalDigest(d, sources, headers, message);

  it("treats one user's refreshed JWT as the same principal, another subject as another", () => {
    const first = of({ authorization: `Bearer ${jwt({ iss: 'idp', sub: 'u1', iat: 1 })}` });
    const refreshed = of({ authorization: `Bearer ${jwt({ iss: 'idp', sub: 'u1', iat: 2 })}` });
    const other = of({ authorization: `Bearer ${jwt({ iss: 'idp', sub: 'u2', iat: 1 })}` });
    expect(first).toBe(refreshed);
    expect(other).not.toBe(first);
    expect(first).toMatch(/^[0-9a-f]{16}$/);
  });

  it('falls back to an opaque token, the identity header, then _meta', () => {
    expect(of({ authorization: 'Bearer abc' })).not.toBe(of({ authorization: 'Bearer abd' }));
    expect(of({ 'x-user': 'alice' })).toBe(of({ 'x-user': 'alice' }));
    const meta = { params: { _meta: { 'io.modelcontextprotocol/principal': 'alice' } } };
    expect(of({}, meta)).toBeDefined();
    expect(of({}, meta)).not.toBe(of({ 'x-user': 'alice' }));
    expect(of({})).toBeUndefined();
  });
});
