/**
 * The guard's parts, without a server: the argument size cap, the principal resolvers, the option
 * checks a JavaScript caller meets, and the wire error of every refusal reason.
 */
import type { AuthInfo, ServerContext } from '@modelcontextprotocol/server';
import { ProtocolError } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { STATE_REJECTIONS, type StateRejection } from '../../src/errors.js';
import { createMemoryLedger } from '../../src/ledger/memory.js';
import { DEFAULT_MAX_ARGUMENT_BYTES, jsonSizeWithin } from '../../src/sdk/arguments.js';
import {
  createStateGuard,
  httpPrincipal,
  INTERNAL_ERROR_MESSAGE,
  INVALID_STATE_MESSAGE,
  noPrincipal,
  PRINCIPAL_META_KEY,
  principalFromAuthInfo,
  principalFromClientIdOnly,
  principalFromMeta,
} from '../../src/sdk/index.js';
import { singleUseTools } from '../../src/sdk/options.js';
import { refusalError } from '../../src/sdk/wire.js';

const KEY = 'k'.repeat(32);

describe('jsonSizeWithin', () => {
  const samples: unknown[] = [
    'abc',
    '',
    12.5,
    -0,
    1e21,
    true,
    false,
    null,
    [],
    [1],
    ['a'],
    [1, 'two', [3]],
    {},
    { a: 1 },
    { ab: 'x', c: [true, null, {}], d: { e: false } },
    [[[[['deep']]]]],
  ];

  it.each(samples.map((value) => [JSON.stringify(value), value]))(
    'measures %s exactly as its JSON text: within its length, over it below',
    (text, value) => {
      const length = (text as string).length;
      for (let limit = 0; limit < length; limit += 1) {
        expect([limit, jsonSizeWithin(value, limit)]).toEqual([limit, false]);
      }
      for (let limit = length; limit <= length + 2; limit += 1) {
        expect([limit, jsonSizeWithin(value, limit)]).toEqual([limit, true]);
      }
    },
  );

  it('counts undefined like null, and a value JSON cannot carry as one character', () => {
    expect(jsonSizeWithin(undefined, 4)).toBe(true);
    expect(jsonSizeWithin(undefined, 3)).toBe(false);
    // {"a":?} is 7 characters with a one-character value.
    expect(jsonSizeWithin({ a: 10n }, 7)).toBe(true);
    expect(jsonSizeWithin({ a: 10n }, 6)).toBe(false);
    expect(jsonSizeWithin({ a: Symbol('s') }, 6)).toBe(false);
  });

  it('stops at the cap however many elements follow', () => {
    expect(
      jsonSizeWithin(
        Array.from({ length: 1_000_000 }, () => 'x'),
        100,
      ),
    ).toBe(false);
  });

  it('defaults to 64 KiB, which a guard can be told otherwise', () => {
    expect(DEFAULT_MAX_ARGUMENT_BYTES).toBe(65_536);
    const error = (got: string) =>
      new RangeError(`maxArgumentBytes must be a positive number, got ${got}`);
    const make = (maxArgumentBytes: unknown) =>
      createStateGuard({ transport: 'stdio', audience: 'a', keys: KEY, maxArgumentBytes } as never);
    expect(() => make(1)).not.toThrow();
    expect(() => make(Number.POSITIVE_INFINITY)).not.toThrow();
    expect(() => make(0)).toThrow(error('number'));
    expect(() => make(-1)).toThrow(error('number'));
    expect(() => make(Number.NaN)).toThrow(error('number'));
    expect(() => make('1024')).toThrow(error('string'));
  });
});

describe('principal resolvers', () => {
  const info = (extra?: Record<string, unknown>, clientId = 'app'): AuthInfo => ({
    token: 't',
    clientId,
    scopes: [],
    ...(extra !== undefined && { extra }),
  });
  const ctx = (authInfo?: AuthInfo, meta?: Record<string, unknown>) =>
    ({
      http: authInfo === undefined ? undefined : { authInfo },
      mcpReq: { _meta: meta },
    }) as unknown as ServerContext;

  it('reads client id, issuer and subject from a verified token', () => {
    expect(principalFromAuthInfo(info({ iss: 'https://i', sub: 'alice' }))).toEqual({
      clientId: 'app',
      issuer: 'https://i',
      subject: 'alice',
    });
    expect(principalFromAuthInfo(info({ issuer: 'https://i', subject: 'alice' }))).toEqual({
      clientId: 'app',
      issuer: 'https://i',
      subject: 'alice',
    });
    // An empty field counts as absent: the long name is read instead.
    expect(
      principalFromAuthInfo(info({ iss: '', issuer: 'https://i', sub: '', subject: 'bob' })),
    ).toEqual({ clientId: 'app', issuer: 'https://i', subject: 'bob' });
    expect(principalFromAuthInfo(info({ iss: 'https://i', sub: 'alice' }, ''))).toEqual({
      clientId: undefined,
      issuer: 'https://i',
      subject: 'alice',
    });
  });

  it('names no principal for a token without both issuer and subject, or no token', () => {
    expect(principalFromAuthInfo(undefined)).toBeUndefined();
    expect(principalFromAuthInfo(info())).toBeUndefined();
    expect(principalFromAuthInfo(info({ iss: 'https://i' }))).toBeUndefined();
    expect(principalFromAuthInfo(info({ sub: 'alice' }))).toBeUndefined();
    expect(principalFromAuthInfo(info({ iss: 7, sub: 'alice' }))).toBeUndefined();
    // A field of whitespace alone names no one either: the binders' own rule.
    expect(principalFromAuthInfo(info({ iss: 'https://i', sub: '  ' }))).toBeUndefined();
  });

  it('httpPrincipal: the token subject, none without a token, and a throw for a token naming no one', () => {
    expect(httpPrincipal(ctx(info({ iss: 'https://i', sub: 'alice' })))).toEqual({
      clientId: 'app',
      issuer: 'https://i',
      subject: 'alice',
    });
    expect(httpPrincipal(ctx())).toBeUndefined();
    expect(() => httpPrincipal(ctx(info()))).toThrow(TypeError);
    expect(() => httpPrincipal(ctx(info()))).toThrow(
      /has no subject or issuer.*extra\.sub and extra\.iss/,
    );
  });

  it('principalFromClientIdOnly: the client alone, none without a token, a throw without a client id', () => {
    expect(principalFromClientIdOnly(ctx(info({ sub: 'alice' })))).toEqual({ clientId: 'app' });
    expect(principalFromClientIdOnly(ctx())).toBeUndefined();
    expect(() => principalFromClientIdOnly(ctx(info({}, '')))).toThrow(TypeError);
    expect(() => principalFromClientIdOnly(ctx(info({}, '')))).toThrow(/has no client id/);
  });

  it('noPrincipal names no one, whatever the request carries', () => {
    expect(noPrincipal(ctx(info({ iss: 'https://i', sub: 'alice' })))).toBeUndefined();
  });

  it('principalFromMeta reads a non-empty string from the request _meta key', () => {
    expect(PRINCIPAL_META_KEY).toBe('io.modelcontextprotocol/principal');
    expect(principalFromMeta()(ctx(undefined, { [PRINCIPAL_META_KEY]: 'alice' }))).toBe('alice');
    expect(
      principalFromMeta('who')(ctx(undefined, { who: 'bob', [PRINCIPAL_META_KEY]: 'x' })),
    ).toBe('bob');
    expect(principalFromMeta()(ctx(undefined, { [PRINCIPAL_META_KEY]: '' }))).toBeUndefined();
    expect(principalFromMeta()(ctx(undefined, { [PRINCIPAL_META_KEY]: ' \t' }))).toBeUndefined();
    expect(principalFromMeta()(ctx(undefined, { [PRINCIPAL_META_KEY]: 7 }))).toBeUndefined();
    expect(principalFromMeta()(ctx(undefined, undefined))).toBeUndefined();
  });
});

describe('guard options', () => {
  it('names the type of an unknown transport', () => {
    const error = (got: string) => new TypeError(`transport must be 'stdio' or 'http', got ${got}`);
    expect(() => createStateGuard({ transport: 'sse', audience: 'a', keys: KEY } as never)).toThrow(
      error('string'),
    );
    expect(() => createStateGuard({ transport: 1, audience: 'a', keys: KEY } as never)).toThrow(
      error('number'),
    );
  });

  it('needs an options object', () => {
    expect(() => createStateGuard(null as never)).toThrow(new TypeError('options are required'));
    expect(() => createStateGuard('http' as never)).toThrow(new TypeError('options are required'));
  });

  it('runs an HTTP guard on a random key only when allowEphemeralKey is exactly true', () => {
    const error = new TypeError(
      'an HTTP state guard needs keys shared by every instance; pass keys, or allowEphemeralKey: true for a single-process server',
    );
    expect(() => createStateGuard({ transport: 'http', audience: 'a' })).toThrow(error);
    expect(() =>
      createStateGuard({ transport: 'http', audience: 'a', allowEphemeralKey: 1 as never }),
    ).toThrow(error);
    expect(createStateGuard({ transport: 'http', audience: 'a', keys: KEY }).ephemeralKey).toBe(
      false,
    );
    expect(createStateGuard({ transport: 'http', audience: 'a', keys: [KEY] }).transport).toBe(
      'http',
    );
  });

  it('checks the single-use ledger and tools, naming what it got', () => {
    const ledger = createMemoryLedger();
    const make = (singleUse: unknown) =>
      createStateGuard({ transport: 'stdio', audience: 'a', keys: KEY, singleUse } as never);
    expect(() => make({ tools: ['t'] })).toThrow(
      new TypeError('singleUse.ledger must be a SingleUseLedger, got undefined'),
    );
    expect(() => make({ ledger: {}, tools: ['t'] })).toThrow(
      new TypeError('singleUse.ledger must be a SingleUseLedger, got object'),
    );
    expect(() => make({ ledger, tools: 't' })).toThrow(
      new TypeError('singleUse.tools must be an array or a function'),
    );
    expect(() => make({ ledger, tools: ['t'] })).not.toThrow();
  });

  it('chooses single-use tools by name or by predicate, and none without the option', () => {
    const ledger = createMemoryLedger();
    const none = singleUseTools(undefined);
    expect([none('create_report'), none('')]).toEqual([false, false]);
    const named = singleUseTools({ ledger, tools: ['create_report', 'pay'] });
    expect(['create_report', 'pay', 'create', 'read'].map(named)).toEqual([
      true,
      true,
      false,
      false,
    ]);
    const predicate = singleUseTools({ ledger, tools: (name) => name.startsWith('pay') });
    expect(['pay_now', 'create_report'].map(predicate)).toEqual([true, false]);
  });
});

describe('refusalError', () => {
  const SERVER_FAULTS: readonly StateRejection[] = [
    'ledger-unavailable',
    'principal-unavailable',
    'clock-unavailable',
    'unsealable',
    'ephemeral-key',
  ];

  it.each(STATE_REJECTIONS.map((reason) => [reason]))(
    'answers %s with its frozen error',
    (reason) => {
      const error = refusalError(reason);
      expect(error).toBeInstanceOf(ProtocolError);
      if (SERVER_FAULTS.includes(reason)) {
        expect({ code: error.code, message: error.message, data: error.data }).toEqual({
          code: -32603,
          message: INTERNAL_ERROR_MESSAGE,
          data: undefined,
        });
      } else {
        expect({ code: error.code, message: error.message, data: error.data }).toEqual({
          code: -32602,
          message: INVALID_STATE_MESSAGE,
          data: { reason: 'invalid_request_state' },
        });
      }
    },
  );

  it('keeps the SDK messages', () => {
    expect([INVALID_STATE_MESSAGE, INTERNAL_ERROR_MESSAGE]).toEqual([
      'Invalid or expired requestState',
      'Internal error',
    ]);
  });
});
