import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSession } from '../../../src/probe/target/session.js';
import { AbortCause } from '../../../src/probe/target/jsonrpc.js';
import type { EngineSession } from '../../../src/probe/target/session.js';
import type { Evidence } from '../../../src/probe/model/evidence.js';
import type { Exchange } from '../../../src/probe/model/wire.js';
import { startHttpServer } from '../../servers/http-server.js';
import type { Scenario, TestHttpServer } from '../../servers/http-server.js';
import { IDS, labelOf, sessionOptions } from './helpers.js';

const progress = {
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: 1, progress: 0.5 },
};

// tools/call's `arguments.text` picks how the server misbehaves on that one call.
const misbehave: Scenario = ({ message, answer }) => {
  if (message.method !== 'tools/call') return undefined;
  const mode = (message.params?.arguments as { text?: string } | undefined)?.text;
  const rpcError = {
    jsonrpc: '2.0',
    id: message.id,
    error: { code: -32602, message: 'Invalid or expired requestState' },
  };
  switch (mode) {
    case 'sse-notification-first':
      return { sse: [progress, answer] };
    case 'sse-request-same-id':
      return {
        sse: [
          { jsonrpc: '2.0', id: message.id, method: 'elicitation/create', params: {} },
          progress,
          answer,
        ],
      };
    case 'sse-flood':
      return { sse: [...Array.from({ length: 20_000 }, () => progress), answer] };
    case 'sse-no-answer':
      return { sse: [progress] };
    case 'error-400':
      return { status: 400, json: rpcError };
    case 'error-200':
      return { status: 200, json: rpcError };
    case 'empty-500':
      return { status: 500, raw: '' };
    case 'html-500':
      return {
        status: 500,
        raw: '<html><body>Internal Server Error</body></html>',
        contentType: 'text/html',
      };
    case 'html-200':
      return { status: 200, raw: '<html>ok</html>', contentType: 'text/html' };
    case 'result-502':
      return { status: 502, json: { jsonrpc: '2.0', id: 999, result: {} } };
    case 'error-500':
      return {
        status: 500,
        json: {
          jsonrpc: '2.0',
          id: message.id,
          error: { code: -32603, message: 'Internal error' },
        },
      };
    case 'error-503-sse':
      return { status: 503, sse: [progress, rpcError] };
    case 'answer-500':
      return { status: 500, json: answer };
    case 'drop':
      return 'drop';
    case 'drop-mid':
      return 'drop-mid';
    case 'hang':
      return 'hang';
    case 'huge':
      return { hugeBytes: 2 * 1024 * 1024 };
    case 'nested': {
      const depth = 100_000;
      const raw = `{"jsonrpc":"2.0","id":${message.id},"result":{"deep":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
      return { status: 200, raw, contentType: 'application/json' };
    }
    default:
      return undefined;
  }
};

function call(
  session: EngineSession,
  text: string,
  identity: 'A' | 'B' = 'A',
  timeoutMs = 1500,
): Promise<Exchange> {
  return session.request(
    'tools/call',
    { name: 'echo', arguments: { text } },
    { identity, label: text, timeoutMs },
  );
}

function httpEvidence(e: Evidence): Extract<Evidence, { kind: 'http' }> {
  if (e.kind !== 'http') throw new Error(`expected http evidence, got ${e.kind}`);
  return e;
}

describe('the HTTP channel against a modern server', () => {
  let server: TestHttpServer;
  let session: EngineSession;
  beforeAll(async () => {
    server = await startHttpServer('modern', misbehave);
    ({ session } = await openSession({ kind: 'http', url: server.url }, sessionOptions()));
  });
  afterAll(async () => {
    await session?.close();
    await server?.close();
  });

  it('detects the modern era through server/discover and lists the tools', () => {
    expect(session.protocol.era).toBe('modern');
    expect(session.protocol.discover).toBe(true);
    expect(session.protocol.protocolVersion).toBe('2026-07-28');
    expect(session.protocol.serverInfo).toEqual({ name: 'tiny', version: '1.0.0' });
    expect(session.protocol.tools.map((t) => t.name)).toEqual(['echo', 'delete_everything']);
  });

  it('sends the 2026-07-28 envelope, the Mcp headers and the identity as a bearer token', async () => {
    const before = server.seen.length;
    await call(session, 'plain', 'B');
    const seen = server.seen[before]!;
    expect(seen.headers['mcp-protocol-version']).toBe('2026-07-28');
    expect(seen.headers['mcp-method']).toBe('tools/call');
    expect(seen.headers['mcp-name']).toBe('echo');
    expect(seen.headers.accept).toBe('application/json, text/event-stream');
    expect(seen.headers['content-type']).toBe('application/json');
    expect(seen.headers.authorization).toBe(`Bearer ${IDS.B}`);
    const meta = seen.message.params?._meta as Record<string, unknown>;
    expect(meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
    expect(meta['io.modelcontextprotocol/clientCapabilities']).toEqual({
      elicitation: { form: {} },
      sampling: {},
      roots: {},
    });
    expect(meta['io.modelcontextprotocol/clientInfo']).toEqual({
      name: 'stateguard-test',
      version: '0.0.0',
    });
  });

  it('reads an SSE answer that a progress notification precedes, and keeps the notification', async () => {
    const { outcome, evidence } = await call(session, 'sse-notification-first');
    expect(outcome.kind).toBe('result');
    expect(httpEvidence(evidence).received).toHaveLength(2);
    expect(httpEvidence(evidence).received?.[0]).toMatchObject({
      method: 'notifications/progress',
    });
  });

  it('never takes a server→client request that reuses the client id for the answer', async () => {
    const { outcome, evidence } = await call(session, 'sse-request-same-id');
    expect(outcome.kind).toBe('result');
    if (outcome.kind === 'result') expect(outcome.result.content).toBeDefined();
    expect(httpEvidence(evidence).received?.[0]).toMatchObject({ method: 'elicitation/create' });
  });

  it('reads a JSON-RPC error as the server decision on HTTP 400 and on HTTP 200 alike', async () => {
    for (const mode of ['error-400', 'error-200']) {
      const { outcome } = await call(session, mode);
      expect(outcome).toMatchObject({
        kind: 'error',
        code: -32602,
        message: 'Invalid or expired requestState',
      });
    }
  });

  it('reads an empty 500, an HTML 500 or a 5xx without our answer as a failure, never a decision', async () => {
    expect((await call(session, 'empty-500')).outcome).toMatchObject({
      kind: 'failure',
      failure: 'http-status',
    });
    const html = await call(session, 'html-500');
    expect(html.outcome).toMatchObject({ kind: 'failure', failure: 'http-status' });
    expect(httpEvidence(html.evidence).response?.body).toContain('Internal Server Error');
    expect((await call(session, 'result-502')).outcome).toMatchObject({
      kind: 'failure',
      failure: 'http-status',
    });
    expect((await call(session, 'html-200')).outcome).toMatchObject({
      kind: 'failure',
      failure: 'not-json',
    });
  });

  it('reads a JSON-RPC answer to our id on a 5xx, as JSON or as SSE, as a failure, never a decision', async () => {
    for (const mode of ['error-500', 'answer-500']) {
      const { outcome, evidence } = await call(session, mode);
      expect(outcome).toMatchObject({ kind: 'failure', failure: 'http-status' });
      if (outcome.kind === 'failure') expect(outcome.detail).toMatch(/^HTTP 500 carrying /);
      // The answer itself is still kept as evidence of what the server said.
      expect(httpEvidence(evidence).received?.length).toBeGreaterThan(0);
    }
    // A 503 is load shed: sent again (it never lets up here), then a failure that says so.
    const { outcome, evidence, earlier } = await call(session, 'error-503-sse');
    expect(outcome).toMatchObject({ kind: 'failure', failure: 'shed' });
    if (outcome.kind === 'failure') expect(outcome.detail).toMatch(/shed load: HTTP 503 ×4/);
    expect(httpEvidence(evidence).received?.length).toBeGreaterThan(0);
    expect(earlier?.filter((e) => e.kind === 'http')).toHaveLength(3);
  }, 10_000);

  it('reads a dropped connection, before or during the answer, as a failure', async () => {
    expect((await call(session, 'drop')).outcome).toMatchObject({
      kind: 'failure',
      failure: 'transport',
    });
    expect((await call(session, 'drop-mid')).outcome).toMatchObject({
      kind: 'failure',
      failure: 'closed',
    });
  });

  it('caps a flood of notifications before the answer as oversize', async () => {
    // The cap is about size, not time: a loaded machine may take seconds to parse 20,000 events.
    const { outcome, evidence } = await call(session, 'sse-flood', 'A', 20_000);
    expect(outcome).toMatchObject({ kind: 'failure', failure: 'oversize' });
    expect(JSON.stringify(evidence).length).toBeLessThan(100_000);
  });

  it('reads an event stream that ends without an answer as a failure', async () => {
    expect((await call(session, 'sse-no-answer')).outcome).toMatchObject({
      kind: 'failure',
      failure: 'closed',
    });
  });

  it('ends a hanging call with a timeout failure that names the call', async () => {
    const { outcome } = await call(session, 'hang');
    expect(outcome).toMatchObject({ kind: 'failure', failure: 'timeout' });
    if (outcome.kind === 'failure') expect(outcome.detail).toContain("tools/call 'hang' as A");
  });

  it('ends with a deadline failure when the caller aborts the request', async () => {
    const stop = new AbortController();
    const pending = session.request(
      'tools/call',
      { name: 'echo', arguments: { text: 'hang' } },
      {
        identity: 'A',
        label: 'cut',
        timeoutMs: 60_000,
        signal: stop.signal,
      },
    );
    setTimeout(() => stop.abort(new AbortCause('deadline', 'the scan deadline passed')), 50);
    expect((await pending).outcome).toMatchObject({ kind: 'failure', failure: 'deadline' });
  });

  it('caps a huge answer as oversize instead of reading it all', async () => {
    expect((await call(session, 'huge')).outcome).toMatchObject({
      kind: 'failure',
      failure: 'oversize',
    });
  });

  it('bounds an absurdly nested answer in the outcome and the evidence, which still serialise', async () => {
    const { outcome, evidence } = await call(session, 'nested');
    expect(outcome.kind).toBe('result');
    expect(() => JSON.stringify(outcome)).not.toThrow();
    const text = JSON.stringify(evidence);
    expect(text).toContain('<truncated: nested too deep>');
    expect(text.length).toBeLessThan(20_000);
  });

  it('redacts both identities from the evidence, wherever the server echoes them', async () => {
    const a = await call(session, 'echo-auth', 'A');
    const b = await call(session, 'echo-auth', 'B');
    for (const { evidence } of [a, b]) {
      const text = JSON.stringify(evidence);
      expect(text).not.toContain(IDS.A);
      expect(text).not.toContain(IDS.B);
    }
    expect(httpEvidence(a.evidence).request.headers.authorization).toBe('Bearer <identity-A>');
    expect(JSON.stringify(b.evidence)).toContain('<identity-B>');
  });
});

describe('era detection over HTTP', () => {
  it('recognises a modern server without server/discover by the resultType of its tools/list', async () => {
    const server = await startHttpServer('modern-no-discover');
    const { session } = await openSession({ kind: 'http', url: server.url }, sessionOptions());
    try {
      expect(session.protocol).toMatchObject({
        era: 'modern',
        discover: false,
        protocolVersion: '2026-07-28',
      });
      expect(session.protocol.tools).toHaveLength(2);
    } finally {
      await session.close();
      await server.close();
    }
  });

  it('falls back to initialize for a legacy server and then speaks its version with its session id', async () => {
    const server = await startHttpServer('legacy');
    const { session, evidence, problem } = await openSession(
      { kind: 'http', url: server.url },
      sessionOptions(),
    );
    try {
      expect(problem).toBeUndefined();
      expect(session.protocol).toMatchObject({
        era: 'legacy',
        protocolVersion: '2025-11-25',
        discover: false,
      });
      expect(session.protocol.serverInfo?.name).toBe('tiny-legacy');
      expect(evidence.map(labelOf)).toContain('era: legacy initialize');
      expect(server.seen.some((s) => s.message.method === 'notifications/initialized')).toBe(true);
      const list = server.seen.filter((s) => s.message.method === 'tools/list').at(-1)!;
      expect(list.headers['mcp-protocol-version']).toBe('2025-11-25');
      expect(list.headers['mcp-session-id']).toBe('legacy-session-1');
      expect(session.protocol.tools).toHaveLength(2);
    } finally {
      await session.close();
      await server.close();
    }
  });

  it('names a closed port as a target problem instead of guessing an era', async () => {
    const server = await startHttpServer('modern');
    const url = server.url;
    await server.close();
    const { session, problem } = await openSession({ kind: 'http', url }, sessionOptions());
    expect(session.protocol.era).toBe('unknown');
    expect(problem).toContain('connection refused');
    await session.close();
  });
});
