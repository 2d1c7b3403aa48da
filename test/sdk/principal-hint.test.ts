/**
 * Issue 35: a guard on an ordinary bearer-token server whose tokens name no subject or issuer. Every
 * guarded call is refused (`-32603`, the same answer as any server fault), and the operator reads
 * one line saying what is missing and which option fixes it, instead of a bare "Internal error".
 * A real SDK server on 127.0.0.1, the SDK's bearer auth, the official client.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import type { OAuthTokenVerifier } from '@modelcontextprotocol/server';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StateRejection } from '../../src/errors.js';
import { createReportHttpListener } from '../../harness/examples/http.js';
import {
  createStateGuard,
  principalFromClientIdOnly,
  type StateGuardOptions,
} from '../../src/sdk/index.js';
import { startHttp, type RunningHttp } from '../helpers/http.js';
import { connectHttp } from '../helpers/mcp-client.js';
import { createReport } from './flow.js';

const INTERNAL = { ok: false, code: -32603, message: 'Internal error' };
const running: RunningHttp[] = [];
const clients: Client[] = [];
let lines: string[] = [];
const originalWarn = console.warn;

beforeEach(() => {
  lines = [];
  // The guard's log line goes to console.warn; keep what it writes, as a terminal would show it.
  console.warn = (...parts: unknown[]) => void lines.push(parts.map(String).join(' '));
});
afterEach(() => {
  console.warn = originalWarn;
});
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await Promise.allSettled(running.map((h) => h.close()));
});

/** A verifier in the SDK's own shape: a client id, and `extra` only as given. */
function verifierWith(
  extra: Record<string, unknown> | undefined,
  clientId = 'desktop-app',
): OAuthTokenVerifier {
  return {
    async verifyAccessToken(token) {
      return {
        token,
        clientId,
        scopes: [],
        expiresAt: Math.floor(Date.now() / 1000) + 3600,
        ...(extra !== undefined && { extra }),
      };
    },
  };
}

async function serve(verifier: OAuthTokenVerifier, options: Partial<StateGuardOptions> = {}) {
  const rejections: StateRejection[] = [];
  let calls = 0;
  const guard = createStateGuard({
    transport: 'http',
    keys: [randomBytes(32).toString('base64url')],
    audience: 'reports',
    onReject: (event) => rejections.push(event.reason),
    ...options,
  });
  const http = await startHttp(
    createReportHttpListener({ guard, verifier, hooks: { onCall: () => (calls += 1) } }),
  );
  running.push(http);
  const as = async (token: string) => {
    const client = await connectHttp(`${http.url}/mcp`, token);
    clients.push(client);
    return client;
  };
  return { as, rejections, calls: () => calls };
}

describe('a token without what the default principal needs', () => {
  it('is refused with -32603 and one log line naming extra.sub/extra.iss and the principal option', async () => {
    const secret = `secret-${randomBytes(8).toString('hex')}`;
    const server = await serve(verifierWith(undefined));
    const alice = await server.as(secret);
    // What the client sees stays the uniform server-fault answer, twice.
    expect(await createReport(alice)).toMatchObject(INTERNAL);
    expect(await createReport(alice)).toMatchObject(INTERNAL);
    expect(server.calls()).toBe(0);
    expect(server.rejections).toEqual(['principal-unavailable', 'principal-unavailable']);
    // One line for the operator, once per guard, naming the fix; no value of the token.
    expect(lines).toHaveLength(1);
    const [line = ''] = lines;
    expect(line).not.toContain('\n');
    expect(line).toMatch(/^stateguard: refusing guarded calls \(-32603\)/);
    expect(line).toContain('no subject or issuer');
    expect(line).toContain('extra.sub and extra.iss');
    expect(line).toContain('createStateGuard({ principal })');
    expect(line).toContain('principalFromClientIdOnly');
    expect(line).not.toContain(secret);
    expect(line).not.toContain('desktop-app');
  });

  it('says the same for a token with a subject but no issuer', async () => {
    const server = await serve(verifierWith({ sub: 'alice' }));
    expect(await createReport(await server.as('tok'))).toMatchObject(INTERNAL);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('extra.sub and extra.iss');
    expect(lines[0]).not.toContain('alice');
  });

  it('names clientId when principalFromClientIdOnly meets a token without one', async () => {
    const server = await serve(verifierWith({}, ''), { principal: principalFromClientIdOnly });
    expect(await createReport(await server.as('tok'))).toMatchObject(INTERNAL);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('no client id');
    expect(lines[0]).toContain('createStateGuard({ principal })');
  });

  it('logs nothing for a token that names its subject and issuer (the control)', async () => {
    const server = await serve(verifierWith({ sub: 'alice', iss: 'https://issuer.example' }));
    const outcome = await createReport(await server.as('tok'));
    expect(outcome.ok).toBe(true);
    expect(lines).toEqual([]);
    expect(server.rejections).toEqual([]);
  });
});
