/**
 * The runner's rules one by one, each against a real HTTP (or stdio) test server: what a probe sees
 * of the scan, which requests are refused and with what note, where a request goes (target or
 * peer), what the time cap and the end of a probe do to requests still running, and the evidence
 * and notes a reader of the report gets. Fast and in-process, so mutation testing (`runner`) can
 * measure the runner against them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProbeContext, ProbeDecision } from '../../../src/probe/model/probe.js';
import { refuted } from '../../../src/probe/model/probe.js';
import { createRedactor } from '../../../src/probe/evidence/evidence.js';
import { centralResult, runProbe } from '../../../src/probe/runner/run.js';
import { openSession } from '../../../src/probe/target/session.js';
import type { EngineSession } from '../../../src/probe/target/session.js';
import type { SurfaceMap } from '../../../src/probe/surface/recipes.js';
import type { Evidence } from '../../../src/probe/model/evidence.js';
import type { Exchange, Outcome } from '../../../src/probe/model/wire.js';
import { startHttpServer } from '../../servers/http-server.js';
import type { TestHttpServer } from '../../servers/http-server.js';
import { IDS, labelOf, sessionOptions, stdioTarget, inline } from './helpers.js';

const echo = (text: string) => ({ name: 'echo', arguments: { text } });
const redactor = createRedactor(IDS);
const options = { includeDestructive: false, redactor, capMs: 5000 };
const notes = (evidence: readonly Evidence[]): string[] =>
  evidence.flatMap((e) => (e.kind === 'note' ? [e.text] : []));

/** A modern test server whose tools/list names `tools`; `echo` with text `hang` never answers. */
async function serverListing(tools: readonly Record<string, unknown>[] | undefined) {
  return startHttpServer('modern', ({ message }) => {
    if (message.method === 'tools/list' && tools !== undefined)
      return {
        json: { jsonrpc: '2.0', id: message.id, result: { resultType: 'complete', tools } },
      };
    const text = (message.params?.arguments as { text?: string } | undefined)?.text;
    return text === 'hang' ? 'hang' : undefined;
  });
}

const tool = (name: string) => ({ name, inputSchema: { type: 'object', properties: {} } });

describe('the runner, rule by rule', () => {
  const servers: TestHttpServer[] = [];
  const sessions: EngineSession[] = [];
  let server: TestHttpServer;
  let session: EngineSession;

  async function open(tools?: readonly Record<string, unknown>[]) {
    const s = await serverListing(tools);
    servers.push(s);
    const opened = await openSession({ kind: 'http', url: s.url }, sessionOptions());
    sessions.push(opened.session);
    return { server: s, session: opened.session };
  }

  beforeAll(async () => {
    ({ server, session } = await open());
  });
  afterAll(async () => {
    for (const s of sessions) await s.close();
    for (const s of servers) await s.close();
  });

  it('gives a probe an empty surface and no settings when the scan gave none, and what it gave otherwise', async () => {
    let seen: ProbeContext | undefined;
    const probe = inline(async (ctx) => {
      seen = ctx;
      return refuted('looked');
    });
    const bare = await runProbe(probe, session, options);
    expect(seen?.surface).toEqual({ handles: [], flows: [], tried: [], failures: [] });
    expect(seen?.settings).toEqual({});
    expect(seen?.peer).toBeUndefined();
    expect(seen?.includeDestructive).toBe(false);
    expect(seen?.identityOf(IDS.A)).toBe('A');
    expect(seen?.identityOf(IDS.B)).toBe('B');
    expect(seen?.identityOf('someone-else')).toBeUndefined();
    expect(bare.observations).toEqual([]);
    expect(bare.controls).toEqual({});

    const surface: SurfaceMap = { handles: [], flows: [], tried: ['echo'], failures: [] };
    await runProbe(probe, session, { ...options, surface, settings: { expiryWaitMs: 1234 } });
    expect(seen?.surface).toBe(surface);
    expect(seen?.settings).toEqual({ expiryWaitMs: 1234 });
  });

  it('keeps each observation once, a repeated one not again, and every note in order', async () => {
    const result = await runProbe(
      inline(async (ctx) => {
        ctx.observe('echo', 'the server repeats its input');
        ctx.observe('echo', 'the server repeats its input');
        ctx.observe('echo', 'another detail');
        ctx.observe('other', 'the server repeats its input');
        ctx.note('first note');
        ctx.note('second note');
        return refuted('fine');
      }),
      session,
      options,
    );
    expect(result.observations).toEqual([
      { label: 'echo', detail: 'the server repeats its input' },
      { label: 'echo', detail: 'another detail' },
      { label: 'other', detail: 'the server repeats its input' },
    ]);
    expect(notes(result.evidence)).toEqual(['first note', 'second note']);
  });

  it('says why a call over budget was not sent, in the evidence and the outcome', async () => {
    let refused: Outcome | undefined;
    const result = await runProbe(
      inline(async (ctx) => {
        await ctx.request('tools/call', echo('a'), { identity: 'A', label: 'one' });
        refused = (await ctx.request('tools/call', echo('b'), { identity: 'B', label: 'two' }))
          .outcome;
        return refuted('done');
      }, 1),
      session,
      options,
    );
    const detail = "tools/call 'two' as B: the probe's budget of 1 calls is spent";
    expect(refused).toEqual({ kind: 'failure', failure: 'budget', detail });
    expect(notes(result.evidence)).toEqual([`not sent: ${detail}`]);
    expect(result.evidence.map(labelOf)).toEqual(['one', 'note']);
  });

  it('refuses a tool the server declares destructive, whatever its name, and says why', async () => {
    const { server: tidyServer, session: tidy } = await open([
      { ...tool('tidy'), annotations: { destructiveHint: true } },
      tool('echo'),
    ]);
    let outcome: Outcome | undefined;
    const result = await runProbe(
      inline(async (ctx) => {
        outcome = (
          await ctx.request(
            'tools/call',
            { name: 'tidy', arguments: {} },
            { identity: 'A', label: 't' },
          )
        ).outcome;
        return refuted('done');
      }),
      tidy,
      options,
    );
    const detail =
      "tools/call 't' as A: 'tidy' may destroy data: declares destructiveHint: true (needs --allow-tool tidy)";
    expect(outcome).toEqual({ kind: 'failure', failure: 'blocked', detail });
    expect(notes(result.evidence)).toEqual([`not sent: ${detail}`]);
    expect(tidyServer.calls.tidy ?? 0).toBe(0);
  });

  it('gates tools/call only: another method naming a destructive-looking thing is sent', async () => {
    let outcome: Outcome | undefined;
    await runProbe(
      inline(async (ctx) => {
        outcome = (
          await ctx.request(
            'prompts/get',
            { name: 'delete_everything' },
            { identity: 'A', label: 'p' },
          )
        ).outcome;
        return refuted('done');
      }),
      session,
      options,
    );
    // The test server has no prompts: it answers, which it could not have if the call were refused.
    expect(outcome).toMatchObject({ kind: 'error', code: -32601 });
  });

  it('refuses a tools/call of a tool the target does not list (or whose name is no string): it is in no call plan', async () => {
    let outcome: Outcome | undefined;
    const result = await runProbe(
      inline(async (ctx) => {
        outcome = (
          await ctx.request('tools/call', { name: 7, arguments: {} }, { identity: 'A', label: 'n' })
        ).outcome;
        return refuted('done');
      }),
      session,
      options,
    );
    expect(result.verdict).toBe('refuted');
    expect(outcome).toMatchObject({ kind: 'failure', failure: 'blocked' });
    expect(JSON.stringify(outcome)).toMatch(/not in the target's tools\/list/);
  });

  it('sends a peer request to the peer, labelled as such, and refuses one when no peer is open', async () => {
    const { server: peerServer, session: peer } = await open();
    const before = { target: server.calls.echo ?? 0, peer: peerServer.calls.echo ?? 0 };
    let seen: ProbeContext | undefined;
    const viaPeer = async (ctx: ProbeContext): Promise<Exchange> => {
      seen = ctx;
      return ctx.request('tools/call', echo('p'), { identity: 'A', label: 'x', via: 'peer' });
    };
    let exchange: Exchange | undefined;
    const result = await runProbe(
      inline(async (ctx) => {
        exchange = await viaPeer(ctx);
        return refuted('done');
      }),
      session,
      { ...options, peer },
    );
    expect(seen?.peer).toEqual({});
    expect(exchange?.outcome.kind).toBe('result');
    expect(result.evidence.map(labelOf)).toEqual(['peer: x']);
    expect((peerServer.calls.echo ?? 0) - before.peer).toBe(1);
    expect((server.calls.echo ?? 0) - before.target).toBe(0);

    const problem = 'the peer did not answer server/discover';
    for (const given of [{ problem }, undefined]) {
      const refusedRun = await runProbe(
        inline(async (ctx) => {
          exchange = await viaPeer(ctx);
          return refuted('done');
        }),
        session,
        given === undefined ? options : { ...options, peer: given },
      );
      expect(seen?.peer).toEqual(given === undefined ? undefined : { problem });
      const detail = "tools/call 'x' as A: no peer is open";
      expect(exchange?.outcome).toEqual({ kind: 'failure', failure: 'blocked', detail });
      expect(notes(refusedRun.evidence)).toEqual([`not sent: ${detail}`]);
    }
    expect((server.calls.echo ?? 0) - before.target).toBe(0);
  });

  it('names the time cap when a probe waits on nothing in flight, and the scan deadline when that is the cap', async () => {
    const stuck = inline(() => new Promise<ProbeDecision>(() => undefined));
    const own = await runProbe(stuck, session, { ...options, capMs: 100 });
    expect(own).toMatchObject({
      verdict: 'errored',
      reason: "did not finish within the probe's time cap (100 ms)",
    });
    const named = await runProbe(stuck, session, {
      ...options,
      capMs: 100,
      capName: 'the scan deadline',
    });
    expect(named.reason).toBe('did not finish within the scan deadline');
  });

  it('keeps the exchange of the request the cap cut off, and refuses every request after it', async () => {
    let cut: Outcome | undefined;
    let late: Promise<Exchange> | undefined;
    const result = await runProbe(
      inline(async (ctx) => {
        cut = (
          await ctx.request('tools/call', echo('hang'), {
            identity: 'A',
            label: 'stuck',
            timeoutMs: 60_000,
          })
        ).outcome;
        late = ctx.request('tools/call', echo('late'), { identity: 'A', label: 'late' });
        return refuted('too late');
      }),
      session,
      { ...options, capMs: 300 },
    );
    expect(result.reason).toBe(
      "did not finish within the probe's time cap (300 ms); still waiting on tools/call 'stuck' as A",
    );
    expect(result.evidence.map(labelOf)).toContain('stuck');
    expect(cut).toEqual({
      kind: 'failure',
      failure: 'deadline',
      detail: "the probe's time cap (300 ms) passed",
    });
    expect(late).toBeDefined();
    expect((await late!).outcome).toEqual({
      kind: 'failure',
      failure: 'deadline',
      detail: "tools/call 'late' as A: the probe's time cap (300 ms) has passed",
    });
  });

  it('waits only a bounded grace for a request the cap could not abort, and ends without its exchange', async () => {
    // Against a legacy server B's first request waits on B's own initialize, which runs on the
    // session's limits, not the probe's: the cap's abort does not reach it while it hangs.
    const legacy = await startHttpServer('legacy', ({ message, headers }) =>
      message.method === 'initialize' && headers.authorization === `Bearer ${IDS.B}`
        ? 'hang'
        : undefined,
    );
    try {
      const opened = await openSession(
        { kind: 'http', url: legacy.url },
        sessionOptions({ timeoutMs: 60_000 }),
      );
      sessions.push(opened.session);
      let pending: Promise<Exchange> | undefined;
      let settled = false;
      const result = await runProbe(
        inline(async (ctx) => {
          pending = ctx.request('tools/list', {}, { identity: 'B', label: 'list as B' });
          await pending;
          settled = true;
          return refuted('listed');
        }),
        opened.session,
        { ...options, capMs: 200 },
      );
      expect(result).toMatchObject({
        verdict: 'errored',
        reason:
          "did not finish within the probe's time cap (200 ms); still waiting on tools/list 'list as B' as B",
      });
      // The runner ended before the request did, so its exchange is not in the result.
      expect(settled).toBe(false);
      expect(result.evidence.map(labelOf)).not.toContain('list as B');
      // Once the server is gone the initialize fails, and the request, aborted by the cap, ends.
      await legacy.close();
      expect((await pending!).outcome).toEqual({
        kind: 'failure',
        failure: 'deadline',
        detail: "the probe's time cap (200 ms) passed",
      });
    } finally {
      await legacy.close();
    }
  });

  it("aborts a request a probe left running when it finished, and keeps it out of the probe's evidence", async () => {
    let stray: Promise<Exchange> | undefined;
    let ctxKept: ProbeContext | undefined;
    const result = await runProbe(
      inline(async (ctx) => {
        ctxKept = ctx;
        stray = ctx.request('tools/call', echo('hang'), {
          identity: 'A',
          label: 'stray',
          timeoutMs: 60_000,
        });
        await ctx.request('tools/call', echo('quick'), { identity: 'A', label: 'quick' });
        return refuted('done');
      }),
      session,
      options,
    );
    expect(stray).toBeDefined();
    const { outcome } = await stray!;
    expect(outcome).toEqual({
      kind: 'failure',
      failure: 'deadline',
      detail: 'test/inline has finished',
    });
    // Nothing the probe does after it returned reaches its result.
    const after = await ctxKept!.request('tools/call', echo('after'), {
      identity: 'A',
      label: 'after',
    });
    expect(after.outcome).toEqual({
      kind: 'failure',
      failure: 'deadline',
      detail: "tools/call 'after' as A: the probe's time cap (5000 ms) has passed",
    });
    ctxKept!.note('a note after the end');
    expect(result.evidence.map(labelOf)).toEqual(['quick']);
  });

  it("aborts a request when the probe's own signal aborts", async () => {
    const mine = new AbortController();
    let outcome: Outcome | undefined;
    await runProbe(
      inline(async (ctx) => {
        const pending = ctx.request('tools/call', echo('hang'), {
          identity: 'A',
          label: 'mine',
          timeoutMs: 60_000,
          signal: mine.signal,
        });
        mine.abort();
        outcome = (await pending).outcome;
        return refuted('done');
      }),
      session,
      options,
    );
    expect(outcome).toEqual({ kind: 'failure', failure: 'timeout', detail: 'request aborted' });
  });

  it('reads a missing decision as errored, saying so', async () => {
    const result = await runProbe(
      inline(async () => undefined as unknown as ProbeDecision),
      session,
      options,
    );
    expect(result).toMatchObject({
      verdict: 'errored',
      reason: 'the probe returned no valid verdict',
    });
  });

  it('lists every failed control after the first', async () => {
    const result = await runProbe(
      inline(async (ctx) => {
        for (const id of ['a', 'b', 'c'])
          ctx.control(id, { held: false, expected: `${id}-expected`, observed: `${id}-observed` });
        return refuted('fine');
      }),
      session,
      options,
    );
    expect(result.reason).toBe(
      'control a did not hold: expected a-expected; observed a-observed (also: b, c)',
    );
  });

  it('says what a probe that decided without a call read: the tools and what discovery tried', async () => {
    const decide = inline(async () => refuted('nothing to try'));
    const only = (r: { evidence: Evidence[] }) => {
      expect(r.evidence).toHaveLength(1);
      return notes(r.evidence)[0];
    };
    expect(only(await runProbe(decide, session, options))).toBe(
      'decided without a call; tools/list named 2 tool(s): echo, delete_everything',
    );
    const tried: SurfaceMap = { handles: [], flows: [], tried: ['echo', 'search'], failures: [] };
    expect(only(await runProbe(decide, session, { ...options, surface: tried }))).toBe(
      'decided without a call; tools/list named 2 tool(s): echo, delete_everything; ' +
        "discovery (its exchanges are in the report's surface section) tried: echo, search",
    );
    const none: SurfaceMap = { handles: [], flows: [], tried: [], failures: [] };
    expect(only(await runProbe(decide, session, { ...options, surface: none }))).toBe(
      'decided without a call; tools/list named 2 tool(s): echo, delete_everything; ' +
        "discovery (its exchanges are in the report's surface section) tried: nothing",
    );

    const { session: empty } = await open([]);
    expect(only(await runProbe(decide, empty, options))).toBe(
      'decided without a call; tools/list named no tools',
    );
    const names = Array.from({ length: 21 }, (_, i) => `t${i + 1}`);
    const { session: twenty } = await open(names.slice(0, 20).map(tool));
    expect(only(await runProbe(decide, twenty, options))).toBe(
      `decided without a call; tools/list named 20 tool(s): ${names.slice(0, 20).join(', ')}`,
    );
    const { session: many } = await open(names.map(tool));
    expect(only(await runProbe(decide, many, options))).toBe(
      `decided without a call; tools/list named 21 tool(s): ${names.slice(0, 20).join(', ')}, …`,
    );
  });

  it("keeps a stdio child's stderr as evidence, and then needs no note", async () => {
    const opened = await openSession(stdioTarget('stderr-echo'), sessionOptions());
    sessions.push(opened.session);
    // The child writes its ready line before it reads a request, so opening the session (several
    // round trips) has read it; nothing has taken it yet.
    const result = await runProbe(
      inline(async () => refuted('nothing to try')),
      opened.session,
      options,
    );
    expect(result.evidence).toHaveLength(1);
    expect(result.evidence[0]).toMatchObject({ kind: 'stderr' });
    expect(JSON.stringify(result.evidence[0])).toContain('[test-server] ready pid=');
  });

  it("counts a probe's time from its start, never more than the time around the call", async () => {
    // The probe waits WAIT_MS itself: its time is at least that (a timer never fires more than a
    // millisecond early), and at most the time measured around the call.
    const WAIT_MS = 60;
    const before = performance.now();
    const result = await runProbe(
      inline(async () => {
        await new Promise((resolve) => setTimeout(resolve, WAIT_MS));
        return refuted('waited');
      }),
      session,
      options,
    );
    const around = performance.now() - before;
    expect(result.ms).toBeGreaterThanOrEqual(WAIT_MS - 2);
    expect(result.ms).toBeLessThanOrEqual(Math.ceil(around));
  });

  it('builds a result the runner did not run with no controls and no observations', () => {
    const result = centralResult(
      inline(async () => refuted('never run')),
      'skipped',
      `needs a 2026-07-28 server; ${IDS.A}`,
      [],
      redactor,
    );
    expect(result).toEqual({
      id: 'test/inline',
      title: 'An inline probe',
      flaw: 'The flaw',
      severity: 'low',
      verdict: 'skipped',
      reason: 'needs a 2026-07-28 server; <identity-A>',
      controls: {},
      observations: [],
      evidence: [],
      ms: 0,
    });
  });
});
