import { describe, expect, it } from 'vitest';
import { createStateSealer, StateRejectedError } from '../../src/index.js';

const KEY = 'k'.repeat(32);
const binding = { principal: 'alice', method: 'tools/call', name: 'export', args: { id: 'ws-1' } };

describe('createStateSealer', () => {
  it('opens what it sealed, for the same binding', () => {
    const sealer = createStateSealer({ keys: KEY, audience: 'test' });
    const token = sealer.seal({ step: 2 }, binding);
    expect(sealer.open(token, binding).state).toEqual({ step: 2 });
  });

  it('refuses a state presented by another principal with reason "principal"', () => {
    const sealer = createStateSealer({ keys: KEY, audience: 'test' });
    const token = sealer.seal({ step: 2 }, binding);
    expect(() => sealer.open(token, { ...binding, principal: 'bob' })).toThrow(
      expect.objectContaining({ code: 'ERR_STATE_REJECTED', reason: 'principal' }),
    );
    expect(() => sealer.open(token, { ...binding, principal: 'bob' })).toThrow(StateRejectedError);
  });
});
