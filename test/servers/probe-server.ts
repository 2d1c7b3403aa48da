/**
 * A small, raw JSON-RPC 2026-07-28 server over HTTP for the probes' blind-spot tests. It is flawed on
 * purpose (unbound handles, plain base64url state acted on as given) and can be switched to the
 * blind spots a weaker scanner falls into: a server that ignores identity, one that answers the key
 * call (the cross-principal read, the changed or replayed state) with an HTTP 500 or not at all, and
 * destructive tools that count every call they get.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Options of {@link startProbeServer}. */
export interface ProbeServerOptions {
  /** `ignore`: every caller is `anonymous`, whatever token it sends. */
  readonly identity?: 'honour' | 'ignore';
  /**
   * What the key call gets: an empty HTTP 500, an HTTP 500 carrying a JSON-RPC `-32603` to the
   * right id (a crashed handler), or no answer at all.
   */
  readonly fault?: 'none' | '500' | '500-rpc' | 'hang';
  /** Offer workspace handles and the export flow (default true). */
  readonly surface?: boolean;
  /** Add three destructive tools that ask for input like export does. */
  readonly destructive?: boolean;
  /**
   * A server that is safe but chatty: every answer carries a public feed of every workspace label
   * ever opened; a handle is looked up per caller (a handle the caller never opened gets a fresh,
   * empty workspace of its own, so nothing of another's is reachable by handle); a state is honoured
   * only as issued, and acts as the caller on the caller's workspace. A's label reaches B in every
   * answer, through the feed, whatever B presents: no probe may read that as B being served A's.
   */
  readonly feed?: boolean;
  /**
   * Which answer shape round 2 takes. `bare`: asked as a spec elicitation, yet only the bare
   * content (`{ confirm: true }`, no `ElicitResult` around it) goes ahead. `spec`: asked as a bare schema, yet only an `ElicitResult` that
   * accepts goes ahead. Either way the other shape is refused like a bad state would be.
   */
  readonly answers?: 'any' | 'bare' | 'spec';
  /**
   * How a read of a handle the server never minted is answered (default `refuse`: a tool error).
   * `500` and `hang` leave the forged-handle control undecided. `feed`: handles are looked up per
   * caller, as in `feed` mode, and a handle the caller never opened (A's, or a forged one) is answered
   * with a public feed of every workspace label; B's own reads show only B's. A's label then reaches
   * B by A's handle exactly as by a forged one: the handle opens nothing a forgery does not.
   */
  readonly unknownHandle?: 'refuse' | '500' | 'hang' | 'feed';
  /**
   * How a state is honoured on the retry (default: acted on as given, naming the state's principal
   * and label). `bound`: a state another principal sends, or on another workspace, is refused with
   * a tool error, and a completed flow answers a bare "done", naming no one. `as-caller`: any state
   * goes ahead, and the answer names only the caller, never the state's label or principal.
   * `workspace-bound`: as `bound`, but only the workspace is checked, never the principal.
   */
  readonly replays?: 'as-given' | 'bound' | 'workspace-bound' | 'as-caller';
  /** Round 1 of `export_workspace` asks for input once per workspace, then completes at once. */
  readonly asksOnce?: boolean;
  /** Each caller's first round 1 of `export_workspace` only: every later one is a tool error. */
  readonly exportsOnce?: boolean;
  /**
   * Two destructive consumers of a workspace: `archive_workspace`, a flow like the export, and
   * `delete_workspace`, which deletes it at once.
   */
  readonly deleter?: boolean;
  /** `archive_workspace` as with `deleter`, and `wipe_workspaces`, which takes nothing and deletes them all. */
  readonly wiper?: boolean;
  /**
   * Only the first principal that calls a tool is served: every other gets a tool error on every
   * tool (`all`), on `export_workspace` only (`flow`) or on `read_workspace` only (`read`).
   */
  readonly onlyFirstCaller?: 'all' | 'flow' | 'read';
  /**
   * What `read_workspace` answers: the workspace (default), its owner only, a refusal, each
   * caller's first read only (refusing or failing with an HTTP 500 after: `once`,
   * `once-then-500`), or the label only and to its owner only (`label-bound`).
   */
  readonly reads?: 'workspace' | 'owner' | 'refuse' | 'once' | 'once-then-500' | 'label-bound';
  /** Workspace ids are numbers counted up from 1. */
  readonly numericIds?: boolean;
  /**
   * Once a second principal has opened a workspace, the first one may open no more (a tool
   * error): A's mint after B's fails while B's own succeeds.
   */
  readonly firstOpenerLocked?: boolean;
  /** Every read also lists the caller's two newest workspaces (`recent`: id and label). */
  readonly readsRecent?: boolean;
  /** `read_workspace` also takes an optional free-form `note` (where a probe puts a canary). */
  readonly readNote?: boolean;
  /**
   * Round 1 of `export_workspace` on a workspace the caller does not own fails with an empty
   * HTTP 500: B's own flow on A's call draws no decision, while B's replay there is answered.
   */
  readonly foreignAsk?: boolean;
  /**
   * Round 1 of `export_workspace` on a workspace the caller does not own is a tool error. Without
   * it the flow names the workspace's label to whoever asks: a handle flaw of its own.
   */
  readonly exportOwnerOnly?: boolean;
  /**
   * A single-use state spent before anything in it is checked (a ledger that burns first): each
   * state carries a nonce, spent as soon as the state comes back; then the principal must be the
   * caller's (else a tool error, the nonce gone all the same), and the label is trusted as given.
   */
  readonly burnFirst?: boolean;
  /**
   * Workspace ids spell their record: base64url JSON of the owner and label. `open`: a read shows
   * what the id says, whatever it says (nothing is looked up). `signed`: the id carries a MAC, a
   * read of an id whose MAC fails is unknown, and the record shown is the one stored.
   */
  readonly spelled?: 'open' | 'signed';
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

/** A call the server fails on purpose, the way `kind` says. */
class Fault extends Error {
  readonly kind: 'none' | '500' | '500-rpc' | 'hang';
  constructor(kind: Fault['kind']) {
    super(kind);
    this.kind = kind;
  }
}

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
      {
        ...flowTool('read_workspace', 'Read a workspace.'),
        ...(options.readNote
          ? {
              inputSchema: {
                ...wsArg,
                properties: { ...wsArg.properties, note: { type: 'string' } },
              },
            }
          : {}),
        annotations: { readOnlyHint: true },
      },
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
  if (options.deleter) {
    tools.push(
      flowTool('archive_workspace', 'Archive a workspace. Asks to confirm.', {
        destructiveHint: true,
      }),
      flowTool('delete_workspace', 'Delete a workspace at once.', { destructiveHint: true }),
    );
  }
  if (options.wiper) {
    tools.push(
      flowTool('archive_workspace', 'Archive a workspace. Asks to confirm.', {
        destructiveHint: true,
      }),
      {
        name: 'wipe_workspaces',
        description: 'Delete every workspace.',
        inputSchema: { type: 'object', properties: {} },
        annotations: { destructiveHint: true },
      },
    );
  }
  if (options.numericIds) {
    for (const t of tools as { inputSchema?: typeof wsArg }[])
      if (t.inputSchema === wsArg)
        t.inputSchema = { ...wsArg, properties: { workspace_id: { type: 'integer' } } };
  }
  const unknownHandle = options.unknownHandle ?? 'refuse';
  const perCaller = options.feed === true || unknownHandle === 'feed';
  const workspaces = new Map<string, { owner: string; label: string }>();
  const issued = new Set<string>();
  const calls: Record<string, number> = {};
  const askedOnce = new Set<string>();
  const nonces = new Set<string>();
  const fresh = (): string => {
    const nonce = randomBytes(8).toString('hex');
    nonces.add(nonce);
    return nonce;
  };
  const readers = new Set<string>();
  const exporters = new Set<string>();
  let nextId = 0;
  const macKey = randomBytes(32);
  const macOf = (body: string): string =>
    createHmac('sha256', macKey).update(body).digest('base64url');
  let firstCaller: string | undefined;
  const openers: string[] = [];
  const opened = new Map<string, { id: string; key: string }[]>();

  const principalOf = (req: IncomingMessage): string =>
    options.identity === 'ignore'
      ? 'anonymous'
      : (/^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? 'anonymous');
  const key = (condition: boolean): void => {
    if (condition && (options.fault ?? 'none') !== 'none') throw new Fault(options.fault ?? 'none');
  };
  const text = (t: string, isError = false) => ({
    content: [{ type: 'text', text: t }],
    ...(isError ? { isError } : {}),
  });

  function call(params: Record<string, unknown>, principal: string): object {
    const result = act(params, principal);
    if (!options.feed) return result;
    const recent = [...workspaces.values()].map((w) => w.label);
    const r = result as { content: { text: string }[]; structuredContent?: object };
    const text = r.content?.[0]?.text ?? '';
    return {
      ...r,
      content: [{ type: 'text', text: `${text} · recent: ${recent.join(', ')}` }],
      ...(r.structuredContent ? { structuredContent: { ...r.structuredContent, recent } } : {}),
    };
  }

  /** The workspace a caller reaches by handle; in `feed` mode, a caller's own (made on demand). */
  function spell(record: object): string {
    const body = Buffer.from(JSON.stringify(record)).toString('base64url');
    return options.spelled === 'signed' ? `${body}.${macOf(body)}` : body;
  }
  function lookup(id: string, principal: string): { owner: string; label: string } | undefined {
    if (options.spelled === 'open') {
      try {
        const r = JSON.parse(Buffer.from(id, 'base64url').toString('utf8')) as Record<
          string,
          string
        >;
        return typeof r['owner'] === 'string'
          ? { owner: r['owner'], label: String(r['label']) }
          : undefined;
      } catch {
        return undefined;
      }
    }
    if (options.spelled === 'signed') {
      const [body = '', mac = ''] = id.split('.');
      const want = Buffer.from(macOf(body));
      const got = Buffer.from(mac);
      if (got.length !== want.length || !timingSafeEqual(got, want)) return undefined;
    }
    if (unknownHandle === 'feed') return workspaces.get(`${principal}\0${id}`);
    if (!options.feed) return workspaces.get(id);
    const key = `${principal}\0${id}`;
    if (!workspaces.has(key)) workspaces.set(key, { owner: principal, label: '' });
    return workspaces.get(key);
  }

  /** The answer to a read of a handle the server does not know (for this caller). */
  function unknown(): object {
    if (unknownHandle === '500' || unknownHandle === 'hang') throw new Fault(unknownHandle);
    if (unknownHandle === 'refuse') return text('unknown workspace', true);
    const recent = [...workspaces.values()].map((w) => w.label);
    return { ...text(`public feed: ${recent.join(', ')}`), structuredContent: { recent } };
  }

  function act(params: Record<string, unknown>, principal: string): object {
    const name = String(params['name']);
    calls[name] = (calls[name] ?? 0) + 1;
    const args = (params['arguments'] ?? {}) as Record<string, string>;
    if (name === 'get_time') return text('noon');
    firstCaller ??= principal;
    if (
      principal !== firstCaller &&
      (options.onlyFirstCaller === 'all' ||
        (options.onlyFirstCaller === 'flow' && name === 'export_workspace') ||
        (options.onlyFirstCaller === 'read' && name === 'read_workspace'))
    )
      return text('not served', true);
    if (name === 'open_workspace') {
      if (!openers.includes(principal)) openers.push(principal);
      if (options.firstOpenerLocked && openers.length > 1 && principal === openers[0])
        return text('no more workspaces for you', true);
      const id = options.numericIds
        ? String(++nextId)
        : options.spelled !== undefined
          ? spell({
              owner: principal,
              label: args['label'] ?? '',
              n: randomBytes(4).toString('hex'),
            })
          : `ws-${randomBytes(8).toString('hex')}`;
      const key = perCaller ? `${principal}\0${id}` : id;
      opened.set(principal, [...(opened.get(principal) ?? []), { id, key }]);
      workspaces.set(key, { owner: principal, label: args['label'] ?? '' });
      const body = {
        workspace_id: options.numericIds ? Number(id) : id,
        // A server bound by label names no owner anywhere: nothing but a refusal tells A from B.
        ...(options.reads === 'label-bound' ? {} : { owner: principal }),
        label: args['label'],
      };
      return { ...text(JSON.stringify(body)), structuredContent: body };
    }
    if (name === 'wipe_workspaces') {
      workspaces.clear();
      return text('wiped');
    }
    const ws = lookup(String(args['workspace_id'] ?? ''), principal);
    const state = params['requestState'];
    if (name === 'delete_workspace') {
      if (ws === undefined) return unknown();
      for (const [k, w] of workspaces) if (w === ws) workspaces.delete(k);
      return text('deleted');
    }
    if (name === 'read_workspace') {
      if (ws === undefined) return unknown();
      key(ws.owner !== principal);
      if (options.reads === 'refuse') return text('reading is off', true);
      if (options.reads === 'once' || options.reads === 'once-then-500') {
        if (readers.has(principal) && options.reads === 'once-then-500') throw new Fault('500');
        if (readers.has(principal)) return text('one read per caller', true);
        readers.add(principal);
      }
      if (options.reads === 'label-bound') {
        if (ws.owner !== principal) return text('not yours', true);
        return {
          ...text(JSON.stringify({ label: ws.label })),
          structuredContent: { label: ws.label },
        };
      }
      if (options.reads === 'owner')
        return {
          ...text(JSON.stringify({ owner: ws.owner })),
          structuredContent: { owner: ws.owner },
        };
      if (options.readsRecent) {
        const recent = (opened.get(principal) ?? []).slice(-2).map((w) => ({
          workspace_id: w.id,
          label: workspaces.get(w.key)?.label,
        }));
        const body = { ...ws, recent };
        return { ...text(JSON.stringify(body)), structuredContent: body };
      }
      return { ...text(JSON.stringify(ws)), structuredContent: ws };
    }
    if (state === undefined) {
      if (ws === undefined) return text('unknown workspace', true);
      if (options.foreignAsk && ws.owner !== principal) throw new Fault('500');
      if (options.exportOwnerOnly && ws.owner !== principal) return text('not yours', true);
      if (options.exportsOnce && exporters.has(principal))
        return text('one export per caller', true);
      exporters.add(principal);
      const once = `${principal}\0${args['workspace_id']}`;
      if (options.asksOnce && askedOnce.has(once)) return text(`${name} done without asking`);
      askedOnce.add(once);
      const s = Buffer.from(
        JSON.stringify({
          principal,
          label: ws.label,
          workspace_id: args['workspace_id'],
          step: 'confirm',
          ...(options.burnFirst ? { nonce: fresh() } : {}),
        }),
      ).toString('base64url');
      issued.add(s);
      const requestedSchema = {
        type: 'object',
        properties: { confirm: { type: 'boolean' } },
        required: ['confirm'],
      };
      const asked =
        options.answers === 'spec'
          ? { type: 'boolean', description: 'Go ahead?' }
          : { method: 'elicitation/create', params: { message: 'Go ahead?', requestedSchema } };
      return { resultType: 'input_required', inputRequests: { confirm: asked }, requestState: s };
    }
    const answer = (params['inputResponses'] as Record<string, unknown> | undefined)?.['confirm'];
    const bare = answer as { action?: unknown; confirm?: unknown } | undefined;
    if (options.answers === 'bare' && (bare?.action !== undefined || bare?.confirm !== true))
      return text('confirm must be the bare content { confirm: true }', true);
    if (options.answers === 'spec' && (answer as { action?: unknown })?.action !== 'accept')
      return text('confirm must be an accepted elicitation', true);
    if (options.feed) {
      if (!issued.has(String(state)) || ws === undefined) return text('unknown requestState', true);
      return text(`${name} done on ${ws.label} as principal ${principal}`);
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
    if (options.burnFirst) {
      const nonce = decoded['nonce'];
      if (nonce === undefined || !nonces.delete(nonce)) return text('unknown requestState', true);
      if (decoded['principal'] !== principal) return text('not your state', true);
      return text(`${name} done on ${decoded['label']}`);
    }
    const foreign =
      !issued.has(String(state)) ||
      decoded['principal'] !== principal ||
      decoded['workspace_id'] !== args['workspace_id'];
    if (options.replays === 'bound') return foreign ? text('not your state', true) : text('done');
    if (options.replays === 'workspace-bound')
      return decoded['workspace_id'] !== args['workspace_id']
        ? text('not this workspace', true)
        : text('done');
    if (options.replays === 'as-caller') return text(`${name} done as principal ${principal}`);
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
      try {
        result = call(msg.params ?? {}, principalOf(req));
      } catch (error) {
        if (!(error instanceof Fault) || error.kind !== '500-rpc') throw error;
        res.writeHead(500, { 'content-type': 'application/json' });
        const internal = { code: -32603, message: 'Internal error' };
        return void res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: internal }));
      }
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
        if (error.kind === '500') res.writeHead(500).end();
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
