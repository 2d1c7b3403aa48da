/**
 * What every request of one session shares: the channel, the era's framing, and a legacy server's
 * sessions per identity. The era rules (`session-era.ts`) set the framing once the target has
 * answered; requests (`session-request.ts`) read it on every send.
 */
import type { Evidence } from '../model/evidence.js';
import type { IdentityName, Target } from '../model/target.js';
import type { ProtocolInfo, RequestOptions } from '../model/wire.js';
import type { Channel } from './jsonrpc.js';
import { MODERN_CAPABILITIES } from './capabilities.js';
import { createServerPaces, type ServerPaces } from './pace.js';
import { processPerIdentity, sessionChannel } from './session-channel.js';
import { META, MODERN_VERSION, type SessionOptions } from './session-options.js';
import { isRecord } from '../model/json.js';

/** One session's shared state; the fields that change say when. */
export interface Wire {
  readonly target: Target;
  readonly options: SessionOptions;
  readonly channel: Channel;
  /**
   * The server's paces, one per identity: every request passes its identity's gate, and a shed
   * request waits on it.
   */
  readonly paces: ServerPaces;
  /** Each identity is a process of its own (stdio with an environment carrier). */
  readonly perIdentity: boolean;
  /** Every legacy session id handed out, by the name evidence shows instead (`<session-A>`). */
  readonly sessionNames: Map<string, string>;
  /**
   * A legacy server's session per identity: each identity initializes its own (over HTTP, or as its
   * own process), so a server that keys anything on its session sees two clients, as it would.
   */
  readonly sessionHeaders: Partial<Record<IdentityName, Record<string, string>>>;
  /** The identities whose legacy session is open (A's is opened while the era is learnt). */
  readonly initialized: Set<IdentityName>;
  /** The era, once learnt (`unknown` until then). */
  era: ProtocolInfo['era'];
  /**
   * How requests are framed: modern until `initialize` is tried, which must carry no modern envelope
   * (a dual-era server picks the era from the opening request's `_meta`).
   */
  framing: 'modern' | 'legacy';
  /** The version a legacy server answered `initialize` with. */
  negotiated: string | undefined;
  /** The session id the last `initialize` was answered with (HTTP), read by `initializeAs`. */
  lastSessionId: string | undefined;
  /** The JSON-RPC id of the next request. */
  nextId: number;
  /**
   * The client capabilities a modern request declares: the era's own, plus what a `-32021` asked
   * for and the scanner can honour (`capabilities.ts`).
   */
  declared: Readonly<Record<string, unknown>>;
}

/** A fresh session's state on a channel to `target`. */
export function createWire(target: Target, options: SessionOptions): Wire {
  const sessionNames = new Map<string, string>();
  return {
    target,
    options,
    channel: sessionChannel(target, options, sessionNames),
    paces: options.paces ?? createServerPaces(),
    perIdentity: processPerIdentity(target, options),
    sessionNames,
    sessionHeaders: {},
    initialized: new Set<IdentityName>(['A']),
    era: 'unknown',
    framing: 'modern',
    negotiated: undefined,
    lastSessionId: undefined,
    nextId: 1,
    declared: MODERN_CAPABILITIES,
  };
}

/** `params` with the era's `_meta` envelope (and over stdio the identity) merged under its own. */
export function envelope(
  wire: Wire,
  identity: IdentityName,
  params: Record<string, unknown>,
): Record<string, unknown> {
  const { target, options } = wire;
  const own = isRecord(params._meta) ? params._meta : {};
  const meta: Record<string, unknown> =
    wire.framing === 'legacy'
      ? {}
      : {
          [`${META}protocolVersion`]: MODERN_VERSION,
          [`${META}clientCapabilities`]: wire.declared,
          [`${META}clientInfo`]: options.clientInfo,
        };
  if (target.kind === 'stdio' && options.identityEnv === undefined)
    meta[options.principalMetaKey] = options.identities[identity];
  // The probe's own `_meta` keys win: a probe may deliberately send a mismatched envelope.
  const merged = { ...meta, ...own };
  return Object.keys(merged).length > 0 ? { ...params, _meta: merged } : params;
}

/** HTTP: the `--header` headers, and the identity's own header when it travels in one. */
export function identityHeaders(wire: Wire, identity: IdentityName): Record<string, string> {
  const { target, options } = wire;
  const h = options.identityHeader;
  if (target.kind !== 'http') return {};
  const extra = Object.fromEntries((options.headers ?? []).map((x) => [x.name, x.value]));
  if (h === undefined) return extra;
  return { ...extra, [h.name]: h.value.split('{identity}').join(options.identities[identity]) };
}

/** The bearer of a request as `identity`, unless the identity travels in a header of its own. */
export function bearerOf(wire: Wire, identity: IdentityName): { bearer?: string } {
  return wire.options.identityHeader === undefined
    ? { bearer: wire.options.identities[identity] }
    : {};
}

/**
 * The session id a request carries: none on `initialize` (it opens one) or when anonymous; the
 * probe's choice when it made one (`session`); else the identity's own.
 */
export function sessionHeaderFor(
  wire: Wire,
  method: string,
  opts: RequestOptions,
): Record<string, string> {
  if (opts.anonymous || (method === 'initialize' && opts.session === undefined)) return {};
  if (opts.session === null) return {};
  if (typeof opts.session === 'string') return { 'mcp-session-id': opts.session };
  return wire.sessionHeaders[opts.identity] ?? {};
}

/** The name evidence shows for session `sid` of `identity` (`<session-A>`, `<session-A#2>`). */
export function nameSession(wire: Wire, identity: IdentityName, sid: string): string {
  const known = wire.sessionNames.get(sid);
  if (known !== undefined) return known;
  const n = [...wire.sessionNames.values()].filter((v) =>
    v.startsWith(`<session-${identity}`),
  ).length;
  const name = n === 0 ? `<session-${identity}>` : `<session-${identity}#${n + 1}>`;
  wire.sessionNames.set(sid, name);
  return name;
}

/** Remembers `sid` as `identity`'s current session. */
export function keepSession(wire: Wire, identity: IdentityName, sid: string): void {
  wire.sessionHeaders[identity] = { 'mcp-session-id': sid };
  nameSession(wire, identity, sid);
}

/**
 * `evidence` with session id `sid` replaced by `name`: the exchange that handed the id out was
 * recorded before the id had a name. Evidence is plain, bounded JSON, so a textual swap is exact.
 */
export function renamed(evidence: Evidence, sid: string, name: string): Evidence {
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
