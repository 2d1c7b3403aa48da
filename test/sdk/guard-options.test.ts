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
  type CallToolResult,
  type OAuthTokenVerifier,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StateRejection } from '../../src/errors.js';
import { createReportHttpListener, demoVerifier } from '../../harness/examples/http.js';
import { createMemoryLedger } from '../../src/ledger/memory.js';
import { createStateGuard, type StateGuardOptions } from '../../src/sdk/index.js';
import { startHttp, type RunningHttp } from '../helpers/http.js';
import { attempt, connectHttp } from '../helpers/mcp-client.js';
import { runToExit, spawnStdio } from '../helpers/spawn-stdio.js';
import { answer, createReport, questionsOf, REFUSED, stateOf, textOf } from './flow.js';

const KEY = randomBytes(32).toString('base64url');
const MAIN = 'harness/examples/main.ts';
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

  it('prints the example usage with every flag on --help and exits 0 without serving', async () => {
    const run = await runToExit(MAIN, ['--help']);
    expect(run.code).toBe(0);
    const flags = ['--stdio', '--http', '--port', '--ephemeral-key', '--principal-meta'];
    for (const flag of [...flags, '--single-use', '--demo-tokens', 'STATEGUARD_KEYS']) {
      expect(run.stdout).toContain(flag);
    }
    expect(run.stderr).not.toContain('ready');
  });

  it('answers an unknown example flag with exit 2 and a pointer to --help', async () => {
    const run = await runToExit(MAIN, ['--stdio', '--no-such-flag']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Unknown option '--no-such-flag'");
    expect(run.stderr).toContain('--help');
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
    expect(() => guard.protect(server)).toThrow(/before the server has a tools\/call handler/);
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

  it.each(['tools', 'prompts', 'resources'])(
    'refuses an McpServer constructed with capabilities.%s, and says what to do instead',
    (family) => {
      const server = new McpServer(
        { name: 'eager', version: '1.0.0' },
        { capabilities: { [family]: {} } },
      );
      let error: unknown;
      try {
        guard.protect(server);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(TypeError);
      const message = String((error as Error).message);
      expect(message).toContain(`without capabilities.${family}`);
      expect(message).toContain('call guard.protect(server), then register');
      expect(message).toContain(`server.server.registerCapabilities({ ${family}: {…} })`);
      // Not half-guarded either: a second attempt is refused again, never taken as already done.
      expect(() => guard.protect(server)).toThrow(TypeError);
    },
  );
});

describe('capabilities declared after protect(), as the refusal advises', () => {
  it('keep the declared options and a guarded flow', async () => {
    const guard = createStateGuard({ transport: 'http', audience: 'declared', keys: KEY });
    let capabilities: unknown;
    const build = () => {
      const server = guard.protect(new McpServer({ name: 'declared', version: '1.0.0' }));
      server.server.registerCapabilities({ tools: { listChanged: false } });
      server.registerTool('ask', { description: 'asks once' }, async (ctx) => {
        const state = ctx.mcpReq.requestState<string>();
        if (state === undefined) return inputRequired({ requestState: 'asked-once' });
        return { content: [{ type: 'text' as const, text: state }] };
      });
      capabilities = server.server.getCapabilities();
      return server;
    };
    const http = await startHttp(toNodeHandler(createMcpHandler(build)));
    running.push(http);
    const client = await connectHttp(`${http.url}/mcp`);
    clients.push(client);
    const first = await attempt(client, 'tools/call', { name: 'ask', arguments: {} });
    const token = stateOf(first);
    expect(token).toMatch(/^v1\./);
    expect(token).not.toContain('asked-once');
    const second = await attempt(client, 'tools/call', {
      name: 'ask',
      arguments: {},
      requestState: token,
    });
    expect(textOf(second)).toBe('asked-once');
    expect(capabilities).toMatchObject({ tools: { listChanged: false } });
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

describe('the principal a guard binds', () => {
  /** A verifier whose tokens are `<client>:<subject>`, as an OAuth server with shared clients. */
  const sharedClients: OAuthTokenVerifier = {
    async verifyAccessToken(token) {
      // `nobody`: a token this verifier accepts but fills in no identity for (a misconfiguration).
      const [clientId = '', subject] = token === 'nobody' ? [''] : token.split(':');
      return {
        token,
        clientId,
        scopes: [],
        expiresAt: Math.floor(Date.now() / 1000) + 3600,
        extra: subject === undefined ? {} : { sub: subject, iss: 'https://issuer.example' },
      };
    },
  };

  async function serveWith(options: Partial<StateGuardOptions>) {
    const rejections: StateRejection[] = [];
    let calls = 0;
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
        verifier: sharedClients,
        hooks: { onCall: () => calls++ },
      }),
    );
    running.push(http);
    const as = async (token: string) => {
      const client = await connectHttp(`${http.url}/mcp`, token);
      clients.push(client);
      return client;
    };
    return { as, rejections, calls: () => calls };
  }

  it('is the token subject by default: a user of the same OAuth client cannot replay it', async () => {
    const { as, rejections } = await serveWith({});
    const state = stateOf(await createReport(await as('app:alice')));
    expect(await createReport(await as('app:bob'), { requestState: state })).toMatchObject(REFUSED);
    const retry = { requestState: state, inputResponses: answer('dataset', 'sales') };
    expect(questionsOf(await createReport(await as('app:alice'), retry))).toEqual(['pick_range']);
    expect(rejections).toEqual(['principal']);
  });

  it('comes from the resolver the server passes instead', async () => {
    // This server binds the end user only, so the same user may continue from another client.
    const { as } = await serveWith({
      principal: (ctx) => ctx.http?.authInfo?.extra?.['sub'] as string | undefined,
    });
    const state = stateOf(await createReport(await as('web:alice')));
    const retry = { requestState: state, inputResponses: answer('dataset', 'sales') };
    expect(questionsOf(await createReport(await as('cli:alice'), retry))).toEqual(['pick_range']);
    expect(await createReport(await as('web:bob'), retry)).toMatchObject(REFUSED);
  });

  it('refuses with -32603, running no handler, when a verified token names no one', async () => {
    const { as, calls } = await serveWith({});
    const outcome = await createReport(await as('nobody'));
    expect(outcome).toMatchObject({ ok: false, code: -32603, message: 'Internal error' });
    expect(calls()).toBe(0);
  });

  it('refuses with -32603, running no handler, when the resolver throws', async () => {
    const { as, calls } = await serveWith({
      principal: () => {
        throw new Error('directory down: alice@example.com');
      },
    });
    const outcome = await createReport(await as('app:alice'));
    expect(outcome).toEqual({
      ok: false,
      code: -32603,
      message: 'Internal error',
      data: undefined,
    });
    expect(calls()).toBe(0);
  });
});

describe('resources/read and states the guard cannot seal', () => {
  const guard = createStateGuard({ transport: 'http', audience: 'docs', keys: KEY });
  let reads = 0;
  const build = () => {
    const server = guard.protect(new McpServer({ name: 'docs', version: '1.0.0' }));
    for (const uri of ['doc://a', 'doc://b']) {
      server.registerResource(uri, uri, { mimeType: 'text/plain' }, async (url, ctx) => {
        reads += 1;
        const state = ctx.mcpReq.requestState<string>();
        if (state === undefined) return inputRequired({ requestState: `read-of-${url.href}` });
        return { contents: [{ uri: url.href, text: state }] };
      });
    }
    // Built by hand: inputRequired() itself insists on a string.
    const unsealable = { resultType: 'input_required', requestState: 10n };
    server.registerTool(
      'unsealable',
      { description: 'returns a state JSON cannot carry' },
      () => unsealable as unknown as CallToolResult,
    );
    return server;
  };
  let client: Client;

  beforeAll(async () => {
    const http = await startHttp(toNodeHandler(createMcpHandler(build)));
    running.push(http);
    client = await connectHttp(`${http.url}/mcp`);
    clients.push(client);
  });

  it('seals a resource read state on the way out and opens it on the way in', async () => {
    const first = await attempt(client, 'resources/read', { uri: 'doc://a' });
    const token = stateOf(first);
    expect(token).not.toContain('read-of');
    const second = await attempt(client, 'resources/read', { uri: 'doc://a', requestState: token });
    expect(second).toMatchObject({
      ok: true,
      result: { contents: [{ uri: 'doc://a', text: 'read-of-doc://a' }] },
    });
  });

  it('refuses a resource state presented for another URI, before the read callback runs', async () => {
    const token = stateOf(await attempt(client, 'resources/read', { uri: 'doc://a' }));
    const before = reads;
    const other = await attempt(client, 'resources/read', { uri: 'doc://b', requestState: token });
    expect(other).toMatchObject(REFUSED);
    expect(reads).toBe(before);
  });

  it('answers -32603 and hands out nothing when a state cannot be sealed', async () => {
    const outcome = await attempt(client, 'tools/call', { name: 'unsealable', arguments: {} });
    expect(outcome).toEqual({
      ok: false,
      code: -32603,
      message: 'Internal error',
      data: undefined,
    });
  });
});
