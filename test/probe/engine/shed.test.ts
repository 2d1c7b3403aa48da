/**
 * Load shedding told from a decision: the shapes servers shed in (429, 503, in-band rate-limit
 * errors in several phrasings) are recognised, and real refusals, lockouts and outages are not.
 */
import { describe, expect, it } from 'vitest';
import {
  isRateLimitError,
  retryAfterMs,
  shedOf,
  type Shed,
} from '../../../src/probe/target/shed.js';
import { retryShed } from '../../../src/probe/target/shed-retry.js';
import { createPace, PACE_LIMITS } from '../../../src/probe/target/pace.js';
import { createRedactor } from '../../../src/probe/evidence/evidence.js';
import type { Exchange, Outcome } from '../../../src/probe/model/wire.js';

const error = (code: number, message: string, data?: unknown): Outcome => ({
  kind: 'error',
  code,
  message,
  ...(data === undefined ? {} : { data }),
});
const result: Outcome = { kind: 'result', result: {} };

describe('in-band rate-limit errors', () => {
  it.each([
    [-32029, 'anything at all', undefined],
    [429, 'Too Many Requests', undefined],
    [-32000, 'Rate limit exceeded', undefined],
    [-32000, 'rate-limited: slow down', undefined],
    [-32603, 'Too many requests, please try again later', undefined],
    [-32000, 'Request throttled', undefined],
    [-32000, 'Request failed', { reason: 'rate_limited' }],
    [-32001, 'Server busy', { retryAfter: 2 }],
    [-32000, 'The service is overloaded', undefined],
    [-32000, 'request quota exceeded for this minute', undefined],
  ])('reads %i %j (data %j) as shedding', (code, message, data) => {
    expect(isRateLimitError(code, message, data)).toBe(true);
  });

  it.each([
    [-32602, 'Invalid or expired requestState', undefined],
    [-32602, 'limit must be at most 100', undefined],
    [-32000, 'Too many failed attempts: account locked', undefined],
    [-32001, 'Unauthorized', undefined],
    [-32602, 'Invalid params', { retryAfter: 2 }],
    [-32600, 'Invalid Request', { retry_after: 1 }],
    [-32603, 'Internal error', undefined],
    [-32000, 'requestState belongs to another user', undefined],
  ])('never reads the refusal %i %j (data %j) as shedding', (code, message, data) => {
    expect(isRateLimitError(code, message, data)).toBe(false);
  });
});

describe('Retry-After', () => {
  it('reads delta-seconds, a fraction, and an HTTP-date; a past date is no wait', () => {
    expect(retryAfterMs('0')).toBe(0);
    expect(retryAfterMs('1')).toBe(1000);
    expect(retryAfterMs('0.25')).toBe(250);
    const now = Date.parse('Fri, 04 Dec 2026 19:00:00 GMT');
    expect(retryAfterMs('Fri, 04 Dec 2026 19:00:03 GMT', now)).toBe(3000);
    expect(retryAfterMs('Fri, 04 Dec 2026 18:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs('-1')).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});

describe('shedOf', () => {
  it('reads a 429 as shed whatever it carries, even a refusal, with its Retry-After', () => {
    const refusal = error(-32602, 'Invalid or expired requestState');
    expect(shedOf({ outcome: refusal, status: 429, headers: { 'retry-after': '2' } })).toEqual({
      kind: '429',
      retryAfterMs: 2000,
    });
    expect(shedOf({ outcome: result, status: 429 })).toEqual({ kind: '429' });
  });

  it('reads a 503 as shed, other 5xx as outages, and Retry-After-Ms as a hint', () => {
    const failure: Outcome = { kind: 'failure', failure: 'http-status', detail: 'HTTP 503' };
    expect(shedOf({ outcome: failure, status: 503, headers: { 'retry-after-ms': '150' } })).toEqual(
      { kind: '503', retryAfterMs: 150 },
    );
    expect(shedOf({ outcome: failure, status: 500 })).toBeUndefined();
    expect(shedOf({ outcome: failure, status: 502 })).toBeUndefined();
  });

  it('reads an in-band error in a 200 (or on stdio) with its hint from data or the message', () => {
    expect(shedOf({ outcome: error(-32029, 'Rate limit exceeded', { retryAfter: 0.5 }) })).toEqual({
      kind: 'in-band',
      retryAfterMs: 500,
    });
    expect(
      shedOf({ outcome: error(-32000, 'rate-limited, try again in 1.5 s'), status: 200 }),
    ).toEqual({ kind: 'in-band', retryAfterMs: 1500 });
    expect(shedOf({ outcome: error(-32000, 'Too many requests') })).toEqual({ kind: 'in-band' });
    expect(shedOf({ outcome: error(-32602, 'Invalid requestState'), status: 200 })).toBeUndefined();
    expect(shedOf({ outcome: result, status: 200 })).toBeUndefined();
  });
});

describe('a shed request sent again', () => {
  const limits = { ...PACE_LIMITS, backoffMs: 2, maxBackoffMs: 4 };
  const exchange: Exchange = {
    outcome: { kind: 'error', code: -32000, message: 'Too many requests, please slow down' },
    evidence: { kind: 'note', text: 'shed' },
  };
  /** Tries until the request gives up, every one of them shed as `shed`: how many were sent. */
  async function triesUntilGivenUp(shed: Shed): Promise<number> {
    let tries = 0;
    const last = await retryShed(
      createPace(() => Infinity, limits),
      async () => {
        tries++;
        return { exchange, shed };
      },
      { signal: new AbortController().signal, redactor: createRedactor({}) },
    );
    expect(last.outcome).toMatchObject({ kind: 'failure', failure: 'shed' });
    return tries;
  }

  it('stops sooner after a bare 503 (it may be an outage) than after load named without a time', async () => {
    expect(await triesUntilGivenUp({ kind: '503' })).toBe(1 + limits.maxBlindRetries);
    // A 429 or an in-band rate-limit error says it is load, hint or none: the full count.
    expect(await triesUntilGivenUp({ kind: 'in-band' })).toBe(1 + limits.maxRetries);
    expect(await triesUntilGivenUp({ kind: '429' })).toBe(1 + limits.maxRetries);
    expect(await triesUntilGivenUp({ kind: '503', retryAfterMs: 1 })).toBe(1 + limits.maxRetries);
  });
});
