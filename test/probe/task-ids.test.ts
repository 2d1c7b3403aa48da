import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  clockParts,
  MIN_ID_BITS,
  predictNext,
  varyingBits,
} from '../../src/probe/experiments/task-ids.js';
import { forgedTaskId } from '../../src/probe/experiments/task-trial.js';

const NOW = Date.UTC(2026, 11, 2, 10, 0, 0);

describe('reading consecutive task ids', () => {
  it('predicts a counter, padded or not, stepping by any small amount', () => {
    expect(predictNext(['task-1', 'task-2', 'task-3'])).toBe('task-4');
    expect(predictNext(['exp-0100', 'exp-0107', 'exp-0114'])).toBe('exp-0121');
    expect(predictNext(['t/9', 't/10', 't/11'])).toBe('t/12');
    expect(predictNext(['41', '42', '43'])).toBe('44');
  });

  it('predicts nothing from random ids, unequal steps, or too few ids', () => {
    expect(predictNext([randomUUID(), randomUUID(), randomUUID()])).toBeUndefined();
    expect(predictNext(['task-1', 'task-2', 'task-4'])).toBeUndefined();
    expect(predictNext(['task-1', 'task-2'])).toBeUndefined();
    expect(predictNext(['a-1-x', 'a-2-y', 'a-3-z'])).toBeUndefined();
  });

  it('counts few bits in counters and short codes, many in UUIDs and sealed ids', () => {
    expect(varyingBits(['task-1', 'task-2', 'task-3', 'task-4'], NOW)).toBeLessThan(8);
    expect(varyingBits(['BK-7Q2M9X', 'BK-A01ZZ3', 'BK-PP31K0', 'BK-Q0MM2A'], NOW)).toBeLessThan(
      MIN_ID_BITS,
    );
    const uuids = Array.from({ length: 4 }, () => randomUUID());
    expect(varyingBits(uuids, NOW)).toBeGreaterThanOrEqual(100);
    const sealed = Array.from({ length: 4 }, () => `h1.${randomBytes(48).toString('base64url')}`);
    expect(varyingBits(sealed, NOW)).toBeGreaterThanOrEqual(MIN_ID_BITS);
  });

  it('counts a clock as nothing: ms and s timestamps, and a UUIDv7-style hex ms prefix', () => {
    const ms = [0, 3, 9, 14].map((d) => `job-${NOW + d}`);
    expect(clockParts(ms[0] as string, NOW)).toEqual([String(NOW)]);
    expect(varyingBits(ms, NOW)).toBe(0);
    expect(clockParts(`run_${Math.floor(NOW / 1000)}`, NOW)).toHaveLength(1);
    const hex = NOW.toString(16).padStart(12, '0');
    const v7 = `${hex.slice(0, 8)}-${hex.slice(8)}-7abc-8def-0123456789ab`;
    expect(clockParts(v7, NOW)).toEqual([hex]);
    expect(clockParts(randomUUID(), NOW)).toEqual([]);
  });

  it('forges ids never minted: a counter far out of range, anything else at the same shape', () => {
    const forged = forgedTaskId('task-3', ['task-1', 'task-2', 'task-3']);
    expect(forged).toMatch(/^task-9\d{8}$/);
    const uuid = randomUUID();
    const other = forgedTaskId(uuid, [uuid]);
    expect(other).not.toBe(uuid);
    expect(other.length).toBe(uuid.length);
  });
});
