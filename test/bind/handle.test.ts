import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createHandleBinder,
  createStateSealer,
  HANDLE_PREFIX,
  HandleRejectedError,
  type HandleRejection,
} from '../../src/index.js';
import { createHandleBinderWith } from '../../src/bind/handle.js';
import { encodeBase64url, decodeBase64url } from '../../src/seal/base64url.js';
import vector from './handle-v1.json' with { type: 'json' };
import { EMPTY_PRINCIPALS } from './empty-principals.js';

const KEY = 'k'.repeat(32);
const OTHER_KEY = 'o'.repeat(32);
const ALICE = { issuer: 'https://auth.example', subject: 'alice', clientId: 'app' };
const BOB = { issuer: 'https://auth.example', subject: 'bob', clientId: 'app' };

function clock(start = 1_800_000_000_000): { now: () => number; advance: (ms: number) => void } {
  let at = start;
  return { now: () => at, advance: (ms) => (at += ms) };
}

function rejection(fn: () => unknown): HandleRejectedError {
  try {
    fn();
  } catch (error) {
    if (error instanceof HandleRejectedError) return error;
    throw error;
  }
  throw new Error('expected a HandleRejectedError');
}

function expectRejected(fn: () => unknown, reason: HandleRejection): void {
  const error = rejection(fn);
  expect({ code: error.code, reason: error.reason, message: error.message }).toEqual({
    code: 'ERR_HANDLE_REJECTED',
    reason,
    message: 'handle is unknown, expired or not yours',
  });
}

/** Replace one body byte with `mutate(byte)`, re-encoding canonically. */
function alterByte(handle: string, index: number, mutate: (b: number) => number): string {
  const [prefix, body] = handle.split('.') as [string, string];
  const bytes = decodeBase64url(body) as Buffer;
  const at = index < 0 ? bytes.length + index : index;
  bytes[at] = mutate(bytes[at] as number) & 0xff;
  return `${prefix}.${encodeBase64url(bytes)}`;
}

describe('the h1 handle format', () => {
  it('mints exactly the pinned vector from a fixed key, clock and randomness', () => {
    const random = Buffer.from(vector.random, 'hex');
    let at = 0;
    const binder = createHandleBinderWith(
      { keys: vector.key, audience: vector.audience, now: () => vector.nowMs },
      (n) => random.subarray(at, (at += n)),
    );
    expect(binder.mint(vector.principal, vector.kind)).toBe(vector.handle);
    const opened = createHandleBinder({
      keys: vector.key,
      audience: vector.audience,
      now: () => vector.nowMs,
    }).open(vector.handle, vector.principal, vector.kind);
    expect(opened.handleId).toBe(encodeBase64url(random.subarray(0, 16)));
    expect(opened.expiresAt).toBe(vector.nowMs + 3600_000);
  });
});

describe('createHandleBinder', () => {
  const binder = createHandleBinder({ keys: KEY, audience: 'notes' });

  it('opens a handle for the principal and kind it was minted for', () => {
    const handle = binder.mint(ALICE, 'workspace');
    const claims = binder.open(handle, { ...ALICE }, 'workspace');
    expect(claims.kind).toBe('workspace');
    expect(claims.expiresAt - claims.issuedAt).toBe(3600_000);
    expect(decodeBase64url(claims.handleId)).toHaveLength(16);
  });

  it('mints handles that are short, prefixed and carry no principal in clear', () => {
    const handle = binder.mint(ALICE, 'workspace');
    expect(handle.startsWith(`${HANDLE_PREFIX}.`)).toBe(true);
    expect(handle.length).toBeLessThanOrEqual(140);
    expect(handle).not.toContain('alice');
    const body = decodeBase64url(handle.slice(3)) as Buffer;
    expect(body.includes(Buffer.from('alice'))).toBe(false);
    expect(body.includes(Buffer.from('workspace'))).toBe(false);
  });

  it('gives every handle a distinct random id, stable across opens', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 200; i += 1) {
      const handle = binder.mint(ALICE, 'workspace');
      const first = binder.open(handle, ALICE, 'workspace').handleId;
      expect(binder.open(handle, ALICE, 'workspace').handleId).toBe(first);
      ids.add(first);
    }
    expect(ids.size).toBe(200);
  });

  it('refuses a handle presented by another principal with reason "principal"', () => {
    expectRejected(
      () => binder.open(binder.mint(ALICE, 'workspace'), BOB, 'workspace'),
      'principal',
    );
    expectRejected(
      () => binder.open(binder.mint('alice', 'workspace'), 'bob', 'workspace'),
      'principal',
    );
  });

  it('refuses a handle presented without a principal with reason "principal"', () => {
    expectRejected(
      () => binder.open(binder.mint(ALICE, 'workspace'), undefined, 'workspace'),
      'principal',
    );
  });

  it('refuses a handle presented for another kind with reason "kind"', () => {
    expectRejected(() => binder.open(binder.mint(ALICE, 'workspace'), ALICE, 'basket'), 'kind');
  });

  it('refuses a handle minted for another audience sharing the key with reason "audience"', () => {
    const other = createHandleBinder({ keys: KEY, audience: 'billing' });
    expectRejected(
      () => other.open(binder.mint(ALICE, 'workspace'), ALICE, 'workspace'),
      'audience',
    );
  });

  it('refuses an expired handle with reason "expired", and opens it just before', () => {
    const time = clock();
    const timed = createHandleBinder({
      keys: KEY,
      audience: 'notes',
      ttlSeconds: 60,
      now: time.now,
    });
    const handle = timed.mint(ALICE, 'workspace');
    time.advance(59_999);
    expect(timed.open(handle, ALICE, 'workspace').kind).toBe('workspace');
    time.advance(1);
    expectRejected(() => timed.open(handle, ALICE, 'workspace'), 'expired');
  });

  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a negative time', -1],
    ['a string', '1800000000000'],
  ])(
    'refuses an expired handle with reason "expired" when the clock then returns %s',
    (_label, broken) => {
      let reading: unknown = 1_800_000_000_000;
      const timed = createHandleBinder({
        keys: KEY,
        audience: 'notes',
        ttlSeconds: 60,
        now: () => reading as number,
      });
      const handle = timed.mint(ALICE, 'workspace');
      reading = broken;
      // On the old code `now() >= expiresAt` was false for NaN: the handle opened forever.
      expectRejected(() => timed.open(handle, ALICE, 'workspace'), 'expired');
      expect(() => timed.mint(ALICE, 'workspace')).toThrow(RangeError);
    },
  );

  it('lets one mint call choose a shorter lifetime', () => {
    const time = clock();
    const timed = createHandleBinder({ keys: KEY, audience: 'notes', now: time.now });
    const handle = timed.mint(ALICE, 'basket', { ttlSeconds: 5 });
    time.advance(5_000);
    expectRejected(() => timed.open(handle, ALICE, 'basket'), 'expired');
  });

  it('refuses a forged handle of the same shape with reason "unknown-key" or "auth"', () => {
    const genuine = binder.mint(ALICE, 'workspace');
    const bodyBytes = (decodeBase64url(genuine.slice(3)) as Buffer).length;
    const forged = `${HANDLE_PREFIX}.${encodeBase64url(randomBytes(bodyBytes))}`;
    expectRejected(() => binder.open(forged, ALICE, 'workspace'), 'unknown-key');
    const kid = (decodeBase64url(genuine.slice(3)) as Buffer).subarray(0, 4);
    const withKid = Buffer.concat([kid, randomBytes(bodyBytes - 4)]);
    expectRejected(
      () => binder.open(`${HANDLE_PREFIX}.${encodeBase64url(withKid)}`, ALICE, 'workspace'),
      'auth',
    );
  });

  it.each([
    ['the IV', 4],
    ['the ciphertext', 20],
    ['the tag', -1],
  ])('refuses a handle with one bit flipped in %s with reason "auth"', (_, index) => {
    const handle = alterByte(binder.mint(ALICE, 'workspace'), index, (b) => b ^ 1);
    expectRejected(() => binder.open(handle, ALICE, 'workspace'), 'auth');
  });

  it('refuses a handle with an altered key id with reason "unknown-key"', () => {
    const handle = alterByte(binder.mint(ALICE, 'workspace'), 0, (b) => b ^ 1);
    expectRejected(() => binder.open(handle, ALICE, 'workspace'), 'unknown-key');
  });

  it('refuses a handle minted under a key it does not hold with reason "unknown-key"', () => {
    const stranger = createHandleBinder({ keys: OTHER_KEY, audience: 'notes' });
    expectRejected(
      () => binder.open(stranger.mint(ALICE, 'workspace'), ALICE, 'workspace'),
      'unknown-key',
    );
  });

  it('opens handles minted under an older key of its ring, and mints under the first', () => {
    const old = createHandleBinder({ keys: KEY, audience: 'notes' });
    const rotated = createHandleBinder({ keys: [OTHER_KEY, KEY], audience: 'notes' });
    expect(rotated.open(old.mint(ALICE, 'workspace'), ALICE, 'workspace').kind).toBe('workspace');
    expectRejected(
      () => old.open(rotated.mint(ALICE, 'workspace'), ALICE, 'workspace'),
      'unknown-key',
    );
  });

  describe('refuses every re-encoding of a genuine handle with reason "malformed"', () => {
    // A handle whose body holds a `-` or `_`, so its standard-alphabet spelling differs (about 2% of
    // handles hold neither; a bounded search keeps the case from passing or failing by chance).
    const minted = Array.from({ length: 64 }, () => binder.mint(ALICE, 'workspace'));
    const handle = minted.find((h) => /[-_]/.test(h.slice(3))) as string;
    const body = handle.slice(3);
    const standard = Buffer.from(decodeBase64url(body) as Buffer).toString('base64');
    // A sibling last character: same high bits, a non-zero unused low bit, so Node decodes it to the
    // very same bytes.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = alphabet[alphabet.indexOf(body.at(-1) as string) ^ 1] as string;
    const trailing = `${body.slice(0, -1)}${sibling}`;
    const cases: [string, string][] = [
      ['with "=" padding', `${handle}==`],
      ['in the standard alphabet', `h1.${standard.replace(/=+$/, '')}`],
      ['with non-zero trailing bits', `h1.${trailing}`],
      ['with a space inside', `h1.${body.slice(0, 10)} ${body.slice(10)}`],
      ['with a trailing newline', `${handle}\n`],
      ['with an upper-case prefix', `H1.${body}`],
      ['without the dot', `h1${body}`],
    ];
    it('decodes the trailing-bits variant, leniently, to the same bytes', () => {
      expect(handle.length % 4).not.toBe(0); // so the last character has unused bits
      expect(trailing).not.toBe(body);
      expect(Buffer.from(trailing, 'base64url')).toEqual(Buffer.from(body, 'base64url'));
    });
    it.each(cases)('%s', (_, variant) => {
      expect(variant).not.toBe(handle);
      expectRejected(() => binder.open(variant, ALICE, 'workspace'), 'malformed');
    });
  });

  it('refuses values that are not strings or are far too long before decoding them', () => {
    expectRejected(() => binder.open(42, ALICE, 'workspace'), 'malformed');
    expectRejected(() => binder.open(undefined, ALICE, 'workspace'), 'malformed');
    expectRejected(() => binder.open(`h1.${'A'.repeat(10_000)}`, ALICE, 'workspace'), 'too-large');
  });

  it('refuses a requestState presented as a handle, even re-prefixed', () => {
    const sealer = createStateSealer({ keys: KEY, audience: 'notes' });
    const state = sealer.seal({ step: 1 }, { principal: ALICE, method: 'tools/call', name: 'x' });
    expectRejected(() => binder.open(state, ALICE, 'workspace'), 'malformed');
    // Same key, same envelope: only the purpose sub-key and the prefix in the AAD tell them apart.
    expectRejected(() => binder.open(`h1.${state.slice(3)}`, ALICE, 'workspace'), 'auth');
  });

  it('never opens a handle as a requestState, even re-prefixed', () => {
    const sealer = createStateSealer({ keys: KEY, audience: 'notes' });
    const binding = { principal: ALICE, method: 'tools/call', name: 'x' };
    const handle = binder.mint(ALICE, 'workspace');
    expect(() => sealer.open(handle, binding)).toThrow(
      expect.objectContaining({ reason: 'malformed' }),
    );
    expect(() => sealer.open(`v1.${handle.slice(3)}`, binding)).toThrow(
      expect.objectContaining({ reason: 'auth' }),
    );
  });

  it('keeps principal and handle out of every rejection message', () => {
    const handle = binder.mint('alice@example.com', 'workspace');
    const errors = [
      rejection(() => binder.open(handle, 'bob@example.com', 'workspace')),
      rejection(() => binder.open(handle, 'alice@example.com', 'basket')),
      rejection(() => binder.open(`${handle}x`, 'alice@example.com', 'workspace')),
    ];
    expect(new Set(errors.map((e) => e.reason)).size).toBe(3);
    for (const error of errors) {
      const text = `${error.message} ${String(error.stack)} ${JSON.stringify(error)}`;
      for (const secret of ['alice', 'bob', handle.slice(3, 20), 'workspace', 'basket']) {
        expect(text).not.toContain(secret);
      }
    }
  });

  it('refuses to mint without a principal unless anonymous handles are allowed', () => {
    expect(() => binder.mint(undefined, 'workspace')).toThrow(TypeError);
    expect(() => binder.mint({}, 'workspace')).toThrow(TypeError);
  });

  it.each(EMPTY_PRINCIPALS)(
    'refuses to mint for %s, naming its type and never its content, and opens nothing bound for it',
    (_, empty) => {
      expect(() => binder.mint(empty, 'workspace')).toThrow(TypeError);
      expect(() => binder.mint(empty, 'workspace')).toThrow(
        /a principal is required .*, got (a string of length \d+|an object naming no one)$/,
      );
      expectRejected(
        () => binder.open(binder.mint(ALICE, 'workspace'), empty, 'workspace'),
        'principal',
      );
    },
  );

  it.each(EMPTY_PRINCIPALS)(
    'mints an anonymous handle for %s where anonymous handles are allowed, and only then',
    (_, empty) => {
      const open = createHandleBinder({ keys: KEY, audience: 'notes', allowAnonymous: true });
      const handle = open.mint(empty, 'basket');
      expect(open.open(handle, empty, 'basket').principalTag).toBeUndefined();
      expect(open.open(handle, undefined, 'basket').principalTag).toBeUndefined();
      expect(open.open(open.mint(undefined, 'basket'), empty, 'basket').handleId).toBeTypeOf(
        'string',
      );
      expectRejected(() => open.open(handle, ALICE, 'basket'), 'principal');
      expectRejected(() => open.open(open.mint(ALICE, 'basket'), empty, 'basket'), 'principal');
    },
  );

  it('mints anonymous bearer handles when allowed, which no principal can open', () => {
    const open = createHandleBinder({ keys: KEY, audience: 'notes', allowAnonymous: true });
    const handle = open.mint(undefined, 'basket');
    expect(open.open(handle, undefined, 'basket').principalTag).toBeUndefined();
    expectRejected(() => open.open(handle, ALICE, 'basket'), 'principal');
    expectRejected(() => open.open(open.mint(ALICE, 'basket'), undefined, 'basket'), 'principal');
    // A binder that does not allow anonymous handles refuses one minted elsewhere under the same key.
    expectRejected(() => binder.open(handle, undefined, 'basket'), 'principal');
  });

  it('rejects misuse at construction and call sites with TypeError or RangeError', () => {
    expect(() => createHandleBinder({ keys: 'short', audience: 'notes' })).toThrow(RangeError);
    expect(() => createHandleBinder({ keys: KEY, audience: '' })).toThrow(TypeError);
    expect(() => createHandleBinder({ keys: KEY, audience: 'n', ttlSeconds: Infinity })).toThrow(
      RangeError,
    );
    expect(() => binder.mint(ALICE, '')).toThrow(TypeError);
    expect(() => binder.mint(ALICE, 'has space')).toThrow(TypeError);
    expect(() => binder.mint(ALICE, 'x'.repeat(65))).toThrow(TypeError);
    expect(() => binder.mint(ALICE, 'workspace', { ttlSeconds: -1 })).toThrow(RangeError);
    expect(() => binder.open('h1.AAAA', ALICE, '')).toThrow(TypeError);
  });
});
