/**
 * Issue 9: every way the binding or the guard failed open, replayed end to end through the
 * official SDK client and server over HTTP on 127.0.0.1. Each test asserts what the attacker sees
 * and how many times the handler's side effect ran; each failed on the code before the fix.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  inputRequired,
  McpServer,
  Server,
  type OAuthTokenVerifier,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { StateRejection } from '../../src/errors.js';
import { createReportHttpListener, demoVerifier } from '../../harness/examples/http.js';
import { createMemoryLedger } from '../../src/ledger/memory.js';
import {
  createStateGuard,
  principalFromClientIdOnly,
  type StateGuardOptions,
} from '../../src/sdk/index.js';
import { startHttp, type RunningHttp } from '../helpers/http.js';
import { attempt, connectHttp } from '../helpers/mcp-client.js';
import { answer, createReport, REFUSED, stateOf, textOf } from './flow.js';

const KEY = randomBytes(32).toString('base64url');
const INTERNAL = { ok: false, code: -32603, message: 'Internal error' };
const running: RunningHttp[] = [];
const clients: Client[] = [];

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await Promise.allSettled(running.map((h) => h.close()));
});

async function connect(url: string, token?: string): Promise<Client> {
  const client = await connectHttp(url, token);
  clients.push(client);
  return client;
}

/** The create_report wizard behind the SDK's bearer auth, counting calls and reports. */
async function wizard(
  options: Partial<StateGuardOptions>,
  verifier: OAuthTokenVerifier = demoVerifier(['alice', 'bob']),
) {
  const rejections: StateRejection[] = [];
  let calls = 0;
  let created = 0;
  const guard = createStateGuard({
    transport: 'http',
    keys: [KEY],
    audience: 'reports',
    onReject: (event) => rejections.push(event.reason),
    ...options,
  });
  const http = await startHttp(
    createReportHttpListener({
      guard,
      verifier,
      hooks: { onCall: () => (calls += 1), onCreate: () => (created += 1) },
    }),
  );
  running.push(http);
  return {
    as: (token: string) => connect(`${http.url}/mcp`, token),
    rejections,
    calls: () => calls,
    created: () => created,
  };
}

/** Rounds one and two of the wizard: the state of the final round. */
async function finalRoundState(client: Client): Promise<string> {
  const first = await createReport(client);
  const second = await createReport(client, {
    requestState: stateOf(first),
    inputResponses: answer('dataset', 'sales'),
  });
  return stateOf(second);
}

const FINAL = (requestState: string) => ({
  requestState,
  inputResponses: answer('range', 'Q3'),
});

describe('finding 1: the HTTP principal needs a subject, not the OAuth client alone', () => {
  /**
   * A verifier in the SDK's own shape: every user of the desktop app presents a token of the same
   * public client, and `AuthInfo` has no subject field.
   */
  const publicClient = (extra?: Record<string, unknown>): OAuthTokenVerifier => ({
    async verifyAccessToken(token) {
      return {
        token,
        clientId: 'desktop-app',
        scopes: [],
        expiresAt: Math.floor(Date.now() / 1000) + 3600,
        ...(extra !== undefined && { extra }),
      };
    },
  });

  it.each([
    ['no extra at all', undefined],
    ['a subject but no issuer', { sub: 'alice' }],
    ['an issuer but no subject', { iss: 'https://issuer.example' }],
  ])(
    "refuses every guarded call from a token with %s (-32603), so bob never continues alice's flow",
    async (_label, extra) => {
      const server = await wizard({}, publicClient(extra));
      const alice = await server.as('alice-token');
      const bob = await server.as('bob-token');
      // On the old code alice got a state bound to "desktop-app", and bob's final round created a report.
      expect(await createReport(alice)).toMatchObject(INTERNAL);
      expect(await createReport(bob, FINAL('v1.AAAA'))).toMatchObject(INTERNAL);
      expect(server.calls()).toBe(0);
      expect(server.created()).toBe(0);
      expect(server.rejections).toEqual(['principal-unavailable', 'principal-unavailable']);
    },
  );

  it('binds the client alone only through principalFromClientIdOnly, chosen by name', async () => {
    const server = await wizard({ principal: principalFromClientIdOnly }, publicClient());
    const state = await finalRoundState(await server.as('alice-token'));
    // What the explicit resolver means: one principal for every user of the client.
    expect(textOf(await createReport(await server.as('bob-token'), FINAL(state)))).toContain(
      'created',
    );
    expect(server.created()).toBe(1);
  });
});

describe('finding 2: a guard created for stdio and served over HTTP binds the bearer token', () => {
  it("refuses bob's replay of alice's final round, creating nothing", async () => {
    const server = await wizard({ transport: 'stdio' });
    const state = await finalRoundState(await server.as('alice'));
    const callsBefore = server.calls();
    // On the old code the stdio default sealed for nobody: bob's replay created alice's report.
    expect(await createReport(await server.as('bob'), FINAL(state))).toMatchObject(REFUSED);
    expect(server.calls()).toBe(callsBefore);
    expect(server.created()).toBe(0);
    expect(server.rejections).toEqual(['principal']);
  });
});

describe('finding 3: the fallback request handler is guarded too', () => {
  /** A low-level server whose tools/call reaches the SDK's public fallback handler. */
  async function fallbackServer(order: 'before protect()' | 'after protect()') {
    const rejections: StateRejection[] = [];
    let payments = 0;
    const guard = createStateGuard({
      transport: 'http',
      keys: [KEY],
      audience: 'payments',
      onReject: (event) => rejections.push(event.reason),
    });
    const fallback = async (request: { method: string }, ctx: ServerContext) => {
      if (request.method !== 'tools/call') return {};
      const raw = ctx.mcpReq.requestState<string>();
      if (raw === undefined) {
        return inputRequired({ requestState: JSON.stringify({ step: 'confirm', amount: 5 }) });
      }
      const { amount } = JSON.parse(raw) as { amount: number };
      payments += 1;
      return { content: [{ type: 'text' as const, text: `paid ${amount}` }] };
    };
    const build = () => {
      const server = new Server(
        { name: 'payments', version: '1.0.0' },
        { capabilities: { tools: {} } },
      );
      if (order === 'before protect()') server.fallbackRequestHandler = fallback;
      guard.protect(server);
      if (order === 'after protect()') server.fallbackRequestHandler = fallback;
      return server;
    };
    const http = await startHttp(toNodeHandler(createMcpHandler(build)));
    running.push(http);
    const client = await connect(`${http.url}/mcp`);
    return { client, rejections, payments: () => payments };
  }

  it.each(['before protect()', 'after protect()'] as const)(
    'seals its state and refuses forged plaintext state, with a fallback set %s',
    async (order) => {
      const { client, rejections, payments } = await fallbackServer(order);
      const call = { name: 'pay', arguments: {} };
      const token = stateOf(await attempt(client, 'tools/call', call));
      expect(token).toMatch(/^v1\./);
      expect(token).not.toContain('amount');
      // On the old code the forged state reached the handler as is: "paid 1000000".
      const forged = JSON.stringify({ step: 'confirm', amount: 1_000_000 });
      expect(await attempt(client, 'tools/call', { ...call, requestState: forged })).toMatchObject(
        REFUSED,
      );
      expect(payments()).toBe(0);
      expect(rejections).toEqual(['malformed']);
      expect(textOf(await attempt(client, 'tools/call', { ...call, requestState: token }))).toBe(
        'paid 5',
      );
      expect(payments()).toBe(1);
    },
  );
});

describe('finding 4: arguments canonical JSON refuses are a rejection, not an oracle', () => {
  // The client's JSON.stringify writes a lone surrogate as the valid JSON escape "\ud800".
  const lone = { title: 'Q3 \ud800' };

  it("answers the frozen -32602 to alice's own live token with such arguments, logged as request", async () => {
    const server = await wizard({});
    const alice = await server.as('alice');
    const state = stateOf(await createReport(alice));
    const callsBefore = server.calls();
    // On the old code: -32603, and no onReject: the token was authentic, live, hers, for this tool.
    const retry = { requestState: state, inputResponses: answer('dataset', 'sales') };
    expect(await createReport(alice, retry, lone)).toMatchObject(REFUSED);
    expect(server.calls()).toBe(callsBefore);
    expect(server.rejections).toEqual(['request']);
  });

  it('refuses round one with such arguments before the handler runs', async () => {
    const server = await wizard({});
    // On the old code the handler ran, then sealing failed (-32603 after the side effect).
    expect(await createReport(await server.as('alice'), {}, lone)).toMatchObject(REFUSED);
    expect(server.calls()).toBe(0);
    expect(server.rejections).toEqual(['request']);
  });
});

describe('finding 5: clocks that return no usable time refuse', () => {
  it('refuses a guarded call before the handler runs when the guard clock returns NaN', async () => {
    const server = await wizard({ now: () => Number.NaN });
    // On the old code round one ran the handler, then sealing threw.
    expect(await createReport(await server.as('alice'))).toMatchObject(INTERNAL);
    expect(server.calls()).toBe(0);
    expect(server.rejections).toEqual(['clock-unavailable']);
  });

  it('refuses a replayed final round when the memory ledger clock returns NaN', async () => {
    let ledgerClock = Date.now();
    const server = await wizard({
      singleUse: {
        ledger: createMemoryLedger({ now: () => ledgerClock }),
        tools: ['create_report'],
      },
    });
    const alice = await server.as('alice');
    const state = await finalRoundState(alice);
    expect(textOf(await createReport(alice, FINAL(state)))).toContain('created');
    ledgerClock = Number.NaN;
    // On the old code every entry looked dead under NaN: the replay was a first use, a second report.
    expect(await createReport(alice, FINAL(state))).toMatchObject(INTERNAL);
    expect(server.created()).toBe(1);
    expect(server.rejections).toEqual(['ledger-unavailable']);
  });
});

describe('finding 6: the ledger keeps an id for the lifetime the guard measured', () => {
  it('refuses the final round replayed 500 s later when the guard clock runs 120 s behind', async () => {
    let clockMs = Date.now();
    const server = await wizard({
      now: () => clockMs - 120_000,
      singleUse: { ledger: createMemoryLedger({ now: () => clockMs }), tools: ['create_report'] },
    });
    const alice = await server.as('alice');
    const state = await finalRoundState(alice);
    expect(textOf(await createReport(alice, FINAL(state)))).toContain('created');
    clockMs += 500_000;
    // On the old code the ledger measured the guard's expiresAt on its own clock: forgotten after
    // 480 s, while the token (600 s on the guard's clock) still opened. A second report.
    expect(await createReport(alice, FINAL(state))).toMatchObject(REFUSED);
    expect(server.created()).toBe(1);
    expect(server.rejections).toEqual(['replayed']);
  });
});

describe('finding 7: the arguments the guard digests are capped', () => {
  async function documents(options: Partial<StateGuardOptions>) {
    const rejections: StateRejection[] = [];
    let calls = 0;
    const guard = createStateGuard({
      transport: 'http',
      keys: [KEY],
      audience: 'docs',
      onReject: (event) => rejections.push(event.reason),
      ...options,
    });
    const build = () => {
      const server = guard.protect(new McpServer({ name: 'docs', version: '1.0.0' }));
      const spec = { inputSchema: z.object({ doc: z.string() }) };
      server.registerTool('summarize', spec, async ({ doc }) => {
        calls += 1;
        return inputRequired({ requestState: String(doc.length) });
      });
      return server;
    };
    const http = await startHttp(toNodeHandler(createMcpHandler(build)));
    running.push(http);
    const client = await connect(`${http.url}/mcp`);
    const call = (doc: string) =>
      attempt(client, 'tools/call', { name: 'summarize', arguments: { doc } });
    return { call, rejections, calls: () => calls };
  }

  it('refuses arguments over the default 64 KiB with the frozen error, before the handler runs', async () => {
    const server = await documents({});
    expect(stateOf(await server.call('x'.repeat(60_000)))).toMatch(/^v1\./);
    expect(server.calls()).toBe(1);
    // On the old code 2.7 MB were digested (about 670 ms of synchronous work) and the handler ran.
    expect(await server.call('x'.repeat(70_000))).toMatchObject(REFUSED);
    expect(server.calls()).toBe(1);
    expect(server.rejections).toEqual(['arguments-too-large']);
  });

  it('takes the cap from maxArgumentBytes', async () => {
    const small = await documents({ maxArgumentBytes: 1_000 });
    expect(await small.call('x'.repeat(1_000))).toMatchObject(REFUSED);
    expect(stateOf(await small.call('x'.repeat(900)))).toMatch(/^v1\./);
    const none = await documents({ maxArgumentBytes: Number.POSITIVE_INFINITY });
    expect(stateOf(await none.call('x'.repeat(100_000)))).toMatch(/^v1\./);
    expect(() =>
      createStateGuard({ transport: 'stdio', audience: 'docs', maxArgumentBytes: 0 }),
    ).toThrow(RangeError);
  });
});

describe('every refusal: the frozen answer and exactly one onReject', () => {
  it.each([
    ['an empty string', ''],
    ['a bare prefix', 'v1.'],
    ['an oversized token', `v1.${'A'.repeat(9_000)}`],
    ['plaintext JSON', '{"answers":{"dataset":"sales"},"asked":"range"}'],
    ['a tampered-looking token', `v1.${'A'.repeat(200)}`],
  ])('refuses %s as requestState before the handler runs, logged once', async (_label, state) => {
    const server = await wizard({});
    const outcome = await createReport(await server.as('alice'), { requestState: state });
    expect(outcome).toEqual({ ...REFUSED, data: { reason: 'invalid_request_state' } });
    expect(server.calls()).toBe(0);
    expect(server.rejections).toHaveLength(1);
  });

  it.each([
    ['a number', 42],
    ['an object', { answers: {} }],
    ['an array', ['v1.AAAA']],
    ['null', null],
  ])(
    'leaves %s as requestState to the SDK, which answers the same frozen error before any handler',
    async (_label, state) => {
      const server = await wizard({});
      const outcome = await createReport(await server.as('alice'), {
        requestState: state as unknown as string,
      });
      expect(outcome).toEqual({ ...REFUSED, data: { reason: 'invalid_request_state' } });
      expect(server.calls()).toBe(0);
      // The SDK's envelope check refuses a requestState that is not a string before dispatching
      // the request, so the guard never sees it and onReject is not called (README says so).
      expect(server.rejections).toEqual([]);
    },
  );
});
