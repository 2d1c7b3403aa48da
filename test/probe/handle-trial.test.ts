/**
 * The handle trial decision by decision: each scan runs `handle/cross-principal` alone, in-process,
 * against one small real server (the fixture twin or the blind-spot probe server) built to reach one
 * decision, and pins what the reader of the report gets: the verdict, the reason, each control
 * (held, expected, observed), the observations, and the note each other recipe tried leaves.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startFixtureHttp } from '../../src/fixture/http.js';
import type { Mode } from '../../src/fixture/flaws.js';
import { PROBES } from '../../src/probe/runner/registry.js';
import { handleDifference, swapCarried } from '../../src/probe/experiments/handle-trial.js';
import { runScan } from '../../src/probe/runner/scan.js';
import type { ProbeResult } from '../../src/probe/model/report.js';
import { startProbeServer, type ProbeServerOptions } from '../servers/probe-server.js';

const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(open.map((s) => s.close()));
});

const handleProbe = PROBES.filter((p) => p.id === 'handle/cross-principal');

/** Scan `server` with the handle probe alone; `maxCalls` gives it a smaller budget than its own. */
async function scan(
  server: { url: string; close(): Promise<void> },
  maxCalls?: number,
): Promise<ProbeResult> {
  open.push(server);
  const probes =
    maxCalls === undefined ? handleProbe : handleProbe.map((p) => ({ ...p, maxCalls }));
  const run = await runScan({ target: { kind: 'http', url: server.url }, probes });
  const result = run.probes.find((p) => p.id === 'handle/cross-principal');
  if (result === undefined) throw new Error('no handle result');
  return result;
}
const fixture = async (mode: Mode) => scan(await startFixtureHttp({ mode }));
// The flow tool serves its owner only, so each decision is the read's (an open flow is a handle
// flaw of its own: it names A's label to B).
const probeServer = async (options: ProbeServerOptions, maxCalls?: number) =>
  scan(await startProbeServer({ exportOwnerOnly: true, ...options }), maxCalls);
const notes = (r: ProbeResult): string[] =>
  r.evidence.flatMap((e) => (e.kind === 'note' ? [e.text] : []));

const labels = (r: ProbeResult): string[] =>
  r.evidence.flatMap((e) => ('label' in e ? [e.label] : []));
/** The arguments of each exchange labelled `label`. */
function argumentsOf(r: ProbeResult, label: string): Record<string, unknown>[] {
  return r.evidence.flatMap((e) => {
    if (!('label' in e) || e.label !== label) return [];
    const body = e.kind === 'http' ? e.request.body : e.kind === 'jsonrpc' ? e.sent : undefined;
    const args = (body as { params?: { arguments?: Record<string, unknown> } } | undefined)?.params
      ?.arguments;
    return args === undefined ? [] : [args];
  });
}
const READ = 'read_workspace.workspace_id';
const EXPORT = 'export_workspace.workspace_id';
const LIVE = {
  held: true,
  expected: 'A and B each read their own handle',
  observed: 'answered / answered / answered',
};
const FORGED = 'a decision on a handle the server never minted (refused, or else noted)';
const APART =
  'the server names something for A (twice) that it never names for B, or refuses B what it gives A';
const forgedRefused = { held: true, expected: FORGED, observed: 'tool error (isError)' };
const oneToken = { held: true, expected: APART, observed: "1 A-only token(s) in A's answers" };
const NO_VALIDATION = {
  label: 'no handle validation',
  detail: `${READ} honoured a handle it never minted, so a "yes" to B proves nothing; only A's canary or principal can confirm`,
};
const NOT_SHOWN = {
  label: "accepted, not shown to be A's",
  detail: `${READ} answered B on A's handle without A's canary or principal`,
};
/** The experiment's report: B's answer on A's handle against its answer on a forged one. */
const DIFFERS = {
  label: 'differs from a forged handle',
  detail: expect.stringContaining("B's answer on A's handle against a forged one: r0.") as string,
};
const AS_FORGED = {
  label: 'answered as a forged handle',
  detail:
    "B's answer on A's handle is its answer on a handle never minted (the handles aside): A's handle opened nothing a forgery does not",
};
const alsoTried = (decision: string) => `also tried open_workspace → ${EXPORT}: ${decision}`;
/** The note before discovery's first mint and read of the read recipe, which the trial reads as A's. */
const HANDED = `open_workspace → ${READ}: A's mint and A's read of its handle handed on from discovery`;
/** Discovery's two exchanges the trial cites as A's mint and A's read of its handle. */
const SURVEY_MINT = 'survey: open_workspace with placeholder arguments';
const SURVEY_READ = `survey: ${READ} offered open_workspace's value`;

describe('the handle trial', () => {
  it("confirms when B gets A's canary by A's handle, with every control held", async () => {
    const r = await fixture('flawed');
    expect(r).toMatchObject({
      verdict: 'confirmed',
      reason: `B presented A's handle to ${READ} and got A's canary back`,
      controls: {
        bothIdentitiesLive: LIVE,
        forgedHandleDecided: forgedRefused,
        serverTellsApart: oneToken,
      },
      observations: [DIFFERS],
    });
    expect(Object.keys(r.controls)).toHaveLength(3);
  });

  it("confirms on A's principal when that, and not the canary, is what B gets back", async () => {
    const r = await probeServer({ reads: 'owner' });
    expect(r).toMatchObject({
      verdict: 'confirmed',
      reason: `B presented A's handle to ${READ} and got A's principal back`,
      controls: {
        bothIdentitiesLive: LIVE,
        forgedHandleDecided: forgedRefused,
        serverTellsApart: oneToken,
      },
      observations: [DIFFERS],
    });
  });

  it('ends errored when B cannot mint a handle of its own, naming the control', async () => {
    const r = await probeServer({ onlyFirstCaller: 'all' });
    const reason = 'B could not mint a handle of its own, so B is not a live second identity';
    expect(r).toMatchObject({ verdict: 'errored', reason });
    expect(r.controls).toEqual({
      bMintsOwnHandle: {
        held: false,
        expected: 'B (and A again) can mint a handle',
        observed: 'tool error (isError) / answered',
      },
    });
    expect(notes(r)).toEqual([HANDED, alsoTried(`errored (${reason})`)]);
  });

  it('ends errored when B cannot read its own handle, showing each read', async () => {
    const r = await probeServer({ onlyFirstCaller: 'read' });
    expect(r).toMatchObject({
      verdict: 'errored',
      reason: 'an identity could not read its own handle',
    });
    expect(r.controls).toEqual({
      bothIdentitiesLive: {
        ...LIVE,
        held: false,
        observed: 'answered / tool error (isError) / answered',
      },
    });
    expect(notes(r)).toEqual([
      HANDED,
      alsoTried(`refuted (${EXPORT} refused B the handle minted for A (tool error (isError)))`),
    ]);
  });

  it("refutes when B is refused A's handle, naming the refusal", async () => {
    const r = await fixture('fixed');
    expect(r).toMatchObject({
      verdict: 'refuted',
      reason: `${READ} refused B the handle minted for A (tool error (isError))`,
      controls: {
        bothIdentitiesLive: LIVE,
        forgedHandleDecided: forgedRefused,
        serverTellsApart: oneToken,
      },
      observations: [],
    });
    expect(notes(r)).toEqual([
      HANDED,
      alsoTried(`refuted (${EXPORT} refused B the handle minted for A (tool error (isError)))`),
    ]);
  });

  it("refutes a server that answers any handle with nothing of A's, noting the missing validation", async () => {
    const r = await fixture('noguard');
    expect(r).toMatchObject({
      verdict: 'refuted',
      reason: "B's answer on A's handle showed nothing of A's",
      controls: {
        bothIdentitiesLive: LIVE,
        forgedHandleDecided: { held: true, expected: FORGED, observed: 'answered' },
        serverTellsApart: oneToken,
      },
    });
    // Decided by the experiment: A's handle opened for B just what a forged one opens.
    expect(r.observations).toEqual([NO_VALIDATION, AS_FORGED, NOT_SHOWN]);
    expect(notes(r)).toEqual([
      HANDED,
      alsoTried("refuted (B's answer on A's handle showed nothing of A's)"),
    ]);
  });

  it("reads A's data that B sees anyway as a shared view, not the handle", async () => {
    const r = await probeServer({ feed: true });
    expect(r.verdict).toBe('refuted');
    expect(r.observations).toEqual([
      NO_VALIDATION,
      DIFFERS,
      {
        label: 'A-data reaches B anyway',
        detail: `B's answer on A's handle showed A's data, but so did B's answers without it (a shared view, not the handle)`,
      },
      NOT_SHOWN,
    ]);
  });

  it('ends errored when the server cannot tell A from B, with the control showing why', async () => {
    const r = await probeServer({ identity: 'ignore' });
    expect(r).toMatchObject({
      verdict: 'errored',
      reason: 'the server did not show that it tells A and B apart',
      controls: {
        bothIdentitiesLive: LIVE,
        forgedHandleDecided: forgedRefused,
        serverTellsApart: {
          held: false,
          expected: APART,
          observed: "no A-only token; B on A's handle: answered",
        },
      },
    });
    expect(notes(r)).toEqual([
      HANDED,
      alsoTried('errored (the server did not show that it tells A and B apart)'),
    ]);
  });

  it('ends errored when the forged read draws no decision, with no verdict drawn after it', async () => {
    const r = await probeServer({ unknownHandle: '500' });
    expect(r).toMatchObject({
      verdict: 'errored',
      reason: 'the forged-handle control drew no decision',
      controls: {
        bothIdentitiesLive: LIVE,
        forgedHandleDecided: {
          held: false,
          expected: FORGED,
          observed: 'no decision (http-status: HTTP 500 with an empty body)',
        },
      },
    });
    expect(Object.keys(r.controls)).toEqual(['bothIdentitiesLive', 'forgedHandleDecided']);
  });

  it("ends errored when B's read of A's handle draws no decision, naming it", async () => {
    const r = await probeServer({ fault: '500' });
    expect(r).toMatchObject({
      verdict: 'errored',
      reason:
        "B's presentation of A's handle drew no decision: no decision (http-status: HTTP 500 with an empty body)",
      controls: {
        bothIdentitiesLive: LIVE,
        forgedHandleDecided: forgedRefused,
        serverTellsApart: oneToken,
      },
    });
  });

  it("refutes when only a forged handle's answer shows A's label: the handle opens nothing more", async () => {
    const r = await probeServer({ unknownHandle: 'feed' });
    expect(r).toMatchObject({
      verdict: 'refuted',
      reason: `${EXPORT} refused B the handle minted for A (tool error (isError))`,
      observations: [],
    });
    expect(notes(r)).toEqual([
      HANDED,
      `also tried open_workspace → ${READ}: refuted (B's answer on A's handle showed nothing of A's)`,
    ]);
  });

  it('labels each exchange of a trial by who does what', async () => {
    const r = await probeServer({ reads: 'label-bound' });
    expect(labels(r).slice(0, 8)).toEqual([
      SURVEY_MINT,
      SURVEY_READ,
      'B mints its own',
      'A mints a second',
      "B reads B's handle",
      "A reads A's second handle",
      'B presents a forged handle of the same shape',
      "B presents A's handle",
    ]);
    // A forged handle has the shape of a minted one, and is none of them.
    const handles = [SURVEY_READ, "A reads A's second handle", "B reads B's handle"].flatMap(
      (label) => argumentsOf(r, label).map((a) => a['workspace_id']),
    );
    const forged = argumentsOf(r, 'B presents a forged handle of the same shape').map(
      (a) => a['workspace_id'],
    );
    expect(forged).toHaveLength(2);
    for (const f of forged) {
      expect(f).toMatch(/^ws-[0-9a-f]{16}$/);
      expect(handles).not.toContain(f);
    }
  });

  it('refutes on a refusal alone when no token tells A from B, saying so', async () => {
    const r = await probeServer({ reads: 'label-bound' });
    expect(r).toMatchObject({
      verdict: 'refuted',
      reason: `${READ} refused B the handle minted for A (tool error (isError))`,
      controls: {
        serverTellsApart: {
          held: true,
          expected: APART,
          observed: "no A-only token; B on A's handle: tool error (isError)",
        },
      },
    });
  });

  it('skips a consumer that refuses A its own handle, and goes on to the next', async () => {
    // Discovery's round 1 of the export was A's one export: the trial's own is refused.
    const r = await probeServer({ reads: 'label-bound', exportsOnce: true });
    expect(r.verdict).toBe('refuted');
    expect(notes(r)).toEqual([
      HANDED,
      alsoTried(`skipped (${EXPORT} refused A its own handle: not a consumer of it)`),
    ]);
  });

  it("reads discovery's read as A's first: a server that refuses A a second read ends errored", async () => {
    const r = await probeServer({ reads: 'once' });
    expect(r).toMatchObject({
      verdict: 'errored',
      reason: 'an identity could not read its own handle',
    });
    expect(r.controls['bothIdentitiesLive']).toEqual({
      ...LIVE,
      held: false,
      observed: 'answered / answered / tool error (isError)',
    });
    expect(labels(r).slice(0, 2)).toEqual([SURVEY_MINT, SURVEY_READ]);
  });

  it("ends errored, never skipped, when A's read of its own handle draws no decision", async () => {
    const r = await probeServer({ reads: 'once-then-500' });
    expect(r).toMatchObject({
      verdict: 'errored',
      reason: 'an identity could not read its own handle',
    });
    expect(r.controls['bothIdentitiesLive']?.held).toBe(false);
  });

  it("confirms a flow that names A's record to B, though B's own request carried it back", async () => {
    // The flow puts A's label into the state it hands B and names it at completion: B's last
    // request carried the label (in that state), and it is still A's record served to B.
    const r = await scan(await startProbeServer({ reads: 'refuse' }));
    expect(r).toMatchObject({
      verdict: 'confirmed',
      reason: `B presented A's handle to ${EXPORT} and got A's canary back`,
    });
  });

  it('refutes a handle that only spells its record: the swapped control comes back', async () => {
    const r = await probeServer({ spelled: 'open' });
    expect(r.verdict).toBe('refuted');
    expect(r.reason).toBe(
      "B's answer on A's handle showed nothing of A's beyond the handle itself",
    );
    expect(r.observations).toContainEqual({
      label: 'swapped handle: reflected',
      detail:
        "the control canary came back: the server shows what the handle says, not a record of A's",
    });
    expect(labels(r)).toContain(
      "B presents A's handle with its record's value swapped for a control canary",
    );
  });

  it('confirms a signed handle that spells its record: the edited one is refused', async () => {
    const r = await probeServer({ spelled: 'signed' });
    expect(r).toMatchObject({
      verdict: 'confirmed',
      reason: `B presented A's handle to ${READ} and got A's canary back`,
    });
    expect(r.observations).toContainEqual({
      label: 'swapped handle: served',
      detail: expect.stringContaining('the edited handle was refused') as string,
    });
  });

  it('forges a numeric handle far outside the range a counter has minted', async () => {
    const r = await probeServer({ numericIds: true });
    const forged = argumentsOf(r, 'B presents a forged handle of the same shape').find(
      (a) => 'workspace_id' in a,
    )?.['workspace_id'];
    expect(typeof forged).toBe('number');
    expect(forged).toBeGreaterThanOrEqual(100_000_000);
    expect(forged).toBeLessThan(1_000_000_000);
  });

  it('ends errored when the budget runs out while B and A mint, with no control read on half a pair', async () => {
    // One call: A's mint is discovery's, B mints its own, and A's second mint is not sent.
    const r = await probeServer({}, 1);
    expect(r).toMatchObject({ verdict: 'errored', reason: 'budget spent while minting' });
    expect(r.controls).toEqual({});
    expect(labels(r)).toEqual([SURVEY_MINT, SURVEY_READ, 'B mints its own']);
    // Cut short by the budget, the trial ends the probe: no other recipe is tried.
    expect(notes(r)).toEqual([
      HANDED,
      "not sent: tools/call 'A mints a second' as A: the probe's budget of 1 calls is spent",
    ]);
  });

  it("ends errored when A's second mint fails while B's succeeds, showing both", async () => {
    const r = await probeServer({ firstOpenerLocked: true });
    const reason = 'B could not mint a handle of its own, so B is not a live second identity';
    expect(r).toMatchObject({ verdict: 'errored', reason });
    expect(r.controls).toEqual({
      bMintsOwnHandle: {
        held: false,
        expected: 'B (and A again) can mint a handle',
        observed: 'answered / tool error (isError)',
      },
    });
    expect(labels(r).slice(0, 4)).toEqual([
      SURVEY_MINT,
      SURVEY_READ,
      'B mints its own',
      'A mints a second',
    ]);
    // Locked out, A mints nothing for the next recipe: no other trial.
    expect(notes(r)).toEqual([HANDED]);
  });

  it("plants a canary tagged 'read' in every read: a fresh one for each of A's, one for all of B's", async () => {
    const r = await probeServer({ readNote: true });
    const noteOf = (label: string): unknown[] => argumentsOf(r, label).map((a) => a['note']);
    // A's first read is discovery's, around discovery's canary; its second is the trial's own.
    const aReads = [...noteOf(SURVEY_READ), ...noteOf("A reads A's second handle")];
    // B's three reads differ only by the handle, so their answers line up for the experiment.
    const bReads = [
      "B reads B's handle",
      'B presents a forged handle of the same shape',
      "B presents A's handle",
    ].map(noteOf);
    expect(aReads).toHaveLength(2);
    expect(bReads.map((n) => n.length)).toEqual([1, 1, 1]);
    expect(aReads[0]).toMatch(/^sg-survey-[0-9a-f]{24}$/);
    for (const note of [aReads[1], ...bReads.flat()])
      expect(note).toMatch(/^sg-read-[0-9a-f]{24}$/);
    expect(new Set(aReads).size).toBe(2);
    expect(new Set(bReads.flat()).size).toBe(1);
    expect(aReads).not.toContain(bReads[0]?.[0]);
  });

  it("leaves the handles and canaries out of the tokens that tell A from B, even where A's answers repeat them", async () => {
    // Every read lists the caller's two newest workspaces: A's two handles and labels (canaries)
    // show in both of A's answer sets and never in B's, yet only A's principal tells A from B.
    const r = await probeServer({ readsRecent: true });
    expect(r).toMatchObject({
      verdict: 'confirmed',
      reason: `B presented A's handle to ${READ} and got A's canary back`,
      controls: {
        bothIdentitiesLive: LIVE,
        forgedHandleDecided: forgedRefused,
        serverTellsApart: oneToken,
      },
    });
  });
});

describe('the handle experiment, value by value', () => {
  it('blanks a handle only where it stands whole: a short number is no part of a canary', () => {
    const canary = 'sg-handle-a-7a7b77';
    const cross = [{ text: `#7 ${canary}` }];
    const forged = [{ text: '#7 no ticket' }];
    const shownAfter = handleDifference(cross, forged, ['7']).map((d) => d.after ?? '');
    expect(shownAfter.join(' ')).toContain(canary);
    expect(shownAfter.join(' ')).not.toMatch(/#7\b/);
  });

  it('swaps a value a handle carries: verbatim, after a prefix in base64url JSON, and signed', () => {
    expect(swapCarried('doc-sg-x-1', 'sg-x-1', 'sg-c-2')).toBe('doc-sg-c-2');
    const body = Buffer.from(JSON.stringify({ label: 'sg-x-1', n: 3 })).toString('base64url');
    const swapped = swapCarried(`ws-${body}`, 'sg-x-1', 'sg-c-2');
    expect(swapped?.startsWith('ws-')).toBe(true);
    expect(JSON.parse(Buffer.from(swapped?.slice(3) ?? '', 'base64url').toString())).toEqual({
      label: 'sg-c-2',
      n: 3,
    });
    expect(swapCarried(`${body}.mac`, 'sg-x-1', 'sg-c-2')?.endsWith('.mac')).toBe(true);
    expect(swapCarried(Buffer.from('sg-x-1').toString('hex'), 'sg-x-1', 'sg-c-2')).toBeUndefined();
  });
});
