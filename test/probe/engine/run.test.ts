import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { confirmed, refuted } from '../../../src/probe/model/probe.js';
import { createRedactor } from '../../../src/probe/evidence/evidence.js';
import { runProbe } from '../../../src/probe/runner/run.js';
import { openSession } from '../../../src/probe/target/session.js';
import type { EngineSession } from '../../../src/probe/target/session.js';
import type { Outcome } from '../../../src/probe/model/wire.js';
import { startHttpServer } from '../../servers/http-server.js';
import type { TestHttpServer } from '../../servers/http-server.js';
import { IDS, labelOf, sessionOptions, inline } from './helpers.js';

const echo = (text: string) => ({ name: 'echo', arguments: { text } });
const options = { includeDestructive: false, redactor: createRedactor(IDS), capMs: 5000 };

describe('the runner', () => {
  let server: TestHttpServer;
  let session: EngineSession;
  beforeAll(async () => {
    server = await startHttpServer('modern', ({ message }) =>
      (message.params?.arguments as { text?: string } | undefined)?.text === 'hang'
        ? 'hang'
        : undefined,
    );
    ({ session } = await openSession({ kind: 'http', url: server.url }, sessionOptions()));
  });
  afterAll(async () => {
    await session?.close();
    await server?.close();
  });

  it('keeps a verdict whose controls all held, with every exchange as evidence', async () => {
    const result = await runProbe(
      inline(async (ctx) => {
        await ctx.request('tools/call', echo('one'), { identity: 'A', label: 'first' });
        ctx.control('live', { held: true, expected: 'an answer', observed: 'an answer' });
        return refuted('nothing wrong');
      }),
      session,
      options,
    );
    expect(result).toMatchObject({
      id: 'test/inline',
      verdict: 'refuted',
      reason: 'nothing wrong',
    });
    expect(result.evidence.map(labelOf)).toEqual(['first']);
  });

  it('turns confirmed into errored naming the control that did not hold', async () => {
    const result = await runProbe(
      inline(async (ctx) => {
        ctx.control('bIsLive', {
          held: false,
          expected: 'B reads its own handle',
          observed: 'timeout',
        });
        ctx.control('forgedRefused', { held: true, expected: 'refused', observed: 'refused' });
        return confirmed('A canary reached B');
      }),
      session,
      options,
    );
    expect(result.verdict).toBe('errored');
    expect(result.reason).toBe(
      'control bIsLive did not hold: expected B reads its own handle; observed timeout',
    );
    expect(JSON.stringify(result.evidence)).toContain("the probe's own reading was confirmed");
  });

  it('turns refuted into errored too, naming the first control that did not hold and the others', async () => {
    // A refutation drawn while a control failed would read as green: it must never stand.
    const result = await runProbe(
      inline(async (ctx) => {
        ctx.control('forgedHandleDecided', {
          held: false,
          expected: 'a decision',
          observed: '500',
        });
        ctx.control('serverTellsApart', { held: true, expected: 'A-only tokens', observed: '2' });
        ctx.control('bothIdentitiesLive', {
          held: false,
          expected: 'answers',
          observed: 'timeout',
        });
        return refuted('B was refused');
      }),
      session,
      options,
    );
    expect(result.verdict).toBe('errored');
    expect(result.reason).toBe(
      'control forgedHandleDecided did not hold: expected a decision; observed 500 (also: bothIdentitiesLive)',
    );
    expect(JSON.stringify(result.evidence)).toContain(
      "the probe's own reading was refuted: B was refused",
    );
  });

  it('keeps a skip when a control did not hold: the surface is absent, not the flaw shown', async () => {
    const result = await runProbe(
      inline(async (ctx) => {
        ctx.control('x', { held: false, expected: 'a', observed: 'b' });
        return { verdict: 'skipped', reason: 'no input_required anywhere' };
      }),
      session,
      options,
    );
    expect(result).toMatchObject({ verdict: 'skipped', reason: 'no input_required anywhere' });
  });

  it('refuses to send past the call budget, so the server never sees the extra call', async () => {
    const before = server.calls.echo ?? 0;
    const outcomes: Outcome[] = [];
    await runProbe(
      inline(async (ctx) => {
        for (let i = 0; i < 3; i++) {
          outcomes.push(
            (await ctx.request('tools/call', echo(`n${i}`), { identity: 'A', label: `n${i}` }))
              .outcome,
          );
        }
        return refuted('done');
      }, 2),
      session,
      options,
    );
    expect(outcomes.map((o) => o.kind)).toEqual(['result', 'result', 'failure']);
    expect(outcomes[2]).toMatchObject({ failure: 'budget' });
    expect((server.calls.echo ?? 0) - before).toBe(2);
  });

  it('never calls a destructive tool without includeDestructive, and does with it', async () => {
    const probe = inline(async (ctx) => {
      const { outcome } = await ctx.request(
        'tools/call',
        { name: 'delete_everything', arguments: {} },
        { identity: 'A', label: 'd' },
      );
      return refuted(outcome.kind);
    });
    const blocked = await runProbe(probe, session, options);
    expect(blocked.reason).toBe('failure');
    expect(server.calls.delete_everything ?? 0).toBe(0);
    const allowed = await runProbe(probe, session, { ...options, includeDestructive: true });
    expect(allowed.reason).toBe('result');
    expect(server.calls.delete_everything).toBe(1);
  });

  it('turns an exception into errored with its message, redacted', async () => {
    const result = await runProbe(
      inline(async () => {
        throw new Error(`boom while holding ${IDS.A}`);
      }),
      session,
      options,
    );
    expect(result.verdict).toBe('errored');
    expect(result.reason).toBe('the probe failed: boom while holding <identity-A>');
  });

  it('redacts what a probe writes into controls, observations and notes', async () => {
    const result = await runProbe(
      inline(async (ctx) => {
        ctx.control('c', { held: true, expected: `owner ${IDS.B}`, observed: `owner ${IDS.B}` });
        ctx.observe('echo', `server repeated ${IDS.A}`);
        ctx.note(`Authorization: Bearer ${IDS.A}`);
        return refuted(`B is ${IDS.B}`);
      }),
      session,
      options,
    );
    const text = JSON.stringify(result);
    expect(text).not.toContain(IDS.A);
    expect(text).not.toContain(IDS.B);
    expect(result.reason).toBe('B is <identity-B>');
  });

  it('cuts a probe at its time cap: the request in flight fails with deadline and the verdict is errored', async () => {
    let seen: Outcome | undefined;
    let after: Outcome | undefined;
    const result = await runProbe(
      inline(async (ctx) => {
        seen = (
          await ctx.request('tools/call', echo('hang'), {
            identity: 'B',
            label: 'stuck',
            timeoutMs: 60_000,
          })
        ).outcome;
        after = (await ctx.request('tools/call', echo('late'), { identity: 'B', label: 'late' }))
          .outcome;
        return refuted('should not count');
      }),
      session,
      { ...options, capMs: 300 },
    );
    expect(result.verdict).toBe('errored');
    expect(result.reason).toContain("still waiting on tools/call 'stuck' as B");
    await vi.waitFor(() => expect(after).toBeDefined(), { timeout: 5000 });
    expect(seen).toMatchObject({ kind: 'failure', failure: 'deadline' });
    expect(after).toMatchObject({ kind: 'failure', failure: 'deadline' });
  });

  it('reads a verdict outside the four as errored', async () => {
    const result = await runProbe(
      inline(async () => ({ verdict: 'maybe' as never, reason: '?' })),
      session,
      options,
    );
    expect(result.verdict).toBe('errored');
  });
});
