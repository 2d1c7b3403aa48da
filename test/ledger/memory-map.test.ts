/**
 * The memory ledger's storage (the expiring map it shares with the memory handle backend): when
 * expired entries are pruned, what `delete` answers, and a clock that fails between two readings of
 * one consume.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMemoryLedger, LedgerUnavailableError } from '../../src/index.js';
import { createExpiringMap } from '../../src/ledger/expiring-map.js';

const newId = (): string => randomBytes(16).toString('base64url');
const START = 1_800_000_000_000;

describe('createExpiringMap', () => {
  it('prunes expired entries every `sweepEvery` writes, and not in between', () => {
    let at = START;
    const map = createExpiringMap<string>({ maxEntries: 10, now: () => at, sweepEvery: 3 });
    expect(map.set('a', 'A', at + 10)).toBe(true); // write 1
    at += 20; // `a` is dead from here on, but still held
    expect(map.set('b', 'B', at + 100)).toBe(true); // write 2
    expect(map.size).toBe(2);
    expect(map.set('c', 'C', at + 100)).toBe(true); // write 3
    expect(map.set('d', 'D', at + 10)).toBe(true); // write 4
    at += 20;
    expect(map.set('e', 'E', at + 100)).toBe(true); // write 5
    expect(map.size).toBe(4);
    expect(map.set('f', 'F', at + 100)).toBe(true); // write 6: the sweep drops `d`
    expect(map.size).toBe(4);
    expect([map.get('b'), map.get('c'), map.get('e'), map.get('f')]).toEqual(['B', 'C', 'E', 'F']);
  });

  it('answers whether delete removed a live entry, and drops a dead one', () => {
    let at = START;
    const map = createExpiringMap<string>({ maxEntries: 10, now: () => at });
    map.set('live', 'L', at + 1_000);
    map.set('dead', 'D', at + 10);
    at += 20;
    expect(map.size).toBe(2);
    expect(map.delete('dead')).toBe(false);
    expect(map.size).toBe(1);
    expect(map.delete('never')).toBe(false);
    expect(map.delete('live')).toBe(true);
    expect(map.size).toBe(0);
    expect(map.get('live')).toBeUndefined();
  });

  it('throws RangeError on every operation when its clock gives no usable time', () => {
    const map = createExpiringMap<string>({ maxEntries: 10, now: () => Number.NaN });
    const error = new RangeError('now() must return a time in milliseconds');
    expect(() => map.set('a', 'A', START)).toThrow(error);
    expect(() => map.get('a')).toThrow(error);
    expect(() => map.delete('a')).toThrow(error);
  });
});

describe('createMemoryLedger storage', () => {
  it('prunes expired ids every 1024 consumes by default, and not in between', async () => {
    let at = START;
    const ledger = createMemoryLedger({ now: () => at, clockSkewMs: 0 });
    expect(await ledger.consume(newId(), 1)).toBe(true); // write 1, dead once the clock moves
    at += 10;
    for (let write = 2; write <= 1023; write += 1) await ledger.consume(newId(), 60_000);
    expect(ledger.size).toBe(1023);
    await ledger.consume(newId(), 60_000); // write 1024: the sweep drops the dead id first
    expect(ledger.size).toBe(1023);
  });

  it('refuses, and records nothing, when its clock gives no time once', async () => {
    const readings = [Number.NaN];
    const ledger = createMemoryLedger({ now: () => readings.shift() ?? START });
    const id = newId();
    const refusal = await ledger.consume(id, 60_000).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(LedgerUnavailableError);
    // The id was not recorded with a lifetime computed from no time (which would read as dead).
    expect(await ledger.consume(id, 60_000)).toBe(true);
    expect(await ledger.consume(id, 60_000)).toBe(false);
  });

  it('refuses with the storage failure as the cause when its clock breaks mid-consume', async () => {
    // The ledger reads the clock, then its storage reads it again: the second reading fails.
    const readings = [START, Number.NaN];
    const ledger = createMemoryLedger({ now: () => readings.shift() ?? START });
    const refusal = await ledger.consume(newId(), 60_000).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(LedgerUnavailableError);
    expect((refusal as LedgerUnavailableError).cause).toEqual(
      new RangeError('now() must return a time in milliseconds'),
    );
  });
});
