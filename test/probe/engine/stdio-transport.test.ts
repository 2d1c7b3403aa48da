import { describe, expect, it, vi } from 'vitest';
import { openSession } from '../../../src/probe/target/session.js';
import type { OpenedSession } from '../../../src/probe/target/session.js';
import type { Evidence } from '../../../src/probe/model/evidence.js';
import { IDS, labelOf, sessionOptions, stdioTarget } from './helpers.js';

async function withSession(
  scenario: string,
  use: (opened: OpenedSession) => Promise<void>,
  timeoutMs = 4000,
): Promise<void> {
  const opened = await openSession(stdioTarget(scenario), sessionOptions({ timeoutMs }));
  try {
    await use(opened);
  } finally {
    await opened.session.close();
  }
}

function received(e: Evidence): unknown[] {
  if (e.kind !== 'jsonrpc') throw new Error(`expected jsonrpc evidence, got ${e.kind}`);
  return e.received;
}

const echo = (text: string) => ({ name: 'echo', arguments: { text } });

describe('the stdio channel', () => {
  it('detects a modern server and sends the identity in params._meta under the principal key', async () => {
    await withSession('modern', async ({ session, problem }) => {
      expect(problem).toBeUndefined();
      expect(session.protocol).toMatchObject({
        era: 'modern',
        discover: true,
        protocolVersion: '2026-07-28',
      });
      const { outcome } = await session.request('tools/call', echo('hi'), {
        identity: 'B',
        label: 'who',
      });
      expect(outcome.kind).toBe('result');
      const text = JSON.stringify(outcome);
      expect(text).toContain(IDS.B);
      expect(text).toContain('io.modelcontextprotocol/protocolVersion');
    });
  });

  it('falls back to initialize for a legacy server that answers server/discover with -32601', async () => {
    await withSession('legacy', async ({ session, evidence }) => {
      expect(session.protocol).toMatchObject({ era: 'legacy', protocolVersion: '2025-11-25' });
      expect(evidence.map(labelOf)).toEqual([
        'era: server/discover',
        'era: modern tools/list',
        'era: legacy initialize',
        'tools/list (legacy)',
      ]);
      expect(session.protocol.tools).toHaveLength(2);
    });
  });

  it('gives a slow-starting child its startup allowance on the first request only', async () => {
    const slow = await openSession(
      stdioTarget('slow-start'),
      sessionOptions({ timeoutMs: 500, startupTimeoutMs: 8000 }),
    );
    try {
      expect(slow.problem).toBeUndefined();
      expect(slow.session.protocol.era).toBe('modern');
    } finally {
      await slow.session.close();
    }
    const impatient = await openSession(
      stdioTarget('slow-start'),
      sessionOptions({ timeoutMs: 500, startupTimeoutMs: 0 }),
    );
    try {
      const first = impatient.evidence[0];
      expect(first?.kind === 'jsonrpc' ? first.error : undefined).toMatch(/within 500 ms/);
    } finally {
      await impatient.session.close();
    }
  });

  it('recognises a modern server without server/discover by its tools/list resultType', async () => {
    await withSession('modern-no-discover', async ({ session }) => {
      expect(session.protocol).toMatchObject({ era: 'modern', discover: false });
    });
  });

  it('records a server→client request reusing our id and a notification, and still finds the answer', async () => {
    await withSession('request-first', async ({ session }) => {
      const { outcome, evidence } = await session.request('tools/call', echo('x'), {
        identity: 'A',
        label: 'x',
      });
      expect(outcome.kind).toBe('result');
      const got = received(evidence);
      expect(got[0]).toMatchObject({ method: 'roots/list' });
      expect(got[1]).toMatchObject({ method: 'notifications/progress' });
      expect(got).toHaveLength(3);
    });
  });

  it('ends a request with a closed failure when the server crashes mid-answer, and every later one too', async () => {
    await withSession('crash-mid-answer', async ({ session }) => {
      const first = await session.request('tools/call', echo('x'), {
        identity: 'A',
        label: 'crash',
      });
      expect(first.outcome).toMatchObject({ kind: 'failure', failure: 'closed' });
      if (first.outcome.kind === 'failure') expect(first.outcome.detail).toContain('code 3');
      const later = await session.request('tools/list', {}, { identity: 'A', label: 'after' });
      expect(later.outcome).toMatchObject({ kind: 'failure', failure: 'closed' });
    });
  });

  it('names a missing command as a spawn failure and a target problem', async () => {
    const opened = await openSession(
      { kind: 'stdio', command: 'stateguard-no-such-command-31337', args: [] },
      sessionOptions(),
    );
    expect(opened.session.protocol.era).toBe('unknown');
    expect(opened.problem).toContain('ENOENT');
    const later = await opened.session.request('tools/list', {}, { identity: 'A', label: 'x' });
    expect(later.outcome).toMatchObject({ kind: 'failure', failure: 'spawn' });
    await opened.session.close();
  });

  it('treats garbage on stdout as no answer, and names what did not answer', async () => {
    await withSession(
      'garbage',
      async ({ session, problem }) => {
        expect(session.protocol.era).toBe('unknown');
        expect(problem).toContain('initialize (timeout');
        // The child ends its stream after this garbage: the request ends on that event (the bound is
        // only a backstop), and every line written before it has been read by then.
        const { outcome, evidence } = await session.request('tools/call', echo('x'), {
          identity: 'A',
          label: 'g',
          timeoutMs: 15_000,
        });
        expect(outcome).toMatchObject({ kind: 'failure', failure: 'closed' });
        expect(received(evidence)).toContain('this is not json');
      },
      400,
    );
  });

  it('caps a line longer than the answer limit as oversize', async () => {
    await withSession('huge-line', async ({ session }) => {
      const { outcome } = await session.request('tools/call', echo('x'), {
        identity: 'A',
        label: 'huge',
      });
      expect(outcome).toMatchObject({ kind: 'failure', failure: 'oversize' });
    });
  });

  it('bounds an absurdly nested answer so the outcome and evidence serialise', async () => {
    await withSession('nested', async ({ session }) => {
      const { outcome, evidence } = await session.request('tools/call', echo('x'), {
        identity: 'A',
        label: 'n',
      });
      expect(outcome.kind).toBe('result');
      expect(() => JSON.stringify(outcome)).not.toThrow();
      expect(JSON.stringify(evidence)).toContain('<truncated: nested too deep>');
    });
  });

  it('keeps the lines the child writes to stderr for the evidence', async () => {
    await withSession('stderr-echo', async ({ session }) => {
      session.takeStderr();
      await session.request('tools/call', echo('x'), { identity: 'A', label: 's' });
      await session.request('tools/list', {}, { identity: 'A', label: 'flush' });
      const lines = session.takeStderr();
      expect(lines.join('\n')).toContain(`serving caller ${IDS.A}`);
    });
  });

  it('kills a server that ignores stdin EOF and SIGTERM when the session closes', async () => {
    const opened = await openSession(
      stdioTarget('hang-stubborn'),
      sessionOptions({ timeoutMs: 300 }),
    );
    expect(opened.problem).toContain('timeout');
    let stderr = '';
    const pid = await vi.waitFor(
      () => {
        stderr += opened.session.takeStderr().join('\n');
        const found = Number(/ready pid=(\d+)/.exec(stderr)?.[1]);
        if (!(found > 0)) throw new Error('not ready yet');
        return found;
      },
      { timeout: 10_000, interval: 50 },
    );
    await opened.session.close();
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    const again = await opened.session.request(
      'tools/list',
      {},
      { identity: 'A', label: 'after close' },
    );
    expect(again.outcome).toMatchObject({ kind: 'failure', failure: 'closed' });
  });
});
