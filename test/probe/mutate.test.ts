import { describe, expect, it } from 'vitest';
import {
  decodeBlob,
  encodeBlob,
  flipAt,
  planMutations,
  randomSameShape,
} from '../../src/probe/trials/mutate.js';

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
    const out = encodeBlob(decoded, { ...state, principal: 'mallory' });
    expect(out.endsWith('.SIGNATURE_AS_ISSUED')).toBe(true);
    expect(decodeJson(out.split('.')[0]!)).toMatchObject({ principal: 'mallory', role: 'viewer' });
  });
});

describe('planned mutations', () => {
  const canary = 'sg-state-canary';
  const plans = planMutations(`${b64url}.sig`, canary);

  it('come most telling first: principal, role, approval, expiry, amount, target', () => {
    expect(plans.map((p) => p.label.split(':')[0])).toEqual([
      'principal',
      'role',
      'approved',
      'exp',
      'amount',
      'workspace_id',
    ]);
  });

  it('change exactly one field each and keep the signature', () => {
    const results = plans.map((p) => p.apply(`${b64url}.sig`)!);
    const decoded = results.map((r) => decodeJson(r.split('.')[0]!) as Record<string, unknown>);
    expect(results.every((r) => r.endsWith('.sig'))).toBe(true);
    expect(decoded[0]).toEqual({ ...state, principal: canary });
    expect(decoded[1]).toEqual({ ...state, role: 'admin' });
    expect(decoded[2]).toEqual({ ...state, approved: true });
    expect(decoded[3]).toEqual({ ...state, exp: state.exp + 1e7 });
    expect(decoded[4]).toEqual({ ...state, amount: 10_000 });
    expect(decoded[5]).toEqual({ ...state, workspace_id: canary });
    expect(plans[0]!.marker).toBe(canary);
  });

  it('apply to a fresh blob of the same structure, and skip one without the field', () => {
    const fresh = Buffer.from(JSON.stringify({ ...state, principal: 'bob' })).toString('base64url');
    expect(decodeJson(plans[0]!.apply(`${fresh}.x`)!.split('.')[0]!)).toMatchObject({
      principal: canary,
    });
    const without = Buffer.from(JSON.stringify({ step: 'x' })).toString('base64url');
    expect(plans[0]!.apply(`${without}.x`)).toBeUndefined();
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
});
