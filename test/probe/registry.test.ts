/**
 * The probe list as reports use it: every probe names both the property it asks about (its title,
 * shown when it is refuted) and the flaw a confirmed result found, and the two never read alike.
 */
import { describe, expect, it } from 'vitest';
import { PROBE_IDS } from '../../src/probe/runner/probe-ids.js';
import { findProbe, PROBES, probesById } from '../../src/probe/runner/registry.js';

describe('the probe registry', () => {
  it('gives every probe a unique id, a title and a flaw of its own', () => {
    expect(PROBES.length).toBeGreaterThanOrEqual(9);
    expect(new Set(PROBES.map((p) => p.id)).size).toBe(PROBES.length);
    for (const p of PROBES) {
      expect(findProbe(p.id)).toBe(p);
      expect(p.title.length, p.id).toBeGreaterThan(10);
      expect(p.flaw.length, p.id).toBeGreaterThan(10);
      expect(p.flaw, p.id).not.toBe(p.title);
    }
    expect(new Set(PROBES.map((p) => p.flaw)).size).toBe(PROBES.length);
  });

  it('has in probe-ids.ts (which parsing loads instead of the probes) the ids of its probes, in order', () => {
    expect(PROBE_IDS).toEqual(PROBES.map((p) => p.id));
    expect(probesById([...PROBE_IDS].reverse())).toEqual([...PROBES].reverse());
    expect(() => probesById(['state/nope'])).toThrow("no probe 'state/nope'");
  });
});
