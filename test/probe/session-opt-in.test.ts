/**
 * The session probe in the user's-word pass (issue #33, item 4), the analogue of
 * `task-opt-in.test.ts`: on a 2025-11-25 server whose only tool that keeps text in a session sends
 * it on (class `destroy`, left alone by default), a default scan skips `session/cross-principal`
 * naming the call plan, the tool and the flag; with `--allow-tool` for that tool the last pass runs
 * the probe again and confirms the unbound sessions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSessionNotes } from '../../harness/twins/foreign/session-notes/index.js';
import type { RunningTwin } from '../../harness/twins/foreign/twin.js';
import { findProbe } from '../../src/probe/runner/registry.js';
import { runScan } from '../../src/probe/runner/scan.js';
import { leftAloneWhy, uncalledTools } from '../../src/probe/plan/tool-risk.js';
import type { RunReport } from '../../src/probe/model/report.js';

const TOOL = 'send_note';
const ID = 'session/cross-principal';
// The note tool's input, as the twin declares it (`{ note: string }`).
const NOTE_SCHEMA = {
  type: 'object',
  properties: { note: { type: 'string', minLength: 1, maxLength: 500 } },
  required: ['note'],
};
let twin: RunningTwin;
let byDefault: RunReport;
let optedIn: RunReport;

beforeAll(async () => {
  twin = await startSessionNotes('unbound-sessions', {
    name: TOOL,
    description: 'Send a note to everyone listening on this session.',
  });
  const probe = findProbe(ID);
  if (probe === undefined) throw new Error(`${ID} is not registered`);
  // Verdicts, not speed: a loaded machine must not turn a slow answer into "no decision".
  const scan = (allowTools: string[]) =>
    runScan({
      target: { kind: 'http', url: twin.url },
      probes: [probe],
      timeoutMs: 30_000,
      deadlineMs: 120_000,
      allowTools,
    });
  byDefault = await scan([]);
  optedIn = await scan([TOOL]);
}, 240_000);
afterAll(async () => twin?.close());

const result = (r: RunReport) => r.probes.find((p) => p.id === ID);

describe('the session probe and the call plan', () => {
  it('leaves a note tool that sends alone by default, and says what would call it', () => {
    expect(byDefault.plan?.entries.find((e) => e.name === TOOL)).toMatchObject({
      class: 'destroy',
      reach: `--allow-tool ${TOOL}`,
    });
    // One sentence for a tool left alone, wherever it is said: the report's `uncalled` is the
    // runner's (`uncalledTools`).
    const entry = byDefault.plan?.entries.find((e) => e.name === TOOL);
    const tool = { name: TOOL, description: 'Send a note to everyone listening on this session.' };
    const [uncalled] = uncalledTools([{ ...tool, inputSchema: NOTE_SCHEMA }], {
      includeDestructive: false,
    });
    expect(byDefault.uncalled?.find((u) => u.tool === TOOL)?.why).toBe(uncalled?.why);
    expect(uncalled?.why).toBe(
      leftAloneWhy('destroy', entry?.evidence ?? [], `--allow-tool ${TOOL}`),
    );
    expect(uncalled?.why).toMatch(/^may destroy data: .+ \(needs --allow-tool send_note\)$/);
    const r = result(byDefault);
    expect(r?.verdict).toBe('skipped');
    expect(r?.reason).toContain('the call plan calls none of them');
    expect(r?.reason).toContain(`--allow-tool ${TOOL}`);
  });

  it("runs in the user's-word pass with --allow-tool, and confirms the unbound sessions", () => {
    expect(optedIn.plan?.entries.find((e) => e.name === TOOL)?.calledBy).toBe('--allow-tool');
    const r = result(optedIn);
    expect({ verdict: r?.verdict, reason: r?.reason }).toMatchObject({ verdict: 'confirmed' });
    expect(r?.reason).toContain('on a POST');
  });
});
