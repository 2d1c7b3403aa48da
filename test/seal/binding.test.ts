/**
 * A sealed state opens only for the request, principal and audience it was sealed for.
 */
import { describe, expect, it } from 'vitest';
import { createStateSealer, type StateBinding } from '../../src/index.js';
import { BINDING, expectRejected, KEY_A } from './helpers.js';
import { EMPTY_PRINCIPALS } from '../bind/empty-principals.js';

const sealer = createStateSealer({ keys: KEY_A, audience: 'reports' });
const STATE = { step: 'range' };

function sealed(binding: StateBinding = BINDING): string {
  return sealer.seal(STATE, binding);
}

describe('the request a state is bound to', () => {
  it('refuses the state for another tool with reason "request"', () => {
    expectRejected(() => sealer.open(sealed(), { ...BINDING, name: 'delete_report' }), 'request');
  });

  it('refuses the state when the name is dropped or added', () => {
    const { name: _name, ...nameless } = BINDING;
    expectRejected(() => sealer.open(sealed(), nameless), 'request');
    expectRejected(() => sealer.open(sealed(nameless), BINDING), 'request');
  });

  it('refuses the state for another method with reason "request"', () => {
    expectRejected(() => sealer.open(sealed(), { ...BINDING, method: 'prompts/get' }), 'request');
  });

  it('refuses the state for other arguments with reason "request"', () => {
    for (const args of [
      { dataset: 'payroll', range: { from: '2026-01', to: '2026-03' } },
      { dataset: 'sales', range: { from: '2026-01', to: '2026-04' } },
      { dataset: 'sales' },
      { dataset: 'sales', range: { from: '2026-01', to: '2026-03' }, extra: true },
      undefined,
      [],
    ]) {
      expectRejected(() => sealer.open(sealed(), { ...BINDING, args }), 'request');
    }
  });

  it('accepts the same arguments in another key order and spacing (RFC 8785 canonical form)', () => {
    const reordered = JSON.parse(
      '{ "range": {"to":"2026-03",  "from":"2026-01"}, "dataset":"sales" }',
    );
    expect(sealer.open(sealed(), { ...BINDING, args: reordered }).state).toEqual(STATE);
  });

  it('treats absent arguments and empty arguments alike', () => {
    const { args: _args, ...argless } = BINDING;
    expect(sealer.open(sealed(argless), { ...BINDING, args: {} }).state).toEqual(STATE);
  });

  it('refuses a state whose question digest does not match with reason "request"', () => {
    const asked = { ...BINDING, question: { pick_range: { message: 'Which range?' } } };
    const token = sealed(asked);
    expect(sealer.open(token, asked).state).toEqual(STATE);
    expectRejected(
      () =>
        sealer.open(token, { ...BINDING, question: { pick_range: { message: 'Which dataset?' } } }),
      'request',
    );
    expectRejected(() => sealer.open(token, BINDING), 'request');
    expectRejected(() => sealer.open(sealed(), asked), 'request');
  });

  it('compares the question digest canonically too', () => {
    const asked = { ...BINDING, question: { a: 1, b: [1, 2] } };
    expect(sealer.open(sealed(asked), { ...BINDING, question: { b: [1, 2], a: 1 } }).state).toEqual(
      STATE,
    );
  });
});

describe('the principal a state is bound to', () => {
  it('refuses a state sealed with a principal and opened without one, and the reverse', () => {
    const { principal: _p, ...anonymous } = BINDING;
    expectRejected(() => sealer.open(sealed(), anonymous), 'principal');
    expectRejected(() => sealer.open(sealed(anonymous), BINDING), 'principal');
    expect(sealer.open(sealed(anonymous), anonymous).state).toEqual(STATE);
  });

  it('ignores the field order of an object principal', () => {
    const reordered = { subject: 'alice', issuer: 'https://issuer.example', clientId: 'client-7' };
    expect(sealer.open(sealed(), { ...BINDING, principal: reordered }).state).toEqual(STATE);
  });

  it('refuses an object principal that differs in any one field', () => {
    const base = { clientId: 'client-7', issuer: 'https://issuer.example', subject: 'alice' };
    for (const change of [
      { clientId: 'client-8' },
      { issuer: 'https://evil.example' },
      { subject: 'bob' },
      { subject: undefined },
    ]) {
      expectRejected(
        () => sealer.open(sealed(), { ...BINDING, principal: { ...base, ...change } }),
        'principal',
      );
    }
  });

  it('never confuses a string principal with an object one', () => {
    const asString = { ...BINDING, principal: 'client-7' };
    expectRejected(
      () => sealer.open(sealed(asString), { ...BINDING, principal: { clientId: 'client-7' } }),
      'principal',
    );
    expectRejected(
      () => sealer.open(sealed({ ...BINDING, principal: { clientId: 'client-7' } }), asString),
      'principal',
    );
  });

  it('does not let field values run into each other (issuer "a", subject "bc" vs "ab", "c")', () => {
    const one = { ...BINDING, principal: { issuer: 'a', subject: 'bc' } };
    const two = { ...BINDING, principal: { issuer: 'ab', subject: 'c' } };
    expectRejected(() => sealer.open(sealed(one), two), 'principal');
  });

  it('tells many principals apart even past its memo of recent ones', () => {
    const tokens = Array.from({ length: 530 }, (_, i) =>
      sealed({ ...BINDING, principal: `user-${i}` }),
    );
    for (const [i, token] of tokens.entries()) {
      expect(sealer.open(token, { ...BINDING, principal: `user-${i}` }).state).toEqual(STATE);
      expectRejected(
        () => sealer.open(token, { ...BINDING, principal: `user-${i + 1}` }),
        'principal',
      );
    }
  });
});

describe('the audience a state is bound to', () => {
  it('refuses a state sealed by another server sharing the key with reason "audience"', () => {
    const billing = createStateSealer({ keys: KEY_A, audience: 'billing' });
    expectRejected(() => billing.open(sealed(), BINDING), 'audience');
    expectRejected(() => sealer.open(billing.seal(STATE, BINDING), BINDING), 'audience');
  });

  it('compares audiences exactly (no case folding)', () => {
    const shouting = createStateSealer({ keys: KEY_A, audience: 'REPORTS' });
    expectRejected(() => shouting.open(sealed(), BINDING), 'audience');
  });
});

describe('arguments canonical JSON refuses (a lone surrogate)', () => {
  // What `JSON.parse('{"q":"\\ud800"}')` gives: valid JSON text, but no canonical form (no UTF-8).
  const lone = { q: '\ud800' };
  const nested = { q: ['\udc00', { deeper: true }] };

  it.each([
    ['flat', lone],
    ['nested', nested],
  ])(
    'rejects them as "request" when opening a live, authentic token of this principal (%s)',
    (_label, args) => {
      // On the old code this threw a TypeError after every other check had passed: an oracle
      // saying the token was authentic, unexpired, the caller's own and for this tool.
      const token = sealer.seal(STATE, BINDING);
      expectRejected(() => sealer.open(token, { ...BINDING, args }), 'request');
    },
  );

  it('rejects them as "request" in prepare(), before anything acts on the request', () => {
    expectRejected(() => sealer.prepare({ ...BINDING, args: lone }), 'request');
  });

  it('refuses in prepare(), as "request", a name longer than a state can carry, and no shorter one', () => {
    const roomy = createStateSealer({ keys: KEY_A, audience: 'reports', maxTokenBytes: 1 << 20 });
    const longest = { ...BINDING, name: 'x'.repeat(65_535) };
    expect(roomy.open(roomy.seal(STATE, roomy.prepare(longest)), longest).state).toEqual(STATE);
    for (const name of [`${longest.name}x`, 'x'.repeat(1 << 20), '€'.repeat(21_846)]) {
      expectRejected(() => sealer.prepare({ ...BINDING, name }), 'request');
    }
  });

  it('binds a prepared binding exactly like the plain one, whichever the sealer is given', () => {
    const prepared = sealer.prepare(BINDING);
    expect(Object.isFrozen(prepared)).toBe(true);
    expect(sealer.open(sealer.seal(STATE, prepared), BINDING).state).toEqual(STATE);
    expect(sealer.open(sealer.seal(STATE, BINDING), prepared).state).toEqual(STATE);
    const other = sealer.prepare({ ...BINDING, args: { title: 'another' } });
    expectRejected(() => sealer.open(sealer.seal(STATE, prepared), other), 'request');
  });
});

describe('remembered digests and tags', () => {
  it('never lets a remembered digest stand in for a value canonical JSON refuses', () => {
    const local = createStateSealer({ keys: KEY_A, audience: 'reports' });
    // JSON.stringify writes NaN as null: a memo keyed on that text alone would accept this.
    const token = local.seal(STATE, { ...BINDING, args: { x: null } });
    expect(local.open(token, { ...BINDING, args: { x: null } }).state).toEqual(STATE);
    // Opening: the arguments are the client's, so a value canonical JSON refuses is a rejection.
    expectRejected(() => local.open(token, { ...BINDING, args: { x: Number.NaN } }), 'request');
    expect(() => local.seal(STATE, { ...BINDING, args: { x: Number.POSITIVE_INFINITY } })).toThrow(
      TypeError,
    );
  });

  it('gives the same answer for long arguments that are too big to remember', () => {
    const big = { blob: 'z'.repeat(5_000) };
    const token = sealer.seal(STATE, { ...BINDING, args: big });
    expect(sealer.open(token, { ...BINDING, args: { blob: 'z'.repeat(5_000) } }).state).toEqual(
      STATE,
    );
    expectRejected(
      () => sealer.open(token, { ...BINDING, args: { blob: `${'z'.repeat(4_999)}y` } }),
      'request',
    );
  });

  it('treats an object principal with no field set as no principal', () => {
    const { principal: _p, ...anonymous } = BINDING;
    expect(sealer.open(sealed(anonymous), { ...BINDING, principal: {} }).state).toEqual(STATE);
  });

  it.each(EMPTY_PRINCIPALS)(
    'treats %s as no principal, so it never opens a state bound to someone',
    (_, empty) => {
      const { principal: _p, ...anonymous } = BINDING;
      const withEmpty = { ...BINDING, principal: empty };
      expect(sealer.open(sealed(withEmpty), anonymous).state).toEqual(STATE);
      expect(sealer.open(sealed(anonymous), withEmpty).state).toEqual(STATE);
      expectRejected(() => sealer.open(sealed(), withEmpty), 'principal');
      expectRejected(() => sealer.open(sealed(withEmpty), BINDING), 'principal');
    },
  );

  it('binds principal fields that are not strings without coercing them', () => {
    const odd = { ...BINDING, principal: { clientId: 7 } as unknown as { clientId: string } };
    const token = sealed(odd);
    expect(sealer.open(token, odd).state).toEqual(STATE);
    expectRejected(
      () => sealer.open(token, { ...BINDING, principal: { clientId: '7' } }),
      'principal',
    );
  });
});
