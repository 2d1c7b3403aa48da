/**
 * The principal-replay trial decision by decision: each scan runs `state/replay-principal` alone,
 * in-process, against one small real server (the fixture twin or the blind-spot probe server) built
 * to reach one decision, and pins what the reader of the report gets: the verdict, the reason, each
 * control (held, expected, observed) and the observations. The trial bookkeeping (`trial.ts`: which
 * candidate is reported, what the others leave as notes) is tested against a real HTTP server too.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startFixtureHttp } from '../../src/fixture/http.js';
import type { Mode } from '../../src/fixture/flaws.js';
import { confirmed, defineProbe, errored, refuted, skipped } from '../../src/probe/model/probe.js';
import type { ProbeDecision } from '../../src/probe/model/probe.js';
import { createRedactor } from '../../src/probe/evidence/evidence.js';
import { PROBES } from '../../src/probe/runner/registry.js';
import { runProbe } from '../../src/probe/runner/run.js';
import { runScan } from '../../src/probe/runner/scan.js';
import { openSession } from '../../src/probe/target/session.js';
import {
  check,
  outOfBudget,
  report,
  startTrial,
  strongest,
} from '../../src/probe/experiments/trial.js';
import type { Trial } from '../../src/probe/experiments/trial.js';
import type { ProbeResult } from '../../src/probe/model/report.js';
import { startHttpServer } from '../servers/http-server.js';
import { startProbeServer, type ProbeServerOptions } from '../servers/probe-server.js';
import { IDS, sessionOptions } from './engine/helpers.js';

const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(open.map((s) => s.close()));
});

const replay = PROBES.filter((p) => p.id === 'state/replay-principal');

/** `maxCalls` gives the probe a smaller budget than its own. */
type Extra = { timeoutMs?: number; maxCalls?: number };

async function scanUrl(url: string, { maxCalls, ...extra }: Extra = {}): Promise<ProbeResult> {
  const probes = maxCalls === undefined ? replay : replay.map((p) => ({ ...p, maxCalls }));
  const run = await runScan({ target: { kind: 'http', url }, probes, ...extra });
  const result = run.probes.find((p) => p.id === 'state/replay-principal');
  if (result === undefined) throw new Error('no replay result');
  return result;
}

async function scanFixture(mode: Mode): Promise<ProbeResult> {
  const fixture = await startFixtureHttp({ mode });
  open.push(fixture);
  return scanUrl(fixture.url);
}

async function scanProbeServer(
  options: ProbeServerOptions,
  extra: Extra = {},
): Promise<ProbeResult> {
  const server = await startProbeServer(options);
  open.push(server);
  return scanUrl(server.url, extra);
}

const labels = (r: ProbeResult): string[] =>
  r.evidence.flatMap((e) => ('label' in e ? [e.label] : []));
const notes = (r: ProbeResult): string[] =>
  r.evidence.flatMap((e) => (e.kind === 'note' ? [e.text] : []));
const HELD = (observed: string) => ({
  aUntouchedRetryAccepted: { held: true, expected: "A's untouched retry is accepted", observed },
  bOwnFlowAccepted: { held: true, expected: "B's own flow is accepted (B is live)", observed },
});
const OWN_FLOWS = [
  // A's flow is the scan's shared setup (run untouched once for every probe), on discovery's
  // round 1, its state unsent, around discovery's handle.
  "survey: export_workspace.workspace_id offered open_workspace's value",
  'export_workspace: untouched retry (spec answers)',
  'replay-b: open_workspace → export_workspace.workspace_id as B',
  'export_workspace as B: round 1',
  'export_workspace as B: untouched retry (spec answers)',
];
const SHARED = 'export_workspace on open_workspace → export_workspace.workspace_id as A';
const sharedNote = (key: string): string =>
  `shared setup (${key}): sent once for every probe that needs it, counted in the report's shared requests`;
const SHARED_NOTES = [
  sharedNote(SHARED),
  'export_workspace: round 1 as A handed on from discovery, its state unsent',
  sharedNote(`${SHARED}, run untouched`),
];
// B's replay on A's call at round 1 is the error oracle's presentation too: shared setup.
const SHARED_REPLAY = sharedNote(`${SHARED}, A's untouched state sent by B`);
const ON_A = [
  "B sends A's untouched state on A's call: round 1 as A",
  "B sends A's untouched state on A's call",
];
const ON_B = [
  "B sends A's untouched state on B's own call: round 1 as A",
  "B sends A's untouched state on B's own call",
];
const ATTRIBUTION = [
  "B's own flow on A's call (attribution): round 1",
  "B's own flow on A's call (attribution): untouched retry (spec answers)",
];
const NOT_SHOWN = {
  label: "accepted, not shown to be A's",
  detail: "B's replay on A's call was accepted without A's canary or principal in the answer",
};
const ANYWAY = (on: string) => ({
  label: 'A-data reaches B anyway',
  detail: `B's replay on ${on} showed A's data, but so did B's own flow there, without A's state`,
});

const APART =
  "the server's answers to A name something its answers to B never do, or it refuses B what it gave A";

describe('the principal-replay trial', () => {
  it("confirms when B is served as A by replaying A's state, and names what came back", async () => {
    const r = await scanProbeServer({ identity: 'honour' });
    expect(r.verdict).toBe('confirmed');
    expect(r.reason).toBe(
      "B replayed A's untouched requestState on A's call and was served A (A's principal came back: <identity-A>), which B's own flow there does not show",
    );
    expect(r.controls).toMatchObject({
      aUntouchedRetryAccepted: { held: true, expected: "A's untouched retry is accepted" },
      bOwnFlowAccepted: { held: true, expected: "B's own flow is accepted (B is live)" },
      serverTellsApart: { held: true, expected: APART },
    });
    expect(r.controls['serverTellsApart']?.observed).toMatch(/^\d+ A-only token\(s\)$/);
    expect(r.observations).toEqual([]);
    const canaryBack = await scanFixture('signed-unbound');
    expect(canaryBack).toMatchObject({
      verdict: 'confirmed',
      reason:
        "B replayed A's untouched requestState on A's call and was served A's data (A's canary came back), which B's own flow there does not show",
    });
  });

  it('refutes when B is refused on both calls, and says B was refused', async () => {
    const fixed = await scanFixture('fixed');
    expect(fixed.verdict).toBe('refuted');
    expect(fixed.reason).toMatch(/ refused B's replay of A's untouched requestState$/);
    expect(Object.values(fixed.controls).every((c) => c.held)).toBe(true);
    expect(fixed.observations).toEqual([]);
  });

  it('ends errored when the server cannot tell A from B, naming the control', async () => {
    const r = await scanProbeServer({ identity: 'ignore' });
    expect(r.verdict).toBe('errored');
    expect(r.reason).toBe('the server did not show that it tells A and B apart');
    expect(r.controls['serverTellsApart']).toEqual({
      held: false,
      expected: APART,
      observed: 'none',
    });
    // B's replay showed A's data, and B's own flow on A's call showed it too: no confirmation.
    expect(r.observations).toEqual([ANYWAY("A's call")]);
    expect(labels(r)).toEqual([...OWN_FLOWS, ...ON_A, ...ATTRIBUTION, ...ON_B]);
  });

  it('ends errored when replays are accepted but the answers never tell A from B', async () => {
    const r = await scanProbeServer({ replays: 'as-caller', identity: 'ignore' });
    expect(r).toMatchObject({
      verdict: 'errored',
      reason: 'the server did not show that it tells A and B apart',
      controls: {
        ...HELD('accepted'),
        serverTellsApart: { held: false, expected: APART, observed: 'none' },
      },
      observations: [],
    });
  });

  it("reads A's data B sees anyway, without A's state, as no finding, and says so", async () => {
    const r = await scanProbeServer({ feed: true });
    expect(r.verdict).toBe('refuted');
    expect(r.reason).toBe("B's replay of A's state showed nothing of A's");
    expect(r.observations).toEqual([ANYWAY("A's call"), ANYWAY("B's own call"), NOT_SHOWN]);
  });

  it("refutes a replay accepted without anything of A's, and says it was accepted", async () => {
    const r = await scanProbeServer({ replays: 'as-caller' });
    expect(r).toMatchObject({
      verdict: 'refuted',
      reason: "B's replay of A's state showed nothing of A's",
      controls: {
        ...HELD('accepted'),
        serverTellsApart: { held: true, expected: APART, observed: '1 A-only token(s)' },
      },
    });
    expect(r.observations).toEqual([NOT_SHOWN]);
    expect(labels(r)).toEqual([...OWN_FLOWS, ...ON_A, ...ON_B]);
  });

  it("refutes when B is refused, the refusal on A's call telling A from B where no token does", async () => {
    const r = await scanProbeServer({ replays: 'bound' });
    expect(r).toMatchObject({
      verdict: 'refuted',
      reason: "export_workspace refused B's replay of A's untouched requestState",
      controls: {
        ...HELD('accepted'),
        serverTellsApart: { held: true, expected: APART, observed: "B was refused on A's call" },
      },
      observations: [],
    });
    expect(labels(r)).toEqual([...OWN_FLOWS, ...ON_A, ...ON_B]);
  });

  it("does not take a refusal on B's own call for the server telling A from B", async () => {
    // Accepted on A's call (showing nothing), refused only on B's own: no token and no refusal on
    // A's call tells A from B.
    const r = await scanProbeServer({ replays: 'workspace-bound' });
    expect(r).toMatchObject({
      verdict: 'errored',
      reason: 'the server did not show that it tells A and B apart',
      controls: { serverTellsApart: { held: false, expected: APART, observed: 'none' } },
    });
  });

  it("ends errored when A's fresh round 1 does not ask again", async () => {
    const r = await scanProbeServer({ asksOnce: true });
    expect(r).toMatchObject({
      verdict: 'errored',
      reason: "A's fresh round 1 did not ask again: result",
      controls: HELD('accepted'),
    });
    expect(Object.keys(r.controls)).toEqual(['aUntouchedRetryAccepted', 'bOwnFlowAccepted']);
  });

  it("ends errored when B's own flow does not work, saying where it stopped", async () => {
    const noMint = await scanProbeServer({ onlyFirstCaller: 'all' });
    expect(noMint).toMatchObject({
      verdict: 'errored',
      reason:
        "B's own flow on export_workspace did not work (open_workspace minted nothing for export_workspace (tool error (isError)))",
      controls: {
        bOwnFlowAccepted: {
          held: false,
          observed: 'open_workspace minted nothing for export_workspace (tool error (isError))',
        },
      },
    });
    const noFlow = await scanProbeServer({ onlyFirstCaller: 'flow' });
    expect(noFlow).toMatchObject({
      verdict: 'errored',
      reason: "B's own flow on export_workspace did not work (round 1: tool error (isError))",
      controls: { bOwnFlowAccepted: { held: false, observed: 'round 1: tool error (isError)' } },
    });
    expect(Object.keys(noFlow.controls)).toEqual(['aUntouchedRetryAccepted', 'bOwnFlowAccepted']);
  });

  it("ends errored when A's own untouched retry fails, naming it", async () => {
    const r = await scanFixture('broken-flow');
    expect(r.verdict).toBe('errored');
    expect(r.reason).toMatch(/^A's untouched retry of \S+ did not work \(.+\)$/);
  });

  it("ends errored when the budget runs out at A's fresh round 1, before any replay", async () => {
    // Three calls of its own: B's own flow (A's is the shared setup, in no probe's budget); the
    // replay's round 1 is not sent.
    const r = await scanProbeServer({}, { maxCalls: 3 });
    expect(r).toMatchObject({
      verdict: 'errored',
      reason: 'the budget ran out before the replay',
      controls: {
        ...HELD('accepted'),
        serverTellsApart: { held: true, expected: APART, observed: '1 A-only token(s)' },
      },
      observations: [],
    });
    expect(labels(r)).toEqual(OWN_FLOWS);
    // The shared replay is made under the probe that asks for it first, within its budget.
    expect(notes(r)).toEqual([
      ...SHARED_NOTES,
      `not sent: tools/call '${ON_A[0]}' as A: the probe's budget of 3 calls is spent`,
      SHARED_REPLAY,
    ]);
  });

  it("ends errored when the budget runs out at B's own flow on A's call, never reading it as no decision", async () => {
    // B's own flow is 3 calls; the replay on A's call is shared setup; the 4th is the round 1 of
    // the attribution control, whose retry is not sent.
    const r = await scanProbeServer({}, { maxCalls: 4 });
    expect(r).toMatchObject({
      verdict: 'errored',
      reason: "B's own flow on A's call (attribution control) was cut short: the budget ran out",
      controls: HELD('accepted'),
    });
    expect(labels(r)).toEqual([...OWN_FLOWS, ...ON_A, ATTRIBUTION[0]]);
    expect(notes(r)).toEqual([
      ...SHARED_NOTES,
      SHARED_REPLAY,
      `not sent: tools/call '${ATTRIBUTION[1]}' as B: the probe's budget of 4 calls is spent`,
    ]);
  });

  it("ends errored when B's own flow on A's call, the attribution control, draws no decision", async () => {
    // B's replay on A's call shows A's canary and principal; B's own round 1 there gets an HTTP 500.
    const r = await scanProbeServer({ foreignAsk: true });
    expect(r).toMatchObject({
      verdict: 'errored',
      reason: "B's own flow on A's call (attribution control) drew no decision",
      controls: HELD('accepted'),
      observations: [],
    });
    expect(Object.keys(r.controls)).toEqual(['aUntouchedRetryAccepted', 'bOwnFlowAccepted']);
    expect(labels(r)).toEqual([...OWN_FLOWS, ...ON_A, ATTRIBUTION[0]]);
  });

  it('ends errored when the replay draws no decision (an HTTP 500), never refuted', async () => {
    const r = await scanProbeServer({ fault: '500' });
    expect(r.verdict).toBe('errored');
    expect(r.reason).toMatch(/^B's replay of A's state drew no decision: .*HTTP 500/);
  });
});

describe('trial bookkeeping', () => {
  const decided = (subject: string, d: ProbeDecision, out = false): Trial =>
    Object.assign(startTrial(subject), { decision: d, outOfBudget: out });

  it('reports a confirmation first, then an error, then a refutation, then a skip', () => {
    const s = decided('s', skipped('s'));
    const r = decided('r', refuted('r'));
    const e = decided('e', errored('e'));
    const c = decided('c', confirmed('c'));
    expect(strongest([s, r, e, c])).toBe(c);
    expect(strongest([c, e, r, s])).toBe(c);
    expect(strongest([s, r, e])).toBe(e);
    expect(strongest([e, r, s])).toBe(e);
    expect(strongest([s, r])).toBe(r);
    expect(strongest([r, s])).toBe(r);
    expect(strongest([s])).toBe(s);
    // The first of equals stands.
    const r2 = decided('r2', refuted('r2'));
    expect(strongest([r, r2])).toBe(r);
    expect(strongest([startTrial('undecided')])).toBeUndefined();
    expect(strongest([])).toBeUndefined();
  });

  it('counts a trial cut short by the budget only when nothing else finished', () => {
    const cut = decided('cut', confirmed('cut'), true);
    const done = decided('done', refuted('done'));
    expect(strongest([cut, done])).toBe(done);
    expect(strongest([cut])).toBe(cut);
    expect(strongest([startTrial('undecided'), cut])).toBe(cut);
  });

  it('marks a trial out of budget only for an exchange the budget refused', () => {
    const trial = startTrial('t');
    const note = { kind: 'note', text: 'x' } as const;
    const failure = (failure: 'budget' | 'timeout') => ({
      outcome: { kind: 'failure', failure, detail: 'd' } as const,
      evidence: note,
    });
    expect(outOfBudget(trial, failure('timeout'))).toBe(false);
    expect(
      outOfBudget(trial, {
        outcome: { kind: 'error', code: -1, message: 'm' } as never,
        evidence: note,
      }),
    ).toBe(false);
    expect(trial.outOfBudget).toBe(false);
    expect(outOfBudget(trial, failure('budget'))).toBe(true);
    expect(trial.outOfBudget).toBe(true);
  });

  it("records the reported trial's controls and observations, and notes the others", async () => {
    const server = await startHttpServer('modern');
    open.push(server);
    const { session } = await openSession({ kind: 'http', url: server.url }, sessionOptions());
    open.push(session);
    const best = decided('best', confirmed('found it'));
    expect(check(best, 'live', true, 'an answer', 'answered')).toBe(true);
    expect(check(best, 'apart', false, 'tokens', 'none')).toBe(false);
    best.observations.push({ label: 'seen', detail: 'a detail' });
    const other = decided('other', refuted('nothing there'));
    check(other, 'otherControl', false, 'x', 'y');
    const undecided = startTrial('undecided');
    const probe = (trials: Trial[], fallback: ProbeDecision) =>
      defineProbe({
        id: 'test/trials',
        title: 'Trials',
        flaw: 'The flaw',
        severity: 'low',
        rationale: 'Exercises trial reporting.',
        references: [],
        maxCalls: 1,
        run: async (ctx) => report(ctx, trials, fallback),
      });
    const options = { includeDestructive: false, redactor: createRedactor(IDS), capMs: 5000 };
    const result = await runProbe(
      probe([other, undecided, best], errored('fallback')),
      session,
      options,
    );
    expect(result.controls).toEqual({
      live: { held: true, expected: 'an answer', observed: 'answered' },
      apart: { held: false, expected: 'tokens', observed: 'none' },
    });
    expect(result.observations).toEqual([{ label: 'seen', detail: 'a detail' }]);
    expect(result.evidence.flatMap((e) => (e.kind === 'note' ? [e.text] : []))).toEqual([
      'also tried other: refuted (nothing there)',
      "the probe's own reading was confirmed: found it",
    ]);
    expect(result.reason).toBe('control apart did not hold: expected tokens; observed none');
    const none = await runProbe(probe([undecided], skipped('no trial')), session, options);
    expect(none).toMatchObject({ verdict: 'skipped', reason: 'no trial', controls: {} });
  });
});
