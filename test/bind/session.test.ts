/**
 * `createSessionBinding`: a legacy session id opens its session only for the principal that
 * created it. End to end on the `session-notes` twin (`fixed` is built on it) with the official SDK
 * client as A and B: B presenting A's id, on a POST, on the GET stream or on a DELETE, gets exactly
 * the answer of an id nobody was handed; a request without an id opens nothing; A's flow still
 * works. Then the binding alone: reasons, eviction, expiry and misuse.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Client,
  StreamableHTTPClientTransport,
  type JSONRPCMessage,
} from '@modelcontextprotocol/client';
import {
  createSessionBinding,
  SESSION_REJECTIONS,
  type SessionRejection,
} from '../../src/index.js';
import { sessionNotes } from '../../harness/twins/foreign/session-notes/index.js';
import type { RunningTwin } from '../../harness/twins/foreign/twin.js';
import { EMPTY_PRINCIPALS } from './empty-principals.js';

const ALICE = 'alice-principal';
const BOB = 'bob-principal';

/** The official client, speaking 2025-11-25 (its default), as `token`. */
async function connectAs(url: string, token: string) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    authProvider: { token: async () => token },
  });
  const client = new Client({ name: 'stateguard-test', version: '0.0.0' });
  await client.connect(transport);
  return { client, transport };
}

const textOf = (r: unknown): string =>
  ((r as { content?: { text?: string }[] }).content ?? []).map((c) => c.text ?? '').join('');

/** One raw exchange as B, with the session id chosen (`null`: none). */
async function asBob(
  url: string,
  method: 'POST' | 'GET' | 'DELETE',
  session: string | null,
): Promise<{ status: number; body: string }> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${BOB}`,
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
    ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
    ...(session === null ? {} : { 'mcp-session-id': session }),
  };
  const res = await fetch(url, {
    method,
    headers,
    signal: AbortSignal.timeout(10_000),
    ...(method === 'POST'
      ? {
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 7,
            method: 'tools/call',
            params: { name: 'recap', arguments: {} },
          }),
        }
      : {}),
  });
  return { status: res.status, body: await res.text() };
}

describe('the session binding, end to end with the official SDK client', () => {
  let twin: RunningTwin;
  let alice: Awaited<ReturnType<typeof connectAs>>;
  let sidA: string;

  beforeAll(async () => {
    twin = await sessionNotes.startHttp('fixed');
    alice = await connectAs(twin.url, ALICE);
    await alice.client.callTool({ name: 'jot', arguments: { note: 'alice-secret-note' } });
    sidA = alice.transport.sessionId ?? '';
  }, 30_000);
  afterAll(async () => {
    await alice?.client.close();
    await twin?.close();
  });

  it('hands A a session id of 192 random bits', () => {
    expect(sidA).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it("refuses A's id to B exactly as an id nobody was handed, on POST, GET and DELETE", async () => {
    const unknown = createSessionBinding().mintId();
    for (const method of ['POST', 'GET', 'DELETE'] as const) {
      const foreign = await asBob(twin.url, method, sidA);
      const never = await asBob(twin.url, method, unknown);
      expect({ method, ...foreign }).toEqual({ method, ...never });
      expect(foreign.status).toBe(404);
      expect(foreign.body).not.toContain('alice');
    }
  });

  it('gives a request without a session id no session at all (no fallback to the live one)', async () => {
    const none = await asBob(twin.url, 'POST', null);
    expect(none.status).toBe(400);
    expect(none.body).not.toContain('alice');
  });

  it("refuses B the same way through the SDK client's own transport, given A's id", async () => {
    const tryWith = async (sessionId: string): Promise<string> => {
      const transport = new StreamableHTTPClientTransport(new URL(twin.url), {
        sessionId,
        protocolVersion: '2025-11-25',
        authProvider: { token: async () => BOB },
      });
      const errors: string[] = [];
      transport.onerror = (e) => errors.push(e.message);
      transport.onmessage = (_m: JSONRPCMessage) => undefined;
      await transport.start();
      const sent = await transport
        .send({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'recap', arguments: {} },
        })
        .then(
          () => 'sent',
          (e: Error) => e.message,
        );
      await transport.close();
      return sent;
    };
    const foreign = await tryWith(sidA);
    const never = await tryWith(createSessionBinding().mintId());
    expect(foreign).not.toBe('sent');
    expect(foreign).toBe(never);
  });

  it("keeps A's own flow working after B's attempts", async () => {
    const recap = await alice.client.callTool({ name: 'recap', arguments: {} });
    expect(textOf(recap)).toContain('alice-secret-note');
    expect(textOf(recap)).toContain(`opened by ${ALICE}`);
  });

  it('serves B in a session of its own, which shows nothing of A', async () => {
    const bob = await connectAs(twin.url, BOB);
    try {
      expect(bob.transport.sessionId).not.toBe(sidA);
      const recap = await bob.client.callTool({ name: 'recap', arguments: {} });
      expect(textOf(recap)).toContain(`opened by ${BOB}`);
      expect(textOf(recap)).not.toContain('alice');
    } finally {
      await bob.client.close();
    }
  });
});

describe('one principal flooding the session binding, end to end with the official SDK client', () => {
  let twin: RunningTwin;
  afterAll(async () => {
    await twin?.close();
  });

  it("keeps B's session alive while A opens more sessions than the server holds", async () => {
    twin = await sessionNotes.startHttp('fixed');
    const bob = await connectAs(twin.url, BOB);
    await bob.client.callTool({ name: 'jot', arguments: { note: 'bob-note' } });
    const flood: Awaited<ReturnType<typeof connectAs>>[] = [];
    try {
      // The twin holds 200 sessions; A opens 201, each a real initialize from the SDK client.
      for (let i = 0; i < 201; i += 1) flood.push(await connectAs(twin.url, ALICE));
      const recap = await bob.client.callTool({ name: 'recap', arguments: {} });
      expect(textOf(recap)).toContain('bob-note');
      // A's own oldest session is the one that ended: its id now answers as an unknown one.
      const oldest = flood[0]?.transport.sessionId ?? '';
      const asAlice = await fetch(twin.url, {
        method: 'GET',
        headers: {
          authorization: `Bearer ${ALICE}`,
          accept: 'text/event-stream',
          'mcp-protocol-version': '2025-11-25',
          'mcp-session-id': oldest,
        },
        signal: AbortSignal.timeout(10_000),
      });
      expect(asAlice.status).toBe(404);
      await asAlice.body?.cancel();
      const newest = await flood.at(-1)?.client.callTool({ name: 'recap', arguments: {} });
      expect(textOf(newest)).toContain(`opened by ${ALICE}`);
    } finally {
      await Promise.allSettled([bob, ...flood].map((c) => c.client.close()));
    }
  }, 60_000);
});

describe('createSessionBinding', () => {
  const recording = () => {
    const reasons: SessionRejection[] = [];
    return { reasons, onRejected: (r: SessionRejection) => reasons.push(r) };
  };

  it('opens a session for its principal only, and says why not for logs alone', () => {
    const log = recording();
    const sessions = createSessionBinding<string>(log);
    const id = sessions.mintId();
    sessions.bind(id, 'alice', 'alice-state');
    expect(sessions.resolve(id, 'alice')).toBe('alice-state');
    expect(sessions.resolve(id, { clientId: 'alice' })).toBeUndefined();
    expect(sessions.resolve(id, 'bob')).toBeUndefined();
    expect(sessions.resolve(sessions.mintId(), 'alice')).toBeUndefined();
    expect(sessions.resolve(undefined, 'alice')).toBeUndefined();
    expect(sessions.resolve(null, 'alice')).toBeUndefined();
    expect(sessions.resolve(id, undefined)).toBeUndefined();
    expect(sessions.resolve('x'.repeat(300), 'alice')).toBeUndefined();
    expect(log.reasons).toEqual([
      'principal',
      'principal',
      'unknown',
      'missing',
      'missing',
      'no-principal',
      'malformed',
    ]);
    expect(log.reasons.every((r) => (SESSION_REJECTIONS as readonly string[]).includes(r))).toBe(
      true,
    );
  });

  it.each(EMPTY_PRINCIPALS)(
    'refuses to bind a session to %s, naming its type, and never resolves a bound one for it',
    (_, empty) => {
      const log = recording();
      const sessions = createSessionBinding<string>(log);
      const id = sessions.mintId();
      expect(() => sessions.bind(sessions.mintId(), empty, 'nobody')).toThrow(
        /^a session must be bound to a principal, got (a string of length \d+|an object naming no one)$/,
      );
      expect(sessions.size).toBe(0);
      sessions.bind(id, 'alice', 'alice-state');
      expect(sessions.resolve(id, empty)).toBeUndefined();
      expect(sessions.unbind(id, empty)).toBeUndefined();
      expect(log.reasons).toEqual(['no-principal', 'no-principal']);
      expect(sessions.resolve(id, 'alice')).toBe('alice-state');
    },
  );

  it.each([
    ['a number', 42],
    ['an array of one id', ['id']],
    ['an empty array', []],
    ['an object', { length: 3 }],
    ['an object with no length', {}],
    ['a boolean', true],
    ['a megabyte string', 'x'.repeat(1 << 20)],
    ['a megabyte of three-byte characters', '€'.repeat(1 << 20)],
  ])('answers %s as a session id exactly as an unknown id, without throwing', (_, id) => {
    const log = recording();
    const sessions = createSessionBinding<string>(log);
    const known = sessions.mintId();
    sessions.bind(known, 'alice', 'alice-state');
    expect(sessions.resolve(id as never, 'alice')).toBeUndefined();
    expect(sessions.unbind(id as never, 'alice')).toBeUndefined();
    expect(log.reasons).toEqual(['malformed', 'malformed']);
    expect(sessions.resolve(known, 'alice')).toBe('alice-state');
  });

  it('ends a session only for its principal', () => {
    const sessions = createSessionBinding<number>();
    const id = sessions.mintId();
    sessions.bind(id, 'alice', 1);
    expect(sessions.unbind(id, 'bob')).toBeUndefined();
    expect(sessions.size).toBe(1);
    expect(sessions.unbind(id, 'alice')).toBe(1);
    expect(sessions.resolve(id, 'alice')).toBeUndefined();
    expect(sessions.size).toBe(0);
  });

  it('forgets a session idle past its lifetime, and the least recently used past its cap', () => {
    let now = 1_000_000;
    const log = recording();
    const sessions = createSessionBinding<string>({
      idleSeconds: 10,
      maxSessions: 2,
      now: () => now,
      ...log,
    });
    const [a, b, c] = [sessions.mintId(), sessions.mintId(), sessions.mintId()];
    sessions.bind(a, 'p', 'a');
    sessions.bind(b, 'p', 'b');
    expect(sessions.resolve(a, 'p')).toBe('a'); // a is now the most recent
    sessions.bind(c, 'p', 'c'); // evicts b
    expect(sessions.resolve(b, 'p')).toBeUndefined();
    expect(sessions.resolve(a, 'p')).toBe('a');
    now += 10_000;
    expect(sessions.resolve(c, 'p')).toBeUndefined();
    expect(log.reasons).toEqual(['unknown', 'expired']);
  });

  it("keeps another principal's session alive however many sessions one principal opens", () => {
    const sessions = createSessionBinding<string>({ maxSessions: 10 });
    const bob = sessions.mintId();
    sessions.bind(bob, 'bob', 'bob-state');
    for (let i = 0; i < 50; i += 1) sessions.bind(sessions.mintId(), 'alice', `alice-${i}`);
    expect(sessions.resolve(bob, 'bob')).toBe('bob-state');
    expect(sessions.size).toBe(10);
  });

  it("ends a principal's own least recently used session past its quota, never another's", () => {
    const log = recording();
    const sessions = createSessionBinding<string>({ maxSessionsPerPrincipal: 2, ...log });
    const [a1, a2, a3, b1] = [1, 2, 3, 4].map(() => sessions.mintId()) as [
      string,
      string,
      string,
      string,
    ];
    sessions.bind(a1, 'alice', 'a1');
    sessions.bind(b1, 'bob', 'b1');
    sessions.bind(a2, 'alice', 'a2');
    expect(sessions.resolve(a1, 'alice')).toBe('a1'); // a2 is now alice's least recently used
    sessions.bind(a3, 'alice', 'a3');
    expect(sessions.resolve(a2, 'alice')).toBeUndefined();
    expect([sessions.resolve(a1, 'alice'), sessions.resolve(a3, 'alice')]).toEqual(['a1', 'a3']);
    expect(sessions.resolve(b1, 'bob')).toBe('b1');
    expect(sessions.size).toBe(3);
    expect(log.reasons).toEqual(['unknown']);
  });

  it('hands every session it lets go of on its own to onEvicted, and no unbound one', () => {
    let now = 1_000_000;
    const evicted: string[] = [];
    const sessions = createSessionBinding<string>({
      maxSessionsPerPrincipal: 1,
      idleSeconds: 10,
      now: () => now,
      onEvicted: (value) => {
        evicted.push(value);
        throw new Error('a failing hook changes nothing');
      },
    });
    const [a1, a2, b1, c1] = [1, 2, 3, 4].map(() => sessions.mintId()) as [
      string,
      string,
      string,
      string,
    ];
    sessions.bind(a1, 'alice', 'a1');
    sessions.bind(a2, 'alice', 'a2'); // past alice's quota: a1 goes
    sessions.bind(b1, 'bob', 'b1');
    expect(sessions.unbind(b1, 'bob')).toBe('b1');
    now += 10_000;
    expect(sessions.resolve(a2, 'alice')).toBeUndefined(); // idle: a2 goes
    sessions.bind(c1, 'carol', 'c1');
    expect(evicted).toEqual(['a1', 'a2']);
    expect(sessions.resolve(c1, 'carol')).toBe('c1');
  });

  it('makes room in a full binding from the principal holding the most sessions', () => {
    const sessions = createSessionBinding<string>({ maxSessions: 4 });
    const id = (): string => sessions.mintId();
    const [b1, c1, a1, a2, d1] = [id(), id(), id(), id(), id()];
    sessions.bind(b1, 'bob', 'b1');
    sessions.bind(c1, 'carol', 'c1');
    sessions.bind(a1, 'alice', 'a1');
    sessions.bind(a2, 'alice', 'a2');
    // Full: dave's first session ends alice's oldest, though bob's and carol's are older.
    sessions.bind(d1, 'dave', 'd1');
    expect(sessions.resolve(a1, 'alice')).toBeUndefined();
    expect(
      [b1, c1, a2, d1].map((s, i) => sessions.resolve(s, ['bob', 'carol', 'alice', 'dave'][i])),
    ).toEqual(['b1', 'c1', 'a2', 'd1']);
    // All hold one: the least recently used goes (bob's, resolved first above).
    sessions.bind(id(), 'erin', 'e1');
    expect(sessions.resolve(b1, 'bob')).toBeUndefined();
    expect(sessions.resolve(c1, 'carol')).toBe('c1');
  });

  it('mints distinct url-safe ids and refuses to bind without a principal or with bad options', () => {
    const sessions = createSessionBinding<number>();
    const ids = new Set(Array.from({ length: 64 }, () => sessions.mintId()));
    expect(ids.size).toBe(64);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(() => sessions.bind('id-1', undefined as never, 1)).toThrow(TypeError);
    expect(() => sessions.bind('id-1', {}, 1)).toThrow(TypeError);
    expect(() => sessions.bind('', 'alice', 1)).toThrow(TypeError);
    expect(() => createSessionBinding({ idleSeconds: 0 })).toThrow(RangeError);
    expect(() => createSessionBinding({ maxSessions: Number.NaN })).toThrow(RangeError);
    expect(() => createSessionBinding({ maxSessionsPerPrincipal: 0 })).toThrow(
      /^maxSessionsPerPrincipal must be a finite number of at least 1, got number$/,
    );
    expect(() => createSessionBinding({ maxSessionsPerPrincipal: '5' as never })).toThrow(
      /got string$/,
    );
  });
});
