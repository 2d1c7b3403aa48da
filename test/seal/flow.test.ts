/**
 * Expiry per round (restarted each round) and the absolute deadline of a whole multi-round flow.
 */
import { describe, expect, it } from 'vitest';
import { createStateSealer } from '../../src/index.js';
import { BINDING, expectRejected, KEY_A, movableClock } from './helpers.js';

const SECOND = 1_000;

function setup(ttlSeconds = 600, flowTtlSeconds = 900) {
  const clock = movableClock();
  const sealer = createStateSealer({
    keys: KEY_A,
    audience: 'reports',
    ttlSeconds,
    flowTtlSeconds,
    now: clock.now,
  });
  return { clock, sealer };
}

describe('the expiry of one round', () => {
  it('restarts with each round that continues the flow', () => {
    const { clock, sealer } = setup(600, 3_600);
    const round1 = sealer.seal({ step: 1 }, BINDING);
    clock.advance(500 * SECOND);
    const opened = sealer.open(round1, BINDING);
    const round2 = sealer.seal({ step: 2 }, BINDING, { continues: opened.claims });
    clock.advance(500 * SECOND); // 1000 s after round 1: round 1 is dead, round 2 is not.
    expectRejected(() => sealer.open(round1, BINDING), 'expired');
    expect(sealer.open(round2, BINDING).claims.expiresAt).toBe(clock.start + 1_100 * SECOND);
  });
});

describe('the absolute deadline of a flow', () => {
  it('stops a flow at its deadline even when the last round was sealed late', () => {
    const { clock, sealer } = setup(600, 900);
    const round1 = sealer.seal({ step: 1 }, BINDING);
    clock.advance(500 * SECOND);
    const { claims } = sealer.open(round1, BINDING);
    const round2 = sealer.seal({ step: 2 }, BINDING, { continues: claims });
    const reopened = sealer.open(round2, BINDING).claims;
    expect(reopened.flowExpiresAt).toBe(clock.start + 900 * SECOND);
    // The round's own expiry is cut back to the flow's: it would otherwise run to 1100 s.
    expect(reopened.expiresAt).toBe(clock.start + 900 * SECOND);
    clock.set(clock.start + 900 * SECOND - 1);
    expect(sealer.open(round2, BINDING).state).toEqual({ step: 2 });
    clock.set(clock.start + 900 * SECOND);
    expectRejected(() => sealer.open(round2, BINDING), 'flow-expired');
  });

  it('starts a new flow when a round is sealed without `continues`', () => {
    const { clock, sealer } = setup(600, 900);
    clock.advance(800 * SECOND);
    const fresh = sealer.seal({ step: 2 }, BINDING);
    clock.advance(200 * SECOND);
    expect(sealer.open(fresh, BINDING).claims.flowExpiresAt).toBe(clock.start + 1_700 * SECOND);
  });

  it('never gives a continued round a later deadline than a fresh flow sealed now would get', () => {
    const { clock, sealer } = setup(600, 900);
    const round1 = sealer.seal({ step: 1 }, BINDING);
    clock.advance(100 * SECOND);
    const { claims } = sealer.open(round1, BINDING);
    const forged = { ...claims, flowExpiresAt: claims.flowExpiresAt + 86_400 * SECOND };
    const round2 = sealer.seal({ step: 2 }, BINDING, { continues: forged });
    // At most what a fresh flow sealed now would get: 100 s + 900 s.
    expect(sealer.open(round2, BINDING).claims.flowExpiresAt).toBe(clock.start + 1_000 * SECOND);
    clock.set(clock.start + 1_000 * SECOND);
    expectRejected(() => sealer.open(round2, BINDING), 'flow-expired');
  });

  it('reports "flow-expired" rather than "expired" when both have passed', () => {
    const { clock, sealer } = setup(600, 300);
    const token = sealer.seal({ step: 1 }, BINDING);
    clock.advance(3_600 * SECOND);
    expectRejected(() => sealer.open(token, BINDING), 'flow-expired');
  });

  it('defaults to 3600 s from the first round, and a round to 600 s', () => {
    const clock = movableClock();
    const sealer = createStateSealer({ keys: KEY_A, audience: 'reports', now: clock.now });
    const { claims } = sealer.open(sealer.seal(1, BINDING), BINDING);
    expect(claims.flowExpiresAt - clock.start).toBe(3_600 * SECOND);
    expect(claims.expiresAt - clock.start).toBe(600 * SECOND);
  });

  it('refuses a `continues` deadline that is not a time', () => {
    const { sealer } = setup();
    for (const flowExpiresAt of [Number.NaN, Number.POSITIVE_INFINITY, -5, 1.5]) {
      expect(() => sealer.seal(1, BINDING, { continues: { flowExpiresAt } })).toThrow(TypeError);
    }
  });
});
