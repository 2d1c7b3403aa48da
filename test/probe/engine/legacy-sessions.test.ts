/**
 * The engine's hold on a 2025-11-25 server's sessions: a request presents the identity's own
 * `Mcp-Session-Id`, a chosen one, or none; a `DELETE` ends one and the next request opens another;
 * the GET event stream is read bounded in time and in bytes, also from a server that writes nothing
 * until its first event; and evidence names session ids instead of showing them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSession, type EngineSession } from '../../../src/probe/target/session.js';
import type { Evidence } from '../../../src/probe/model/evidence.js';
import type { LegacySessions } from '../../../src/probe/model/wire.js';
import { startHttp, type RunningHttp } from '../../helpers/http.js';
import { sessionOptions } from './helpers.js';

interface Seen {
  readonly method: string;
  readonly rpc?: string;
  readonly session?: string;
}

/**
 * A legacy server: `initialize` hands out `sess-<n>-<random>`; a POST answers `tools/list`; a GET
 * on `sess-1…` holds its headers until a POST arrives, then sends one event; a GET on any other
 * live session flushes its headers and sends events forever, every 5 ms; an unknown id is 404.
 */
function legacyStub(seen: Seen[]) {
  const live = new Set<string>();
  const waiting: ServerResponse[] = [];
  let n = 0;
  return (req: IncomingMessage, res: ServerResponse): void => {
    const session = req.headers['mcp-session-id'] as string | undefined;
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const message = body ? (JSON.parse(body) as { id?: number; method: string }) : undefined;
      seen.push({
        method: req.method ?? '',
        ...(message ? { rpc: message.method } : {}),
        ...(session ? { session } : {}),
      });
      for (const w of waiting.splice(0)) w.write(`data: {"jsonrpc":"2.0","method":"ping"}\n\n`);
      if (message?.method === 'initialize') {
        const sid = `sess-${++n}-${Math.random().toString(36).slice(2, 12)}`;
        live.add(sid);
        res.setHeader('mcp-session-id', sid);
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: message.id,
            result: {
              protocolVersion: '2025-11-25',
              capabilities: {},
              serverInfo: { name: 'stub', version: '0' },
            },
          }),
        );
        return;
      }
      if (message?.method === 'server/discover' || message?.method === 'tools/list') {
        if (message.method === 'server/discover' || session === undefined) {
          res.statusCode = 400;
          res.end('{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"bad"}}');
          return;
        }
      }
      if (session === undefined || !live.has(session)) {
        res.statusCode = message === undefined && session === undefined ? 400 : 404;
        res.setHeader('content-type', 'application/json');
        res.end(
          '{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}',
        );
        return;
      }
      if (req.method === 'DELETE') {
        live.delete(session);
        res.end();
        return;
      }
      if (req.method === 'GET') {
        res.setHeader('content-type', 'text/event-stream');
        if (session.startsWith('sess-1-')) {
          waiting.push(res);
          return;
        }
        res.flushHeaders();
        const timer = setInterval(() => res.write(`data: {"n":"${'x'.repeat(200)}"}\n\n`), 5);
        res.on('close', () => clearInterval(timer));
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message?.id, result: { tools: [] } }));
    });
  };
}

describe('legacy sessions on the wire', () => {
  const seen: Seen[] = [];
  let server: RunningHttp;
  let session: EngineSession;
  let evidence: Evidence[];
  let sessions: LegacySessions;

  beforeAll(async () => {
    server = await startHttp(legacyStub(seen));
    const opened = await openSession({ kind: 'http', url: `${server.url}/mcp` }, sessionOptions());
    session = opened.session;
    evidence = opened.evidence;
    if (session.sessions === undefined) throw new Error('no legacy sessions on an HTTP session');
    sessions = session.sessions;
  });
  afterAll(async () => {
    await session?.close();
    await server?.close();
  });

  const last = (): Seen | undefined => seen.at(-1);

  it('presents the identity’s own session id, a chosen one, or none', async () => {
    expect(session.protocol.era).toBe('legacy');
    const sidA = sessions.idOf('A');
    expect(sidA).toMatch(/^sess-1-/);
    await session.request('tools/list', {}, { identity: 'A', label: 'own' });
    expect(last()).toMatchObject({ rpc: 'tools/list', session: sidA });
    await session.request(
      'tools/list',
      {},
      { identity: 'B', label: 'as B with A’s', session: sidA! },
    );
    expect(last()).toMatchObject({ rpc: 'tools/list', session: sidA });
    // A chosen session: B was not initialized on the way.
    expect(sessions.idOf('B')).toBeUndefined();
    const none = await session.request(
      'tools/list',
      {},
      { identity: 'B', label: 'none', session: null },
    );
    expect(last()?.session).toBeUndefined();
    expect(none.evidence.kind === 'http' && none.evidence.response?.status).toBe(400);
    await session.request('tools/list', {}, { identity: 'B', label: 'B own' });
    expect(sessions.idOf('B')).toMatch(/^sess-2-/);
  });

  it('names session ids in evidence instead of showing them', async () => {
    const sidA = sessions.idOf('A')!;
    const e = await session.request(
      'tools/list',
      {},
      { identity: 'B', label: 'named', session: sidA },
    );
    expect(JSON.stringify([...evidence, e.evidence])).not.toContain(sidA);
    expect(e.evidence.kind === 'http' && e.evidence.request.headers['mcp-session-id']).toBe(
      '<session-A>',
    );
  });

  it('reads a stream that holds its headers until the event the probe provokes', async () => {
    const reading = await sessions.listen({
      identity: 'B',
      label: 'held stream',
      session: sessions.idOf('A')!,
      windowMs: 200,
      maxBytes: 4096,
      during: () => session.request('tools/list', {}, { identity: 'A', label: 'provoke' }),
    });
    expect(reading.status).toBe(200);
    expect(reading.end).toBe('window');
    expect(reading.events).toEqual([{ jsonrpc: '2.0', method: 'ping' }]);
    expect(reading.evidence.kind === 'http' && reading.evidence.request.method).toBe('GET');
  });

  it('stops reading an endless stream at its byte bound, and an unknown id is refused', async () => {
    const endless = await sessions.listen({
      identity: 'B',
      label: 'endless stream',
      windowMs: 60_000,
      maxBytes: 2048,
    });
    expect(endless.end).toBe('oversize');
    expect(endless.events.length).toBeGreaterThan(0);
    const unknown = await sessions.listen({
      identity: 'B',
      label: 'unknown',
      session: 'sess-9-nobody',
      windowMs: 200,
      maxBytes: 2048,
    });
    expect({ end: unknown.end, status: unknown.status }).toEqual({ end: 'refused', status: 404 });
  });

  it('ends a session with DELETE, and the next request opens a new one', async () => {
    const sidB = sessions.idOf('B')!;
    const ended = await sessions.terminate('B', 'end B');
    expect(ended.outcome.kind).toBe('result');
    expect(last()).toMatchObject({ method: 'DELETE', session: sidB });
    expect(sessions.idOf('B')).toBeUndefined();
    await session.request('tools/list', {}, { identity: 'B', label: 'B again' });
    expect(sessions.idOf('B')).toMatch(/^sess-\d+-/);
    expect(sessions.idOf('B')).not.toBe(sidB);
  });
});
