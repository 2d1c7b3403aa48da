/**
 * The capture file of `stateguard watch`: one JSON line per message seen, in order, after a header
 * line. A finding points at these line numbers, so a line never spans two messages.
 *
 * Line 1, the header:
 *
 *     {"stateguard":"capture","version":1,"transport":"stdio","target":"…","started":"…","key":"…"}
 *
 * `key` is a random 256-bit key (base64url) drawn for this capture alone: principals, states and
 * session ids are recorded as its HMAC-SHA256 (16 hex digits), so one capture can compare them and
 * no capture reveals them. Every further line is a {@link CaptureLine}. The message is copied as the
 * scanner's evidence is (`probe/evidence/evidence.ts`: bearer tokens and credential headers
 * replaced, strings and nesting bounded); every `requestState` is replaced by `<state:DIGEST>` with
 * its {@link StateShape} beside it, and the principal named in `_meta` by `<principal:DIGEST>`.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createRedactor, type ExtraSecret, type Redactor } from '../probe/evidence/evidence.js';
import type { TransportKind } from '../probe/model/target.js';
import { stateShape, type StateShape } from './state-shape.js';
import { isRecord } from '../probe/model/json.js';

export const CAPTURE_VERSION = 1;

/** The first line of a capture. */
export interface CaptureHeader {
  readonly stateguard: 'capture';
  readonly version: typeof CAPTURE_VERSION;
  readonly transport: TransportKind;
  /** The server watched, as the user named it (a command line or an upstream URL), redacted. */
  readonly target: string;
  readonly started: string;
  /** The capture's digest key, base64url. */
  readonly key: string;
}

/** A state seen in a message: where, its digest and length, and what it shows. */
export interface CapturedState extends StateShape {
  /** `params` (a client sent it back) or `result` (a server issued it). */
  readonly at: 'params' | 'result';
  readonly digest: string;
  readonly length: number;
}

/** One message seen by the proxy. */
export interface CaptureLine {
  /** This line's number in the file (the header is line 1). */
  readonly n: number;
  /** ISO time the proxy saw the message. */
  readonly t: string;
  /** `c2s`: client to server; `s2c`: server to client. */
  readonly dir: 'c2s' | 's2c';
  /** Digest of who sent the request (on an answer: who sent the request it answers). */
  readonly principal?: string;
  /** On an answer: the line of the request it answers. */
  readonly re?: number;
  /** HTTP only: the request's method and path, the answer's status, a session id's digest. */
  readonly http?: {
    readonly method: string;
    readonly path: string;
    readonly status?: number;
    readonly session?: string;
    /** Bits an `Mcp-Session-Id` the server handed out can hold (its length × its alphabet's). */
    readonly sessionBits?: number;
    /**
     * The session id counts on from the two distinct ones handed out before it (the proxy keeps
     * those two, never records them): a successor a client could guess.
     */
    readonly sessionCounts?: true;
  };
  /** The JSON-RPC message, redacted and bounded; absent when it was not JSON or too large. */
  readonly msg?: unknown;
  readonly states?: readonly CapturedState[];
  /** Bytes of a message not recorded: larger than the cap, or not JSON. */
  readonly skipped?: { readonly bytes: number; readonly why: 'oversize' | 'not-json' };
}

/** Longest message parsed and recorded; a longer one is relayed untouched and noted by size. */
export const MAX_RECORDED_MESSAGE = 1024 * 1024;
/** Length of a digest in hex digits (64 bits: collisions among one capture's values are negligible). */
const DIGEST_HEX = 16;

/** Computes this capture's digests. */
export interface Digester {
  readonly key: string;
  digest(kind: string, value: string): string;
}

/** A digester over `key` (base64url), or a new random key. */
export function createDigester(key: string = randomBytes(32).toString('base64url')): Digester {
  const bytes = Buffer.from(key, 'base64url');
  if (bytes.length !== 32)
    throw new RangeError(`capture key must be 32 bytes, got ${bytes.length}`);
  return {
    key,
    // The kind is inside the MAC, so a state and a principal of equal text never share a digest.
    digest: (kind, value) =>
      createHmac('sha256', bytes).update(`${kind}\0${value}`).digest('hex').slice(0, DIGEST_HEX),
  };
}

/** What the proxy knows of a message besides its bytes. */
export interface MessageContext {
  readonly dir: 'c2s' | 's2c';
  readonly principal?: string;
  /** The principal's text in `_meta` (stdio), replaced in the recorded copy by its digest. */
  readonly principalMeta?: { readonly key: string; readonly value: string };
  readonly re?: number;
  readonly http?: CaptureLine['http'];
}

const plainRedactor = createRedactor({});

/** Most principal secrets one capture redacts by value (the rest only as bearer tokens). */
const MAX_SECRETS = 64;

/**
 * Replaces each `requestState` of `message` (in params and result, as the protocol places it) by
 * its digest, and says what each showed. Mutates the parsed copy, never the relayed bytes.
 */
function summariseStates(message: Record<string, unknown>, digester: Digester): CapturedState[] {
  const out: CapturedState[] = [];
  for (const at of ['params', 'result'] as const) {
    const holder = message[at];
    if (!isRecord(holder) || typeof holder['requestState'] !== 'string') continue;
    const state = holder['requestState'];
    const digest = digester.digest('state', state);
    out.push({ at, digest, length: state.length, ...stateShape(state) });
    holder['requestState'] = `<state:${digest}>`;
  }
  return out;
}

/** The recorded line of one message (`text` is the message without its newline). */
export function captureLine(
  n: number,
  text: string,
  context: MessageContext,
  digester: Digester,
  now: Date = new Date(),
  parsed?: { readonly value: unknown },
  redactor: Redactor = plainRedactor,
): CaptureLine {
  const base = {
    n,
    t: now.toISOString(),
    dir: context.dir,
    ...(context.principal === undefined ? {} : { principal: context.principal }),
    ...(context.re === undefined ? {} : { re: context.re }),
    ...(context.http === undefined ? {} : { http: context.http }),
  };
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_RECORDED_MESSAGE) return { ...base, skipped: { bytes, why: 'oversize' } };
  let message: unknown;
  if (parsed !== undefined) message = parsed.value;
  else
    try {
      message = JSON.parse(text);
    } catch {
      return { ...base, skipped: { bytes, why: 'not-json' } };
    }
  const states = isRecord(message) ? summariseStates(message, digester) : [];
  const meta = context.principalMeta;
  if (meta !== undefined && isRecord(message) && isRecord(message['params'])) {
    const m = message['params']['_meta'];
    if (isRecord(m) && m[meta.key] === meta.value)
      m[meta.key] = `<principal:${context.principal ?? digester.digest('principal', meta.value)}>`;
  }
  return {
    ...base,
    msg: redactor.value(message),
    ...(states.length > 0 ? { states } : {}),
  };
}

/** The header line of a new capture. */
export function captureHeader(
  transport: TransportKind,
  target: string,
  digester: Digester,
  now: Date = new Date(),
): CaptureHeader {
  return {
    stateguard: 'capture',
    version: CAPTURE_VERSION,
    transport,
    target: plainRedactor.string(target).slice(0, 1024),
    started: now.toISOString(),
    key: digester.key,
  };
}

/** A capture read back: its header and lines, or why it cannot be read. */
export type ParsedCapture =
  { readonly header: CaptureHeader; readonly lines: CaptureLine[] } | { readonly problem: string };

/**
 * Reads a capture's text. Lines that are not capture lines are skipped (counted in `problem` only
 * when the header is missing); each line's number is where it stands in the file, whatever its
 * `n` says, so a finding always points at the real line.
 */
export function parseCapture(text: string): ParsedCapture {
  const raw = text.split('\n');
  let header: CaptureHeader | undefined;
  try {
    const first: unknown = JSON.parse(raw[0] ?? '');
    if (isRecord(first) && first['stateguard'] === 'capture') header = first as never;
  } catch {
    // Reported below.
  }
  if (header === undefined) return { problem: 'line 1 is not a stateguard capture header' };
  if (header.version !== CAPTURE_VERSION)
    return { problem: `capture version ${String(header.version)} is not supported` };
  const lines: CaptureLine[] = [];
  for (let i = 1; i < raw.length; i++) {
    const line = raw[i] as string;
    if (line.trim() === '') continue;
    try {
      const v: unknown = JSON.parse(line);
      if (isRecord(v) && (v['dir'] === 'c2s' || v['dir'] === 's2c'))
        lines.push({ ...(v as unknown as CaptureLine), n: i + 1 });
    } catch {
      // A torn last line (the proxy was killed mid-write) is skipped.
    }
  }
  return { header, lines };
}

/**
 * Writes a capture: the header, then one line per message, numbered. `write` receives whole lines
 * (with their newline) and must not reorder them.
 */
export class CaptureWriter {
  readonly digester: Digester;
  #next = 2;
  #secrets: ExtraSecret[] = [];
  #redactor: Redactor = plainRedactor;
  readonly #write: (line: string) => void;

  constructor(
    transport: TransportKind,
    target: string,
    write: (line: string) => void,
    digester: Digester = createDigester(),
  ) {
    this.digester = digester;
    this.#write = write;
    write(`${JSON.stringify(captureHeader(transport, target, digester))}\n`);
  }

  /**
   * Redacts `value` (a principal's name or token) by value in every later line, wherever the
   * server echoes it, as `<principal:DIGEST>`.
   */
  addSecret(value: string, digest: string): void {
    if (this.#secrets.length >= MAX_SECRETS || this.#secrets.some((x) => x.value === value)) return;
    this.#secrets.push({ value, placeholder: `<principal:${digest}>` });
    this.#redactor = createRedactor({}, this.#secrets);
  }

  /**
   * Records one message; returns its line number. `parsed` is the message already parsed from
   * `text` (it is changed: its states are replaced by their digests).
   */
  record(text: string, context: MessageContext, parsed?: { readonly value: unknown }): number {
    const n = this.#next++;
    this.#write(
      `${JSON.stringify(captureLine(n, text, context, this.digester, new Date(), parsed, this.#redactor))}\n`,
    );
    return n;
  }

  /** Records an HTTP exchange side with no body (a GET, a DELETE, a 202). */
  recordBare(context: MessageContext): number {
    const n = this.#next++;
    const line: CaptureLine = {
      n,
      t: new Date().toISOString(),
      dir: context.dir,
      ...(context.principal === undefined ? {} : { principal: context.principal }),
      ...(context.re === undefined ? {} : { re: context.re }),
      ...(context.http === undefined ? {} : { http: context.http }),
    };
    this.#write(`${JSON.stringify(line)}\n`);
    return n;
  }

  /** Records a message too large to keep: its size only. */
  recordOversize(bytes: number, context: MessageContext): number {
    const n = this.#next++;
    const line: CaptureLine = {
      n,
      t: new Date().toISOString(),
      dir: context.dir,
      ...(context.principal === undefined ? {} : { principal: context.principal }),
      ...(context.re === undefined ? {} : { re: context.re }),
      ...(context.http === undefined ? {} : { http: context.http }),
      skipped: { bytes, why: 'oversize' },
    };
    this.#write(`${JSON.stringify(line)}\n`);
    return n;
  }
}
