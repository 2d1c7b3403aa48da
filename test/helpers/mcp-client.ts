/**
 * The official MCP client, pinned to 2026-07-28 with manual multi round-trip, over HTTP or stdio.
 */
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { sourceEntry } from '../../harness/node-entry.js';
import { REPO_ROOT } from './spawn-stdio.js';

/** What a call came back with: a result, or a JSON-RPC error. */
export type Outcome =
  | { ok: true; result: Record<string, unknown> }
  | { ok: false; code: number; message: string; data?: unknown };

/** Options of the connect helpers. */
export interface ClientOptions {
  /** Declare form elicitation (default true). */
  elicitation?: boolean;
}

function newClient(options: ClientOptions): Client {
  return new Client(
    { name: 'stateguard-test', version: '0.0.0' },
    {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      inputRequired: { autoFulfill: false },
      capabilities: options.elicitation === false ? {} : { elicitation: { form: {} } },
    },
  );
}

/** Connect over Streamable HTTP, optionally with a bearer token. */
export async function connectHttp(
  url: string,
  token?: string,
  options: ClientOptions = {},
): Promise<Client> {
  const client = newClient(options);
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    ...(token !== undefined && { authProvider: { token: async () => token } }),
  });
  await client.connect(transport);
  return client;
}

/** Spawn `file` with `node` (see {@link sourceEntry}) through the SDK's stdio transport and connect. */
export async function connectStdio(
  file: string,
  args: readonly string[],
  env: Record<string, string>,
  options: ClientOptions = {},
): Promise<{ client: Client; stderr: () => string }> {
  const client = newClient(options);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...sourceEntry(file), ...args],
    env: { ...getDefaultEnvironment(), ...env },
    cwd: REPO_ROOT,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** Send one guarded request and report what came back, error or result. */
export async function attempt(
  client: Client,
  method: 'tools/call' | 'prompts/get' | 'resources/read',
  params: Record<string, unknown>,
): Promise<Outcome> {
  try {
    const result = await client.request(
      { method, params },
      { allowInputRequired: true, timeout: 10_000 },
    );
    return { ok: true, result: result as Record<string, unknown> };
  } catch (error) {
    if (error instanceof ProtocolError) {
      return { ok: false, code: error.code, message: error.message, data: error.data };
    }
    throw error;
  }
}
