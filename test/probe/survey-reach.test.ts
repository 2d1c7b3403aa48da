/**
 * The whole surface: every page of `tools/list` is read, every callable tool is surveyed, and the
 * tools the survey did not reach are named with why (its time cap, its call budget), in the map
 * and in the text report. Run on the `catalog` twin: 35 tools over two pages, its handle pair last.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../harness/twins/foreign/missed/catalog.js';
import type { RunningTwin } from '../../harness/twins/foreign/twin.js';
import { skipped } from '../../src/probe/model/probe.js';
import { runProbe } from '../../src/probe/runner/run.js';
import type { SurfaceMap } from '../../src/probe/surface/recipes.js';
import { survey } from '../../src/probe/surface/survey.js';
import { openSession, type EngineSession } from '../../src/probe/target/session.js';
import { createRedactor } from '../../src/probe/evidence/evidence.js';
import { text } from '../../src/report/text.js';
import { report as sample } from '../report/sample-report.js';
import { IDS, inline, sessionOptions } from './engine/helpers.js';

let twin: RunningTwin;
let session: EngineSession;
beforeAll(async () => {
  twin = await catalog.startHttp('flawed');
  ({ session } = await openSession({ kind: 'http', url: twin.url }, sessionOptions()));
});
afterAll(async () => {
  await session?.close();
  await twin?.close();
});

/** The survey on the catalog, as the runner runs it, with `maxCalls` and a stop time. */
async function surveyed(maxCalls: number, stopAt?: number): Promise<SurfaceMap> {
  let map: SurfaceMap | undefined;
  const probe = inline(async (ctx) => {
    map = await survey(ctx, stopAt === undefined ? {} : { stopAt });
    return skipped('discovery');
  }, maxCalls);
  await runProbe(probe, session, {
    includeDestructive: false,
    // issue_voucher issues a voucher: the call plan calls it only on the user's word.
    allowTools: new Set(catalog.allowTools),
    redactor: createRedactor(IDS),
    capMs: 60_000,
  });
  if (map === undefined) throw new Error('the survey did not return');
  return map;
}

describe('the survey of a large, paginated surface', () => {
  it('reads both pages of tools/list', () => {
    expect(session.protocol.tools).toHaveLength(35);
    expect(session.protocol.tools.slice(-2).map((t) => t.name)).toEqual([
      'issue_voucher',
      'show_voucher',
    ]);
    expect(session.protocol.deviations).toEqual([]);
  });

  it('surveys every tool, and finds the pair that comes last', async () => {
    const map = await surveyed(1000);
    expect(map.notReached).toBeUndefined();
    expect(map.handles.length).toBeGreaterThan(0);
    for (const t of session.protocol.tools)
      expect(map.tried.some((x) => x.startsWith(`${t.name} (`))).toBe(true);
  });

  it('names every tool it did not reach when its time cap has passed', async () => {
    const map = await surveyed(1000, 0);
    expect(map.notReached).toHaveLength(35);
    expect(map.notReached?.[0]).toEqual({
      tool: expect.any(String) as string,
      why: "never called: the survey's time cap passed",
    });
    expect(map.handles).toEqual([]);
  });

  it('names the tools left when its call budget is spent, and why', async () => {
    const map = await surveyed(10);
    const reasons = new Set(map.notReached?.map((n) => n.why));
    expect(map.notReached?.length).toBeGreaterThan(25);
    expect([...reasons].every((r) => r.endsWith("the survey's call budget was spent"))).toBe(true);
    expect(map.notReached?.map((n) => n.tool)).toContain('show_voucher');
  });

  it('is shown by the text report', () => {
    const out = text.render(
      {
        ...sample,
        surface: {
          handles: [],
          flows: [],
          tried: [],
          evidence: [],
          notReached: [{ tool: 'show_voucher', why: "never called: the survey's time cap passed" }],
        },
      },
      { color: false, evidence: 'none' },
    );
    expect(out).toContain(
      "not reached by discovery (1):\n    show_voucher: never called: the survey's time cap passed",
    );
  });
});
