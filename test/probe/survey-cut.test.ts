/**
 * A discovery its time cap cuts while a call is in flight still reports what it found and what it
 * did not reach. The cap aborts the pending call; the survey then returns its map, and that map is
 * what discovery reports, however many turns the survey's return takes after the cut (a split of
 * the survey into phases added some, and the report lost the tools it had not reached: issue 36).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSurvey } from '../../src/probe/runner/run-survey.js';
import { openSession, type EngineSession } from '../../src/probe/target/session.js';
import { createRedactor } from '../../src/probe/evidence/evidence.js';
import { IDS, sessionOptions, stdioTarget } from './engine/helpers.js';

let session: EngineSession;
beforeAll(async () => {
  // Every tools/call is answered after 1.5 s: a cap of 1.2 s cuts the survey's first call.
  ({ session } = await openSession(stdioTarget('slow-calls'), sessionOptions()));
});
afterAll(async () => {
  await session?.close();
});

describe('a discovery cut by its time cap mid-call', () => {
  it('reports the tools it did not reach, and that it did not finish', async () => {
    const { map } = await runSurvey(session, {
      includeDestructive: false,
      redactor: createRedactor(IDS),
      capMs: 1_200,
      capName: 'the survey time cap (a third of --deadline)',
    });
    // The call in flight was cut: its tool, the one callable tool, was never called
    // (`delete_everything` is left alone without the user's word).
    expect(map.notReached).toEqual([
      { tool: 'echo', why: "never called: the survey's time cap passed" },
    ]);
    expect(map.tried).toContain(
      "not reached: 1 tool(s), the survey's time cap passed first (raise --deadline to reach them)",
    );
    expect(
      map.failures.some((f) => f.startsWith('discovery did not finish within the survey')),
    ).toBe(true);
  });
});
