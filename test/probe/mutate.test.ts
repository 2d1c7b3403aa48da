import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  decodeBlob,
  encodeBlob,
  flipAt,
  planMutations,
  randomSameShape,
} from '../../src/probe/experiments/mutate.js';

const state = {
  principal: 'alice',
  role: 'viewer',
  approved: false,
  amount: 10,
  exp: 1_800_000_000,
  workspace_id: 'ws-1',
  step: 'confirm',
};
const json = JSON.stringify(state);
const b64url = Buffer.from(json).toString('base64url');
const decodeJson = (seg: string) => JSON.parse(Buffer.from(seg, 'base64url').toString()) as object;

describe('decoding a requestState', () => {
  it.each([
    ['raw JSON', json, 0],
    ['base64url JSON', b64url, 0],
    ['base64 JSON', Buffer.from(json).toString('base64'), 0],
    ['body.signature', `${b64url}.c2lnbmF0dXJlLWJ5dGVz`, 0],
    ['v1.body.mac', `v1.${b64url}.bWFj`, 1],
    ['JWS compact', `eyJhbGciOiJIUzI1NiJ9.${b64url}.c2ln`, 1],
  ])('reads %s', (_name, blob, index) => {
    const decoded = decodeBlob(blob);
    expect(decoded?.value).toEqual(state);
    expect(decoded?.index).toBe(index);
  });

  it('gives up on an opaque blob', () => {
    expect(
      decodeBlob('v1.' + Buffer.from('not json at all, just bytes').toString('base64url')),
    ).toBe(undefined);
  });

  it('re-encodes with every other segment exactly as issued', () => {
    const blob = `${b64url}.SIGNATURE_AS_ISSUED`;
    const decoded = decodeBlob(blob)!;
    const out = encodeBlob(decoded, { ...state, principal: 'mallory' })!;
    expect(out.endsWith('.SIGNATURE_AS_ISSUED')).toBe(true);
    expect(decodeJson(out.split('.')[0]!)).toMatchObject({ principal: 'mallory', role: 'viewer' });
  });
});

describe('planned mutations', () => {
  const canary = 'sg-state-canary';
  const plans = planMutations(`${b64url}.sig`, canary);
  const fields = (ps: readonly { label: string }[]) => ps.map((p) => p.label.split(/[ :]/)[0]);

  it('change every field, whatever its name, most telling first', () => {
    expect(fields(plans)).toEqual([
      'principal',
      'role',
      'role',
      'approved',
      'amount',
      'workspace_id',
      'step',
      'exp',
    ]);
  });

  it('change exactly one field each and keep the signature', () => {
    const results = plans.map((p) => p.apply(`${b64url}.sig`)!);
    const decoded = results.map((r) => decodeJson(r.split('.')[0]!) as Record<string, unknown>);
    expect(results.every((r) => r.endsWith('.sig'))).toBe(true);
    expect(decoded[0]).toEqual({ ...state, principal: canary });
    expect(decoded[1]).toEqual({ ...state, role: canary });
    expect(decoded[2]).toEqual({ ...state, role: 'admin' });
    expect(decoded[3]).toEqual({ ...state, approved: true });
    expect(decoded[4]).toEqual({ ...state, amount: 10_000 });
    expect(decoded[5]).toEqual({ ...state, workspace_id: canary });
    expect(decoded[6]).toEqual({ ...state, step: canary });
    expect(decoded[7]).toEqual({ ...state, exp: state.exp + 1e7 });
    expect(plans[0]!.marker).toBe(canary);
  });

  it('plant a control beside the changed field, which the change alone never has', () => {
    const out = plans[0]!.withControl!(`${b64url}.sig`, 'sg-control-x')!;
    const value = decodeJson(out.split('.')[0]!) as Record<string, unknown>;
    const controlKey = Object.keys(value).find((k) => !(k in state))!;
    expect(value[controlKey]).toBe('sg-control-x');
    expect({ ...value, [controlKey]: undefined }).toEqual({
      ...state,
      principal: canary,
      [controlKey]: undefined,
    });
  });

  it('apply to a fresh blob of the same structure, and skip one without the field', () => {
    const fresh = Buffer.from(JSON.stringify({ ...state, principal: 'bob' })).toString('base64url');
    expect(decodeJson(plans[0]!.apply(`${fresh}.x`)!.split('.')[0]!)).toMatchObject({
      principal: canary,
    });
    const without = Buffer.from(JSON.stringify({ step: 'x' })).toString('base64url');
    expect(plans[0]!.apply(`${without}.x`)).toBeUndefined();
  });

  it('open JSON held inside a string field', () => {
    const blob = JSON.stringify({ v: 1, inner: JSON.stringify({ user: 'alice' }) });
    const first = planMutations(blob, canary)[0]!;
    expect(first.label).toContain('inner.(json).user');
    const out = JSON.parse(first.apply(blob)!) as { inner: string };
    expect(JSON.parse(out.inner)).toEqual({ user: canary });
  });

  it("put a later round's value into an earlier round's state (a skipped step)", () => {
    const r1 = JSON.stringify({ step: 'draft', title: 't' });
    const r2 = JSON.stringify({ step: 'pending_approval', title: 't' });
    const skip = planMutations(r1, canary, { later: [r2] })[0]!;
    expect(skip.label).toContain('later round');
    expect(JSON.parse(skip.apply(r1)!)).toEqual({ step: 'pending_approval', title: 't' });
  });

  it('send a JWS with alg none and no signature, and with a header field changed', () => {
    const header = Buffer.from(JSON.stringify({ alg: 'HS256', kid: 'k1' })).toString('base64url');
    const jws = `${header}.${b64url}.c2lnbmF0dXJl`;
    const jplans = planMutations(jws, canary);
    const none = jplans.find((p) => p.label.includes('alg none'))!;
    const [h, body, sig] = none.apply(jws)!.split('.');
    expect(JSON.parse(Buffer.from(h!, 'base64url').toString())).toEqual({ alg: 'none', kid: 'k1' });
    expect(decodeJson(body!)).toMatchObject({ principal: canary });
    expect(sig).toBe('');
    const kid = jplans.find((p) => p.label.includes('header kid'))!;
    expect(JSON.parse(Buffer.from(kid.apply(jws)!.split('.')[0]!, 'base64url').toString())).toEqual(
      {
        alg: 'HS256',
        kid: canary,
      },
    );
  });

  it('recompute an unkeyed digest of the body, beside it or inside it', () => {
    const sha = (t: string) => createHash('sha256').update(t).digest('hex');
    const beside = `${b64url}.${sha(b64url)}`;
    const out = planMutations(beside, canary)[0]!.apply(beside)!;
    const [body, digest] = out.split('.');
    expect(digest).toBe(sha(body!));
    expect(decodeJson(body!)).toMatchObject({ principal: canary });
    const md5 = (t: string) => createHash('md5').update(t).digest('base64');
    const inside = JSON.stringify({ user: 'alice', check: md5(JSON.stringify({ user: 'alice' })) });
    const changed = JSON.parse(planMutations(inside, canary)[0]!.apply(inside)!) as Record<
      string,
      string
    >;
    expect(changed).toEqual({ user: canary, check: md5(JSON.stringify({ user: canary })) });
  });

  it('recompute an unkeyed digest of one field beside it, hex or base64, at any depth', () => {
    const hash = (alg: string, t: string, enc: 'hex' | 'base64') =>
      createHash(alg).update(t).digest(enc);
    const state = {
      account: 'alice',
      account_sha256: hash('sha256', 'alice', 'hex'),
      order: { item: 'lamp', item_check: hash('sha1', 'lamp', 'base64') },
    };
    const blob = Buffer.from(JSON.stringify(state)).toString('base64url');
    const plans = planMutations(blob, canary);
    const open = (p: (typeof plans)[number]) =>
      decodeJson(p.apply(blob)!) as {
        account: string;
        account_sha256: string;
        order: { item: string; item_check: string };
      };
    const account = plans.find((p) => p.label.startsWith('account →'))!;
    expect(account.label).toContain('its sha256 in account_sha256 recomputed');
    expect(open(account)).toEqual({
      ...state,
      account: canary,
      account_sha256: hash('sha256', canary, 'hex'),
    });
    const item = open(plans.find((p) => p.label.startsWith('order.item →'))!);
    expect(item.order).toEqual({ item: canary, item_check: hash('sha1', canary, 'base64') });
    // A change of the digest itself stands: it is not recomputed away.
    const digest = open(plans.find((p) => p.label.startsWith('account_sha256 →'))!);
    expect(digest).toMatchObject({ account: 'alice', account_sha256: canary });
  });

  it("change a token's bookkeeping (times, issuer, audience, id) after every other field", () => {
    const claims = {
      iss: 'me',
      sub: 'alice',
      aud: 'api',
      iat: 1,
      nbf: 1,
      exp: 2,
      jti: 'x1',
      project: 'p',
      access: 'summary',
    };
    const jws = `eyJhbGciOiJIUzI1NiJ9.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2ln`;
    const order = [...new Set(fields(planMutations(jws, canary)).filter((f) => f !== 'JWS'))];
    expect(order).toEqual(['sub', 'project', 'access', 'iss', 'aud', 'iat', 'nbf', 'exp', 'jti']);
  });

  it('stay bounded on a huge nested state', () => {
    const deep = '['.repeat(100_000) + '"x"' + ']'.repeat(100_000);
    const wide = `{"a":${deep},"b":[${Array.from({ length: 100_000 }, (_, i) => i).join(',')}]}`;
    const plans = planMutations(wide, canary);
    expect(plans.length).toBeGreaterThan(0);
    expect(plans.length).toBeLessThanOrEqual(2 * 128);
    // A change that cannot be re-encoded (too deep to write back) is no change, never a crash.
    for (const p of plans.slice(0, 3)) expect(() => p.apply(wide)).not.toThrow();
  });

  it('fall back to character flips for an opaque blob', () => {
    const opaque = Buffer.from(Array.from({ length: 90 }, (_, i) => (i * 37) % 256)).toString(
      'base64url',
    );
    const flips = planMutations(opaque, canary);
    expect(flips).toHaveLength(5);
    for (const f of flips) {
      const out = f.apply(opaque)!;
      expect(out).toHaveLength(opaque.length);
      expect(Buffer.from(out, 'base64url').equals(Buffer.from(opaque, 'base64url'))).toBe(false);
    }
  });
});

describe('character flips', () => {
  it('always change the decoded bytes, even at the very end of a padded segment', () => {
    // 'AQ' decodes to one byte; its last character's low bits are padding a decoder ignores.
    for (const blob of ['AAAAAQ', 'v1.AAAAAQ', 'AAAAAQ==', 'abcdefABCDEF0123456789-_x']) {
      for (const at of [0, 0.5, 0.99, 1]) {
        const out = flipAt(blob, at);
        expect(out).toBeDefined();
        const seg = (s: string) => s.split('.').pop()!;
        expect(
          Buffer.from(seg(out!), 'base64url').equals(Buffer.from(seg(blob), 'base64url')),
        ).toBe(false);
      }
    }
  });

  it('never touch the last base64 character', () => {
    const blob = 'QUJDREVGR0hJSktMTU5PUA';
    expect(flipAt(blob, 1)!.at(-1)).toBe(blob.at(-1));
  });

  it('keep a hex blob hex', () => {
    expect(flipAt('00112233445566778899', 0.5)).toMatch(/^[0-9a-f]{20}$/);
  });
});

describe('a random blob of the same shape', () => {
  it('keeps length, separators and a short prefix, and changes the rest', () => {
    const blob = `v1.${b64url}.c2lnbmF0dXJl`;
    const r = randomSameShape(blob);
    expect(r).toHaveLength(blob.length);
    expect(r.startsWith('v1.')).toBe(true);
    expect(r.split('.').map((s) => s.length)).toEqual(blob.split('.').map((s) => s.length));
    expect(r).not.toBe(blob);
    expect(randomSameShape('ws-0123456789abcdef')).toMatch(/^ws-[0-9a-f]{16}$/);
  });

  it('spells every base64url run canonically, whatever its length, so a strict decoder reads random bytes', () => {
    // A run of 4n+2 or 4n+3 characters leaves bits unused in its last one: a random last letter
    // would make most random values misspellings (refused as such) and a few not.
    for (let bytes = 20; bytes < 28; bytes++) {
      const body = Buffer.alloc(bytes, 0xa5).toString('base64url');
      for (let k = 0; k < 50; k++) {
        const r = randomSameShape(`v1.${body}.${body}`);
        const [, one, two] = r.split('.') as [string, string, string];
        for (const run of [one, two]) {
          expect(run).toHaveLength(body.length);
          expect(Buffer.from(run, 'base64url').toString('base64url')).toBe(run);
        }
      }
    }
  });
});
