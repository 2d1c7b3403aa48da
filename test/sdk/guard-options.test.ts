/**
 * How a guard is configured: the key policy per transport, single-use, protecting servers, and the
 * failures that must refuse (fail closed).
 */
import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  inputRequired,
  McpServer,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { afterAll, describe, expect, it } from 'vitest';
import type { StateRejection } from '../../src/errors.js';
import { createReportHttpListener, demoVerifier } from '../../src/examples/http.js';
import { createMemoryLedger } from '../../src/ledger/memory.js';
import { createStateGuard, type StateGuardOptions } from '../../src/sdk/index.js';
import { startHttp, type RunningHttp } from '../helpers/http.js';
import { attempt, connectHttp } from '../helpers/mcp-client.js';
import { runToExit, spawnStdio } from '../helpers/spawn-stdio.js';
import { answer, createReport, questionsOf, REFUSED, stateOf, textOf } from './flow.js';

const KEY = randomBytes(32).toString('base64url');
const MAIN = 'src/examples/main.ts';
const running: RunningHttp[] = [];
const clients: Client[] = [];

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await Promise.allSettled(running.map((h) => h.close()));
});

async function serve(options: Partial<StateGuardOptions> & Pick<StateGuardOptions, 'transport'>) {
  const rejections: StateRejection[] = [];
  let created = 0;
  const guard = createStateGuard({
    keys: [KEY],
    audience: 'reports',
    onReject: (event) => rejections.push(event.reason),
    ...options,
  });
  const http = await startHttp(
    createReportHttpListener({
      guard,
      verifier: demoVerifier(['alice']),
      hooks: { onCreate: () => (created += 1) },
    }),
  );
  running.push(http);
  const client = await connectHttp(`${http.url}/mcp`, 'alice');
  clients.push(client);
  return { client, rejections, created: () => created };
}

describe('the key policy', () => {
  it('refuses to create an HTTP guard without keys', () => {
    expect(() => createStateGuard({ transport: 'http', audience: 'reports' })).toThrow(TypeError);
    expect(() => createStateGuard({ transport: 'http', audience: 'reports', keys: [] })).toThrow(
      /needs keys/,
    );
  });

  it('creates an HTTP guard on a random key only when explicitly allowed', () => {
    const guard = createStateGuard({
      transport: 'http',
      audience: 'reports',
      allowEphemeralKey: true,
    });
    expect(guard.ephemeralKey).toBe(true);
  });

  it('lets a stdio guard run on a random key, and uses configured keys when given', () => {
    expect(createStateGuard({ transport: 'stdio', audience: 'reports' }).ephemeralKey).toBe(true);
    expect(
      createStateGuard({ transport: 'stdio', audience: 'reports', keys: KEY }).ephemeralKey,
    ).toBe(false);
  });

  it('refuses an unknown transport', () => {
    expect(() =>
      createStateGuard({ transport: 'tcp' as 'http', audience: 'reports', keys: KEY }),
    ).toThrow(TypeError);
  });

  it('makes the example HTTP server refuse to start without STATEGUARD_KEYS', async () => {
    const run = await runToExit(MAIN, ['--http'], { env: { STATEGUARD_KEYS: '' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('cannot start');
    expect(run.stderr).not.toContain('ready');
  });

  it('lets the example HTTP server start on a random key with --ephemeral-key', async () => {
    const child = await spawnStdio(MAIN, ['--http', '--ephemeral-key'], {
      env: { STATEGUARD_KEYS: '' },
    });
    try {
      expect(child.stderr()).toMatch(/\[example\] ready http:\/\/127\.0\.0\.1:\d+\/mcp/);
    } finally {
      await child.close();
    }
  });

  it('refuses every guarded request when a stdio guard on a random key is served over HTTP', async () => {
    const { client, created } = await serve({ transport: 'stdio', keys: undefined });
    const outcome = await createReport(client);
    expect(outcome).toMatchObject({ ok: false, code: -32603, message: 'Internal error' });
    expect(created()).toBe(0);
  });
});

describe('single use', () => {
  it('refuses a replayed final round with the same error, and creates the report once', async () => {
    const { client, rejections, created } = await serve({
      transport: 'http',
      singleUse: { ledger: createMemoryLedger(), tools: ['create_report'] },
    });
    const first = await createReport(client);
    const second = await createReport(client, {
      requestState: stateOf(first),
      inputResponses: answer('dataset', 'sales'),
    });
    const final = { requestState: stateOf(second), inputResponses: answer('range', 'Q3') };
    expect(textOf(await createReport(client, final))).toContain('created');
    expect(await createReport(client, final)).toMatchObject(REFUSED);
    expect(created()).toBe(1);
    expect(rejections).toEqual(['replayed']);
  });

  it('leaves tools that are not chosen replayable', async () => {
    const { client, created } = await serve({
      transport: 'http',
      singleUse: { ledger: createMemoryLedger(), tools: (name) => name === 'something_else' },
    });
    const first = await createReport(client);
    const retry = { requestState: stateOf(first), inputResponses: answer('dataset', 'sales') };
    expect(questionsOf(await createReport(client, retry))).toEqual(['pick_range']);
    expect(questionsOf(await createReport(client, retry))).toEqual(['pick_range']);
    expect(created()).toBe(0);
  });

  it('refuses with -32603 when the ledger cannot answer (fail closed)', async () => {
    const ledger = createMemoryLedger();
    const { client, rejections } = await serve({
      transport: 'http',
      singleUse: { ledger, tools: ['create_report'] },
    });
    const first = await createReport(client);
    await ledger.close();
    const retry = await createReport(client, {
      requestState: stateOf(first),
      inputResponses: answer('dataset', 'sales'),
    });
    expect(retry).toMatchObject({ ok: false, code: -32603, message: 'Internal error' });
    expect(rejections).toEqual(['ledger-unavailable']);
  });
});

describe('the logger hook', () => {
  it('cannot change the answer by throwing', async () => {
    const { client } = await serve({
      transport: 'http',
      onReject: () => {
        throw new Error('logger down');
      },
    });
    const outcome = await createReport(client, { requestState: 'v1.AAAA' });
    expect(outcome).toMatchObject(REFUSED);
  });
});

describe('protect()', () => {
  const guard = createStateGuard({ transport: 'stdio', audience: 'reports', keys: KEY });

  it('refuses a server whose tools are already registered', () => {
    const server = new McpServer({ name: 'late', version: '1.0.0' });
    server.registerTool('t', { description: 't' }, async () => ({ content: [] }));
    expect(() => guard.protect(server)).toThrow(/before tools/);
  });

  it('returns the same server, and protecting twice with the same guard is harmless', () => {
    const server = new McpServer({ name: 'twice', version: '1.0.0' });
    expect(guard.protect(server)).toBe(server);
    expect(guard.protect(server)).toBe(server);
  });

  it('refuses a server already protected by another guard', () => {
    const server = guard.protect(new McpServer({ name: 'owned', version: '1.0.0' }));
    const other = createStateGuard({ transport: 'stdio', audience: 'reports' });
    expect(() => other.protect(server)).toThrow(/another guard/);
  });

  it('refuses something that is not a server', () => {
    expect(() => guard.protect({} as McpServer)).toThrow(TypeError);
  });
});

describe('a low-level Server', () => {
  it('is guarded too: its handler sees plaintext, the client a sealed token', async () => {
    const guard = createStateGuard({ transport: 'http', audience: 'counter', keys: KEY });
    const seen: unknown[] = [];
    const build = () => {
      const server = guard.protect(
        new Server({ name: 'counter', version: '1.0.0' }, { capabilities: { tools: {} } }),
      );
      server.setRequestHandler('tools/call', async (_request, ctx: ServerContext) => {
        const state = ctx.mcpReq.requestState<string>();
        seen.push(state);
        if (state === undefined) return inputRequired({ requestState: 'count=1' });
        return { content: [{ type: 'text' as const, text: state }] };
      });
      return server;
    };
    const http = await startHttp(toNodeHandler(createMcpHandler(build)));
    running.push(http);
    const client = await connectHttp(`${http.url}/mcp`);
    clients.push(client);
    const params = { name: 'count', arguments: {} };
    const first = await attempt(client, 'tools/call', params);
    const token = stateOf(first);
    expect(token).not.toContain('count=1');
    const second = await attempt(client, 'tools/call', { ...params, requestState: token });
    expect(textOf(second)).toBe('count=1');
    expect(seen).toEqual([undefined, 'count=1']);
  });
});
