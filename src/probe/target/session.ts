/**
 * Opening a scan session: connect over the target's transport, learn which protocol era it speaks,
 * and list its tools. Requests then carry the 2026-07-28 `_meta` envelope (or, for a legacy server,
 * the negotiated version) and the identity, as a bearer token over HTTP or in `_meta` over stdio.
 *
 * Era detection follows the spec's rules and is liberal: a `server/discover` result or a
 * recognised modern error means modern; a modern `tools/list` answered with a `resultType` means
 * modern even without `server/discover`; anything else falls back to `initialize`. A target that
 * answers none of these is `unknown`, and the session names what did not answer.
 */
import type { Redactor } from '../evidence/evidence.js';
import { withSessionIds } from '../evidence/evidence.js';
import { createHttpChannel } from './http.js';
import type { Channel, JsonRpcRequest } from './jsonrpc.js';
import { AbortCause } from './jsonrpc.js';
import { createStdioChannel } from './stdio.js';
import type {
  Evidence,
  Exchange,
  IdentityName,
  LegacySessions,
  Outcome,
  ProtocolInfo,
  RequestOptions,
  ScanSession,
  Target,
  ToolInfo,
} from '../types.js';

/** The protocol version the scanner speaks first. */
export const MODERN_VERSION = '2026-07-28';
/** The version offered to a legacy server in `initialize`. */
export const LEGACY_VERSION = '2025-11-25';
/** The `_meta` key that carries the identity over stdio unless `--principal-meta-key` says otherwise. */
export const DEFAULT_PRINCIPAL_META_KEY = 'io.modelcontextprotocol/principal';

const META = 'io.modelcontextprotocol/';
// Errors only a 2026-07-28 server sends: seeing one means modern, and no fallback (spec §versioning).
const MODERN_ERRORS = new Set([-32020, -32021, -32022]);
// Failures that mean nobody is there to fall back to.
const UNREACHABLE = new Set(['spawn', 'transport', 'closed', 'deadline']);
const MAX_TOOLS = 500;
// Most pages of `tools/list` followed (a page may be one tool), and most tools kept.
const MAX_TOOL_PAGES = 50;

/** Options of a session. */
export interface SessionOptions {
  readonly identities: Readonly<Record<IdentityName, string>>;
  readonly principalMetaKey: string;
  /** Per-call timeout (ms). */
  readonly timeoutMs: number;
  /**
   * How long the first answer of a stdio child may take (ms), when longer than `timeoutMs`: the
   * process has to start first, and a server run through `npx` or a compiler may take seconds.
   * Still bounded by the scan's deadline.
   */
  readonly startupTimeoutMs?: number;
  /** Most bytes of one answer. */
  readonly maxAnswerBytes: number;
  readonly redactor: Redactor;
  /** The scan's deadline: aborting it ends every request with failure `deadline`. */
  readonly signal?: AbortSignal;
  readonly clientInfo: { readonly name: string; readonly version: string };
  /**
   * HTTP: send the identity in this header instead of `Authorization: Bearer` (`value` holds
   * `{identity}` where the secret goes, e.g. `X-Api-Key: {identity}`).
   */
  readonly identityHeader?: { readonly name: string; readonly value: string };
  /**
   * stdio: the server takes its one identity from this environment variable at start, so A and B
   * are two processes of the same command, each with its own value (and no `_meta` principal).
   */
  readonly identityEnv?: string;
  /** HTTP: headers sent on every request (`--header`), after the scanner's own. */
  readonly headers?: readonly { readonly name: string; readonly value: string }[];
}

/** A session as the engine uses it: a {@link ScanSession} plus the child's stderr. */
export interface EngineSession extends ScanSession {
  /** stderr lines the stdio child wrote since the last call. */
  takeStderr(): string[];
}

/** The result of opening a session. */
export interface OpenedSession {
  readonly session: EngineSession;
  /** The exchanges of the opening (era detection, tools/list). */
  readonly evidence: Evidence[];
  /** Set when the target answered nothing usable; names what did not answer. */
  readonly problem?: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `evidence` with session id `sid` replaced by `name`: the exchange that handed the id out was
 * recorded before the id had a name. Evidence is plain, bounded JSON, so a textual swap is exact.
 */
function renamed(evidence: Evidence, sid: string, name: string): Evidence {
  const quoted = JSON.stringify(sid).slice(1, -1);
  const text = JSON.stringify(evidence);
  return quoted.length < 8 && !text.includes(`"${quoted}"`)
    ? evidence
    : (JSON.parse(
        quoted.length < 8
          ? text.split(`"${quoted}"`).join(JSON.stringify(name))
          : text.split(quoted).join(name),
      ) as Evidence);
}

function describe(outcome: Outcome): string {
  if (outcome.kind === 'failure') return `${outcome.failure}: ${outcome.detail}`;
  if (outcome.kind === 'error') return `JSON-RPC error ${outcome.code}`;
  return 'a result';
}

function readTools(result: Record<string, unknown>, into: ToolInfo[]): void {
  const tools = Array.isArray(result.tools) ? result.tools : [];
  for (const t of tools) {
    if (into.length >= MAX_TOOLS || !isRecord(t) || typeof t.name !== 'string') continue;
    into.push({
      name: t.name,
      ...(typeof t.title === 'string' ? { title: t.title } : {}),
      ...(typeof t.description === 'string' ? { description: t.description } : {}),
      ...(isRecord(t.inputSchema) ? { inputSchema: t.inputSchema } : {}),
      ...(isRecord(t.annotations) ? { annotations: t.annotations } : {}),
    });
  }
}

const MAX_LISTED = 50;

/**
 * The prompts, resources and resource templates a modern server lists (first page each). A
 * refusal (-32601: the server has none) is no problem: the list stays empty.
 */
async function readLists(
  step: (method: string, label: string) => Promise<Outcome>,
): Promise<Pick<ProtocolInfo, 'prompts' | 'resources' | 'resourceTemplates'>> {
  const list = async (method: string, key: string): Promise<unknown[]> => {
    const o = await step(method, method);
    const items = o.kind === 'result' ? o.result[key] : undefined;
    return Array.isArray(items) ? items.slice(0, MAX_LISTED) : [];
  };
  const prompts = (await list('prompts/list', 'prompts')).flatMap((p) =>
    isRecord(p) && typeof p.name === 'string'
      ? [
          {
            name: p.name,
            arguments: (Array.isArray(p.arguments) ? p.arguments : []).flatMap((a) =>
              isRecord(a) && typeof a.name === 'string'
                ? [{ name: a.name, ...(a.required === true ? { required: true } : {}) }]
                : [],
            ),
          },
        ]
      : [],
  );
  const uris = (items: unknown[], key: string): string[] =>
    items.flatMap((r) => (isRecord(r) && typeof r[key] === 'string' ? [r[key] as string] : []));
  const resources = uris(await list('resources/list', 'resources'), 'uri');
  const resourceTemplates = uris(
    await list('resources/templates/list', 'resourceTemplates'),
    'uriTemplate',
  );
  return { prompts, resources, resourceTemplates };
}

function readServerInfo(v: unknown): ProtocolInfo['serverInfo'] {
  if (!isRecord(v)) return undefined;
  // Self-reported and untrusted: kept short, it only labels the report.
  return {
    ...(typeof v.name === 'string' ? { name: v.name.slice(0, 200) } : {}),
    ...(typeof v.version === 'string' ? { version: v.version.slice(0, 100) } : {}),
  };
}

/** The problem to report when the target answered 401 or 403 while the era was being learnt. */
function refusedIdentity(evidence: readonly Evidence[]): string | undefined {
  for (const e of evidence) {
    if (e.kind !== 'http') continue;
    const status = e.response?.status;
    if (status !== 401 && status !== 403) continue;
    return (
      `the target refused the identity (HTTP ${status} to ${e.label.replace(/^era: /, '')}): give ` +
      'identities it accepts in STATEGUARD_IDENTITY_A and STATEGUARD_IDENTITY_B (or --identity-a ' +
      'and --identity-b); they are sent as "Authorization: Bearer <identity>", or in the header ' +
      "--identity-header names (e.g. --identity-header 'X-Api-Key: {identity}')"
    );
  }
  return undefined;
}

/** Opens a session on `target`. Never throws for a target problem: it reports it in `problem`. */
export async function openSession(target: Target, options: SessionOptions): Promise<OpenedSession> {
  // Every legacy session id handed out, by the name evidence shows instead (`<session-A>`).
  const sessionNames = new Map<string, string>();
  const stdioFor = (identity?: IdentityName): Channel =>
    target.kind === 'http'
      ? createHttpChannel({
          url: target.url,
          redactor: withSessionIds(options.redactor, sessionNames),
          maxAnswerBytes: options.maxAnswerBytes,
          ...(target.connection ? { connection: target.connection } : {}),
          ...(target.tls ? { tls: target.tls } : {}),
        })
      : createStdioChannel({
          command: target.command,
          args: target.args,
          redactor: options.redactor,
          maxAnswerBytes: options.maxAnswerBytes,
          ...(target.cwd === undefined ? {} : { cwd: target.cwd }),
          ...(identity !== undefined && options.identityEnv !== undefined
            ? {
                env: {
                  ...(target.env ?? process.env),
                  [options.identityEnv]: options.identities[identity],
                },
              }
            : target.env === undefined
              ? {}
              : { env: target.env }),
        });
  // With an environment carrier each identity is its own process, B's started on first use.
  const perIdentity = target.kind === 'stdio' && options.identityEnv !== undefined;
  const channels: Partial<Record<IdentityName, Channel>> = {};
  const channelOf = (identity: IdentityName): Channel => {
    const key = perIdentity ? identity : 'A';
    return (channels[key] ??= stdioFor(perIdentity ? identity : undefined));
  };
  const channel: Channel = {
    send: (req) => channelOf(req.identity ?? 'A').send(req),
    listen: (req) => {
      const c = channelOf(req.identity ?? 'A');
      if (c.listen === undefined) throw new Error('no event stream over this transport');
      return c.listen(req);
    },
    remove: (req) => {
      const c = channelOf(req.identity ?? 'A');
      if (c.remove === undefined) throw new Error('no DELETE over this transport');
      return c.remove(req);
    },
    notify: (message, req) => channelOf(req.identity ?? 'A').notify(message, req),
    takeStderr: () => Object.values(channels).flatMap((c) => c.takeStderr()),
    close: async () => {
      await Promise.all(Object.values(channels).map((c) => c.close()));
    },
  };
  let era: ProtocolInfo['era'] = 'unknown';
  // How requests are framed: modern until `initialize` is tried, which must carry no modern envelope
  // (a dual-era server picks the era from the opening request's `_meta`).
  let framing: 'modern' | 'legacy' = 'modern';
  let negotiated: string | undefined;
  // A legacy server's session per identity: each identity initializes its own (over HTTP, or as its
  // own process), so a server that keys anything on its session sees two clients, as it would.
  const sessionHeaders: Partial<Record<IdentityName, Record<string, string>>> = {};
  const initialized = new Set<IdentityName>(['A']);
  // The session id the last `initialize` was answered with (HTTP), read by `initializeAs`.
  let lastSessionId: string | undefined;
  let nextId = 1;

  function envelope(
    identity: IdentityName,
    params: Record<string, unknown>,
  ): Record<string, unknown> {
    const own = isRecord(params._meta) ? params._meta : {};
    const meta: Record<string, unknown> =
      framing === 'legacy'
        ? {}
        : {
            [`${META}protocolVersion`]: MODERN_VERSION,
            [`${META}clientCapabilities`]: { elicitation: { form: {} } },
            [`${META}clientInfo`]: options.clientInfo,
          };
    if (target.kind === 'stdio' && options.identityEnv === undefined)
      meta[options.principalMetaKey] = options.identities[identity];
    // The probe's own `_meta` keys win: a probe may deliberately send a mismatched envelope.
    const merged = { ...meta, ...own };
    return Object.keys(merged).length > 0 ? { ...params, _meta: merged } : params;
  }

  function identityHeaders(identity: IdentityName): Record<string, string> {
    const h = options.identityHeader;
    if (target.kind !== 'http') return {};
    const extra = Object.fromEntries((options.headers ?? []).map((x) => [x.name, x.value]));
    if (h === undefined) return extra;
    return { ...extra, [h.name]: h.value.split('{identity}').join(options.identities[identity]) };
  }

  async function request(
    method: string,
    params: Record<string, unknown>,
    opts: RequestOptions,
    limit = 'the per-call limit, set by --timeout',
  ): Promise<Exchange> {
    if (
      era === 'legacy' &&
      method !== 'initialize' &&
      opts.session === undefined &&
      !initialized.has(opts.identity) &&
      (target.kind === 'http' || perIdentity)
    ) {
      initialized.add(opts.identity);
      await initializeAs(opts.identity);
    }
    const timeoutMs = opts.timeoutMs ?? options.timeoutMs;
    const timer = new AbortController();
    const who = `${method}${opts.label ? ` '${opts.label}'` : ''} as ${opts.identity}`;
    // Which limit fired, and which flag sets it: a short limit must not read as a slow server.
    const handle = setTimeout(
      () =>
        timer.abort(
          new AbortCause('timeout', `no answer to ${who} within ${timeoutMs} ms (${limit})`),
        ),
      timeoutMs,
    );
    const signals = [timer.signal, options.signal, opts.signal].filter(
      (s): s is AbortSignal => s !== undefined,
    );
    const message: JsonRpcRequest = {
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: envelope(opts.identity, params),
    };
    try {
      const reply = await channel.send({
        message,
        label: opts.label,
        identity: opts.identity,
        ...(target.kind === 'http' && options.identityHeader === undefined && !opts.anonymous
          ? { bearer: options.identities[opts.identity] }
          : {}),
        ...(target.kind === 'http'
          ? {
              protocolVersion:
                framing === 'legacy' ? (negotiated ?? LEGACY_VERSION) : MODERN_VERSION,
            }
          : {}),
        headers: {
          ...sessionHeaderFor(method, opts),
          ...(opts.anonymous ? {} : identityHeaders(opts.identity)),
          ...(target.kind === 'http' ? opts.headers : {}),
        },
        signal: AbortSignal.any(signals),
      });
      if (method === 'initialize') {
        // Read off the raw answer: the evidence already names the id it knows, not this new one.
        lastSessionId = reply.responseHeaders?.['mcp-session-id'];
        if (lastSessionId) {
          const name = nameSession(opts.identity, lastSessionId);
          return { outcome: reply.outcome, evidence: renamed(reply.evidence, lastSessionId, name) };
        }
      }
      return { outcome: reply.outcome, evidence: reply.evidence };
    } finally {
      clearTimeout(handle);
    }
  }

  /** The bearer of a request as `identity`, unless the identity travels in a header of its own. */
  function bearerOf(identity: IdentityName): { bearer?: string } {
    return options.identityHeader === undefined ? { bearer: options.identities[identity] } : {};
  }

  const bounded = (signal: AbortSignal | undefined, ms: number): AbortSignal =>
    AbortSignal.any(
      [AbortSignal.timeout(ms), options.signal, signal].filter(
        (s): s is AbortSignal => s !== undefined,
      ),
    );

  /** The sessions of a legacy HTTP server as the scan holds them (see {@link LegacySessions}). */
  function legacySessions(): LegacySessions {
    return {
      idOf: (identity) => sessionHeaders[identity]?.['mcp-session-id'],
      async open(identity, label, signal) {
        initialized.add(identity);
        let exchange: Exchange | undefined;
        await initializeAs(identity, async (method, _label, params) => {
          exchange = await request(method, params, {
            identity,
            label,
            ...(signal === undefined ? {} : { signal }),
          });
          return exchange.outcome;
        });
        return exchange as Exchange;
      },
      async terminate(identity, label, signal) {
        const reply = await channel.remove!({
          label,
          identity,
          ...bearerOf(identity),
          protocolVersion: negotiated ?? LEGACY_VERSION,
          headers: { ...(sessionHeaders[identity] ?? {}), ...identityHeaders(identity) },
          signal: bounded(signal, options.timeoutMs),
        });
        // Ended or not, the next request opens a session of its own rather than reuse this one.
        delete sessionHeaders[identity];
        initialized.delete(identity);
        return { outcome: reply.outcome, evidence: reply.evidence };
      },
      listen(o) {
        return channel.listen!({
          label: o.label,
          identity: o.identity,
          ...bearerOf(o.identity),
          protocolVersion: negotiated ?? LEGACY_VERSION,
          headers: {
            ...sessionHeaderFor('GET', {
              identity: o.identity,
              label: o.label,
              ...(o.session === undefined ? {} : { session: o.session }),
            }),
            ...identityHeaders(o.identity),
          },
          signal: bounded(o.signal, options.timeoutMs * 4 + o.windowMs),
          windowMs: o.windowMs,
          maxBytes: Math.min(o.maxBytes, options.maxAnswerBytes),
          timeoutMs: options.timeoutMs,
          ...(o.during === undefined ? {} : { during: o.during }),
        });
      },
    };
  }

  /**
   * The session id a request carries: none on `initialize` (it opens one) or when anonymous; the
   * probe's choice when it made one (`session`); else the identity's own.
   */
  function sessionHeaderFor(method: string, opts: RequestOptions): Record<string, string> {
    if (opts.anonymous || (method === 'initialize' && opts.session === undefined)) return {};
    if (opts.session === null) return {};
    if (typeof opts.session === 'string') return { 'mcp-session-id': opts.session };
    return sessionHeaders[opts.identity] ?? {};
  }

  /** The name evidence shows for session `sid` of `identity` (`<session-A>`, `<session-A#2>`). */
  function nameSession(identity: IdentityName, sid: string): string {
    const known = sessionNames.get(sid);
    if (known !== undefined) return known;
    const n = [...sessionNames.values()].filter((v) => v.startsWith(`<session-${identity}`)).length;
    const name = n === 0 ? `<session-${identity}>` : `<session-${identity}#${n + 1}>`;
    sessionNames.set(sid, name);
    return name;
  }

  /** Remembers `sid` as `identity`'s current session. */
  function keepSession(identity: IdentityName, sid: string): void {
    sessionHeaders[identity] = { 'mcp-session-id': sid };
    nameSession(identity, sid);
  }

  /**
   * `initialize` and `notifications/initialized` as `identity`, keeping the session id the server
   * hands out for that identity. A is initialized while the era is decided; B on its first request.
   */
  async function initializeAs(
    identity: IdentityName,
    send: (
      method: string,
      label: string,
      params: Record<string, unknown>,
    ) => Promise<Outcome> = async (method, label, params) =>
      (await request(method, params, { identity, label })).outcome,
  ): Promise<{ outcome: Outcome }> {
    const outcome = await send(
      'initialize',
      identity === 'A' ? 'era: legacy initialize' : `legacy initialize as ${identity}`,
      {
        protocolVersion: negotiated ?? LEGACY_VERSION,
        capabilities: { elicitation: {} },
        clientInfo: options.clientInfo,
      },
    );
    if (outcome.kind !== 'result' || typeof outcome.result.protocolVersion !== 'string')
      return { outcome };
    const sid = lastSessionId;
    if (sid) keepSession(identity, sid);
    else delete sessionHeaders[identity];
    await channel.notify(
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      {
        label: 'notifications/initialized',
        identity,
        ...(target.kind === 'http'
          ? {
              ...(options.identityHeader === undefined
                ? { bearer: options.identities[identity] }
                : {}),
              protocolVersion: outcome.result.protocolVersion,
            }
          : {}),
        headers: { ...(sessionHeaders[identity] ?? {}), ...identityHeaders(identity) },
        signal: AbortSignal.timeout(options.timeoutMs),
      },
    );
    return { outcome };
  }

  const evidence: Evidence[] = [];
  // Only the very first exchange with a stdio child waits for the process to start.
  let startup = target.kind === 'stdio' ? (options.startupTimeoutMs ?? 0) : 0;
  const step = async (method: string, label: string, params: Record<string, unknown> = {}) => {
    const timeoutMs = Math.max(options.timeoutMs, startup);
    const limit =
      startup > options.timeoutMs
        ? "the limit on a stdio server's first answer, set by --startup-timeout"
        : undefined;
    startup = 0;
    const exchange = await request(method, params, { identity: 'A', label, timeoutMs }, limit);
    evidence.push(exchange.evidence);
    return exchange.outcome;
  };

  let discover = false;
  let serverInfo: ProtocolInfo['serverInfo'];
  const tried: string[] = [];
  const unreachable = (o: Outcome): boolean => o.kind === 'failure' && UNREACHABLE.has(o.failure);

  const d = await step('server/discover', 'era: server/discover');
  tried.push(`server/discover (${describe(d)})`);
  let modernList: Outcome | undefined;
  if (
    d.kind === 'result' &&
    (Array.isArray(d.result.supportedVersions) || 'resultType' in d.result)
  ) {
    const versions = d.result.supportedVersions;
    if (!Array.isArray(versions) || versions.includes(MODERN_VERSION)) {
      era = 'modern';
      discover = true;
      serverInfo = readServerInfo(
        isRecord(d.result._meta) ? d.result._meta[`${META}serverInfo`] : undefined,
      );
    }
  } else if (d.kind === 'error' && MODERN_ERRORS.has(d.code)) {
    era = 'modern';
  } else if (!unreachable(d) && !(d.kind === 'failure' && d.failure === 'timeout')) {
    // Liberal: a server without server/discover that answers a modern tools/list is modern.
    modernList = await step('tools/list', 'era: modern tools/list');
    tried.push(`tools/list (${describe(modernList)})`);
    if (modernList.kind === 'result' && 'resultType' in modernList.result) era = 'modern';
  }

  const tools: ToolInfo[] = [];
  const deviations: string[] = [];
  let problem: string | undefined;
  if (era === 'modern') {
    // Settled by discover or a modern error.
  } else if (unreachable(d) || (modernList !== undefined && unreachable(modernList))) {
    problem = `the target did not answer: ${tried.join('; ')}`;
  } else {
    framing = 'legacy';
    const opened = await initializeAs('A', step);
    const init = opened.outcome;
    tried.push(`initialize (${describe(init)})`);
    if (init.kind === 'result' && typeof init.result.protocolVersion === 'string') {
      era = 'legacy';
      negotiated = init.result.protocolVersion;
      serverInfo = readServerInfo(init.result.serverInfo);
      const list = await step('tools/list', 'tools/list (legacy)');
      if (list.kind === 'result') readTools(list.result, tools);
    } else if (
      modernList?.kind === 'result' &&
      Array.isArray(modernList.result.tools) &&
      !unreachable(init)
    ) {
      // It lists tools with no handshake and refuses the handshake: the stateless core, written
      // loosely. Each omission is an observation, not a reason to stop.
      framing = 'modern';
      era = 'modern';
      deviations.push(
        `initialize refused (${describe(init)}) while tools/list answered without one`,
      );
    } else {
      framing = 'modern';
      problem = `the target answered neither as a 2026-07-28 nor as an older MCP server: ${tried.join('; ')}`;
    }
  }
  const lists: Pick<ProtocolInfo, 'prompts' | 'resources' | 'resourceTemplates'> = {
    prompts: [],
    resources: [],
    resourceTemplates: [],
  };
  if (era === 'modern') {
    if (!discover) deviations.unshift(`no server/discover (${describe(d)})`);
    let outcome = modernList ?? (await step('tools/list', 'tools/list'));
    if (outcome.kind === 'result' && !('resultType' in outcome.result))
      deviations.push('tools/list result without resultType');
    // Every page, by `nextCursor`, bounded: a cursor seen before (a loop) or too many pages stop
    // it, and the tools left unlisted are said to be so.
    const cursors = new Set<string>();
    for (let page = 1; ; page++) {
      if (outcome.kind !== 'result') break;
      readTools(outcome.result, tools);
      serverInfo ??= readServerInfo(
        isRecord(outcome.result._meta) ? outcome.result._meta[`${META}serverInfo`] : undefined,
      );
      const cursor = outcome.result.nextCursor;
      if (typeof cursor !== 'string' || cursor.length === 0) break;
      if (cursors.has(cursor) || page >= MAX_TOOL_PAGES || tools.length >= MAX_TOOLS) {
        deviations.push(
          cursors.has(cursor)
            ? `tools/list repeated a nextCursor after ${page} page(s): the pages after it were not read`
            : `tools/list had more than ${page} page(s) (${tools.length} tools read): the rest were not read`,
        );
        break;
      }
      cursors.add(cursor);
      outcome = await step('tools/list', `tools/list page ${page + 1}`, { cursor });
    }
    Object.assign(lists, await readLists(step));
  }

  // A refused identity is the user's to fix, not a server that speaks no MCP: say so, and how.
  if (problem !== undefined) problem = refusedIdentity(evidence) ?? problem;

  const protocol: ProtocolInfo = {
    era,
    ...(era === 'modern' ? { protocolVersion: MODERN_VERSION } : {}),
    ...(era === 'legacy' && negotiated ? { protocolVersion: negotiated } : {}),
    ...(serverInfo ? { serverInfo } : {}),
    discover,
    tools,
    ...lists,
    deviations,
  };
  const session: EngineSession = {
    transport: target.kind,
    protocol,
    request,
    ...(target.kind === 'http' ? { sessions: legacySessions() } : {}),
    takeStderr: () => channel.takeStderr(),
    close: () => channel.close(),
  };
  return { session, evidence, ...(problem ? { problem } : {}) };
}
