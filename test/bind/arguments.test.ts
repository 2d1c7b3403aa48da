/**
 * What a caller of the handle binder sees for each misuse (a `TypeError` or `RangeError` whose
 * message names the bad value's type or length, never its content), the exact bounds the docs
 * give, and the claims `issue` reports.
 *
 * Every binder here is built inside a test, never while the file is collected: a mutant that makes
 * construction throw must fail these tests, not the collection (which Stryker's vitest runner
 * would count as no test at all).
 */
import { describe, expect, it } from 'vitest';
import {
  createHandleBinder,
  HandleRejectedError,
  type HandleBinderOptions,
} from '../../src/index.js';

const KEY = 'k'.repeat(32);
const ALICE = { issuer: 'https://auth.example', subject: 'alice' };
const AT = 1_800_000_000_000;

function reasonOf(open: () => unknown): string {
  try {
    open();
  } catch (error) {
    if (error instanceof HandleRejectedError) return error.reason;
    throw error;
  }
  return 'opened';
}

describe('createHandleBinder options', () => {
  const make = (options: Partial<HandleBinderOptions>) =>
    createHandleBinder({ keys: KEY, audience: 'notes', ...options } as HandleBinderOptions);

  it('needs an options object', () => {
    expect(() => createHandleBinder(null as never)).toThrow(new TypeError('options are required'));
    expect(() => createHandleBinder(KEY as never)).toThrow(new TypeError('options are required'));
  });

  it('needs a non-empty audience string, and names the type of any other', () => {
    const error = (got: string) => new TypeError(`audience must be a non-empty string, got ${got}`);
    expect(() => make({ audience: '' })).toThrow(error('string'));
    expect(() => make({ audience: 7 as unknown as string })).toThrow(error('number'));
  });

  it.each(['ttlSeconds', 'maxHandleBytes'] as const)(
    'takes a positive finite %s and names the type of any other',
    (name) => {
      const error = (got: string) =>
        new RangeError(`${name} must be a positive finite number, got ${got}`);
      expect(() => make({ [name]: 0.5 })).not.toThrow();
      for (const value of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
        expect(() => make({ [name]: value })).toThrow(error('number'));
      }
      expect(() => make({ [name]: '60' as unknown as number })).toThrow(error('string'));
    },
  );

  it('allows anonymous handles only when allowAnonymous is exactly true', () => {
    const error = new TypeError(
      'a principal is required to mint a handle (see allowAnonymous), got undefined',
    );
    expect(() => make({}).mint(undefined, 'workspace')).toThrow(error);
    expect(() =>
      make({ allowAnonymous: 'yes' as unknown as boolean }).mint(undefined, 'w'),
    ).toThrow(error);
    expect(() => make({ allowAnonymous: true }).mint(undefined, 'workspace')).not.toThrow();
  });

  it('refuses, before decoding, a handle longer than maxHandleBytes, and no shorter one', () => {
    const binder = make({ now: () => AT });
    const handle = binder.mint(ALICE, 'workspace');
    expect(
      reasonOf(() => make({ maxHandleBytes: handle.length }).open(handle, ALICE, 'workspace')),
    ).toBe('opened');
    expect(
      reasonOf(() => make({ maxHandleBytes: handle.length - 1 }).open(handle, ALICE, 'workspace')),
    ).toBe('too-large');
    // The default bound is 512 characters.
    expect(reasonOf(() => binder.open(`h1.${'A'.repeat(509)}`, ALICE, 'workspace'))).toBe(
      'malformed',
    );
    expect(reasonOf(() => binder.open(`h1.${'A'.repeat(510)}`, ALICE, 'workspace'))).toBe(
      'too-large',
    );
  });
});

describe('kinds', () => {
  // Built inside each test, never while the file is collected (see the module comment).
  const binder = () => createHandleBinder({ keys: KEY, audience: 'notes' });
  const lengthError = (n: number) =>
    new TypeError(`kind must be 1-64 characters of [A-Za-z0-9._:-], got length ${n}`);

  it('takes 1 to 64 characters of [A-Za-z0-9._:-], on mint and on open', () => {
    for (const kind of ['w', 'Work.space_2:a-B', 'k'.repeat(64)]) {
      const b = binder();
      expect(b.open(b.mint(ALICE, kind), ALICE, kind).kind).toBe(kind);
    }
  });

  it('refuses any other kind with a message naming its type or length', () => {
    for (const [kind, n] of [
      ['', 0],
      ['k'.repeat(65), 65],
      [' workspace', 10],
      ['workspace ', 10],
      ['work space', 10],
      ['work/space', 10],
      ['wörk', 4],
    ] as const) {
      expect(() => binder().mint(ALICE, kind)).toThrow(lengthError(n));
      expect(() => binder().open('h1.AAAA', ALICE, kind)).toThrow(lengthError(n));
    }
    expect(() => binder().mint(ALICE, 42 as unknown as string)).toThrow(
      new TypeError('kind must be a string, got number'),
    );
  });
});

describe('mint and issue', () => {
  it('refuses to mint on a clock that gives no time', () => {
    const binder = createHandleBinder({ keys: KEY, audience: 'notes', now: () => Number.NaN });
    expect(() => binder.mint(ALICE, 'workspace')).toThrow(
      new RangeError('now() must return a time in milliseconds'),
    );
  });

  it('refuses a per-call lifetime that is not positive', () => {
    const binder = createHandleBinder({ keys: KEY, audience: 'notes' });
    expect(() => binder.mint(ALICE, 'workspace', { ttlSeconds: 0 })).toThrow(
      new RangeError('ttlSeconds must be a positive finite number, got number'),
    );
  });

  it('rounds a fractional lifetime up to the next millisecond', () => {
    const binder = createHandleBinder({ keys: KEY, audience: 'notes', now: () => AT });
    expect(binder.issue(ALICE, 'workspace', { ttlSeconds: 0.0005 }).claims.expiresAt).toBe(AT + 1);
    const short = createHandleBinder({
      keys: KEY,
      audience: 'notes',
      ttlSeconds: 0.0015,
      now: () => AT,
    });
    expect(short.issue(ALICE, 'workspace').claims.expiresAt).toBe(AT + 2);
  });

  it.each([
    ['bound to a principal', ALICE],
    ['anonymous', undefined],
  ])('issue reports the claims that open then reads, for a handle %s', (_label, principal) => {
    const binder = createHandleBinder({
      keys: KEY,
      audience: 'notes',
      allowAnonymous: true,
      now: () => AT,
    });
    const { handle, claims } = binder.issue(principal, 'workspace', { ttlSeconds: 30 });
    expect(claims).toEqual(binder.open(handle, principal, 'workspace'));
    expect(claims).toMatchObject({ kind: 'workspace', issuedAt: AT, expiresAt: AT + 30_000 });
    expect(claims.keyId).toMatch(/^[0-9a-f]{8}$/);
    expect(claims.handleId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    if (principal === undefined) expect(claims.principalTag).toBeUndefined();
    else expect(claims.principalTag).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });
});
