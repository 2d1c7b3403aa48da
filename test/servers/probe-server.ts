/**
 * A small, raw JSON-RPC 2026-07-28 server over HTTP for the probes' blind-spot tests. It is flawed on
 * purpose (unbound handles, plain base64url state acted on as given) and can be switched to the
 * blind spots a weaker scanner falls into: a server that ignores identity, one that answers the key
 * call (the cross-principal read, the changed or replayed state) with an HTTP 500 or not at all, and
 * destructive tools that count every call they get.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Options of {@link startProbeServer}. */
export interface ProbeServerOptions {
  /** `ignore`: every caller is `anonymous`, whatever token it sends. */
  readonly identity?: 'honour' | 'ignore';
  /** What the key call gets: an empty HTTP 500, or no answer at all. */
  readonly fault?: 'none' | '500' | 'hang';
  /** Offer workspace handles and the export flow (default true). */
  readonly surface?: boolean;
  /** Add three destructive tools that ask for input like export does. */
  readonly destructive?: boolean;
}

/** A running probe server. */
export interface ProbeServer {
  readonly url: string;
  /** `tools/call` count per tool name. */
  readonly calls: Record<string, number>;
  close(): Promise<void>;
}

const wsArg = {
  type: 'object',
  properties: { workspace_id: { type: 'string' } },
  required: ['workspace_id'],
};
const flowTool = (name: string, description: string, annotations: object = {}) => ({
  name,
  description,
  inputSchema: wsArg,
  annotations,
});

class Fault extends Error {}

/** Start the server on 127.0.0.1, port 0. */
export async function startProbeServer(options: ProbeServerOptions = {}): Promise<ProbeServer> {
  const surface = options.surface ?? true;
  const tools: object[] = [
    { name: 'get_time', description: 'The time.', inputSchema: { type: 'object' } },
  ];
  if (surface) {
    tools.push(
      {
        name: 'open_workspace',
        description: 'Open a workspace.',
        inputSchema: {
          type: 'object',
          properties: { label: { type: 'string' } },
          required: ['label'],
        },
      },
      { ...flowTool('read_workspace', 'Read a workspace.'), annotations: { readOnlyHint: true } },
      flowTool('export_workspace', 'Export a workspace. Asks to confirm.', { readOnlyHint: true }),
    );
  }
  if (options.destructive) {
    tools.push(
      flowTool('purge_workspace', 'Tidy a workspace.', { readOnlyHint: true }),
      flowTool('tidy_workspace', 'Removes the history of a workspace.', { readOnlyHint: true }),
      flowTool('snapshot_workspace', 'Snapshot a workspace.', {
        readOnlyHint: true,
        destructiveHint: true,
      }),
    );
  }
  const workspaces = new Map<string, { owner: string; label: string }>();
  const issued = new Set<string>();
  const calls: Record<string, number> = {};

  const principalOf = (req: IncomingMessage): string =>
    options.identity === 'ignore'
      ? 'anonymous'
      : (/^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? 'anonymous');
  const key = (condition: boolean): void => {
    if (condition && (options.fault ?? 'none') !== 'none') throw new Fault();
  };
  const text = (t: string, isError = false) => ({
    content: [{ type: 'text', text: t }],
    ...(isError ? { isError } : {}),
  });

  function call(params: Record<string, unknown>, principal: string): object {
    const name = String(params['name']);
    calls[name] = (calls[name] ?? 0) + 1;
    const args = (params['arguments'] ?? {}) as Record<string, string>;
    if (name === 'get_time') return text('noon');
    if (name === 'open_workspace') {
      const id = `ws-${randomBytes(8).toString('hex')}`;
      workspaces.set(id, { owner: principal, label: args['label'] ?? '' });
      const body = { workspace_id: id, owner: principal, label: args['label'] };
      return { ...text(JSON.stringify(body)), structuredContent: body };
    }
    const ws = workspaces.get(args['workspace_id'] ?? '');
    const state = params['requestState'];
    if (name === 'read_workspace') {
      if (ws === undefined) return text('unknown workspace', true);
      key(ws.owner !== principal);
      return { ...text(JSON.stringify(ws)), structuredContent: ws };
    }
    if (state === undefined) {
      if (ws === undefined) return text('unknown workspace', true);
      const s = Buffer.from(
        JSON.stringify({
          principal,
          label: ws.label,
          workspace_id: args['workspace_id'],
          step: 'confirm',
        }),
      ).toString('base64url');
      issued.add(s);
      const requestedSchema = {
        type: 'object',
        properties: { confirm: { type: 'boolean' } },
        required: ['confirm'],
      };
      return {
        resultType: 'input_required',
        inputRequests: {
          confirm: {
            method: 'elicitation/create',
            params: { message: 'Go ahead?', requestedSchema },
          },
        },
        requestState: s,
      };
    }
    let decoded: Record<string, string> | undefined;
    try {
      decoded = JSON.parse(Buffer.from(String(state), 'base64url').toString('utf8')) as Record<
        string,
        string
      >;
    } catch {
      return text('requestState is not decodable', true);
    }
    // The key call: a changed state, another principal's state, or a state on another request.
    key(
      !issued.has(String(state)) ||
        decoded['principal'] !== principal ||
        decoded['workspace_id'] !== args['workspace_id'],
    );
    return text(`${name} done on ${decoded['label']} as principal ${decoded['principal']}`);
  }

  function handle(req: IncomingMessage, res: ServerResponse, body: string): void {
    const msg = JSON.parse(body) as {
      id?: number;
      method: string;
      params?: Record<string, unknown>;
    };
    if (msg.id === undefined) return void res.writeHead(202).end();
    let result: object;
    if (msg.method === 'server/discover') {
      result = {
        supportedVersions: ['2026-07-28'],
        capabilities: { tools: {} },
        resultType: 'complete',
      };
    } else if (msg.method === 'tools/list') {
      result = { tools, resultType: 'complete' };
    } else if (msg.method === 'tools/call') {
      result = call(msg.params ?? {}, principalOf(req));
    } else {
      res.writeHead(404, { 'content-type': 'application/json' });
      return void res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: msg.id,
          error: { code: -32601, message: 'Method not found' },
        }),
      );
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
  }

  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      try {
        handle(req, res, body);
      } catch (error) {
        if (!(error instanceof Fault)) throw error;
        // 'hang': never answer; the client's timeout must end it. '500': an empty error page.
        if (options.fault === '500') res.writeHead(500).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
