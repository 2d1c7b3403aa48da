/**
 * The stdio proxy of `stateguard watch --stdio "<server command>"`: a client starts it in place of
 * the server; it starts the server (an argv array, no shell), relays the client's stdin to the
 * server's stdin and the server's stdout to its own stdout byte for byte, passes the server's
 * stderr through, and records each newline-framed message of a copy of both streams.
 *
 * The relay is `pipe()`: bytes are written on before the copy is framed, parsing never holds a
 * chunk back, and a slow reader slows its writer as it would without the proxy. Memory is bounded:
 * a message longer than {@link MAX_RECORDED_MESSAGE} is recorded by size only, and the map from
 * request ids to their capture lines holds at most {@link MAX_PENDING} entries (the oldest go).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { MAX_RECORDED_MESSAGE, type CaptureWriter } from './capture.js';
import { LineFramer, type Framed } from './framing.js';
import { metaIdentity, principalDigest, type PrincipalSources } from './principal.js';

/** Most requests awaiting an answer remembered per direction. */
export const MAX_PENDING = 4096;

/** Options of one proxy run. */
export interface StdioProxyOptions {
  readonly command: string;
  readonly args: readonly string[];
  /** The server's environment; default the proxy's own (the client set it for the server). */
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  readonly capture?: CaptureWriter;
  readonly principal: PrincipalSources;
  /** The client side: default the process's stdin, stdout and stderr. */
  readonly input?: Readable;
  readonly output?: Writable;
  readonly errorOutput?: Writable;
}

/** A running proxy. */
export interface StdioProxy {
  readonly child: ChildProcess;
  /** Resolves with the server's exit code (128 + signal number when a signal ended it). */
  readonly exited: Promise<number>;
}

const SIGNALS: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 2, SIGTERM: 15, SIGKILL: 9 };

interface Pending {
  readonly line: number;
  readonly principal?: string;
}

/** An id as a map key: `1` and `"1"` are different requests. */
const idKey = (id: unknown): string | undefined =>
  typeof id === 'string' ? `s:${id}` : typeof id === 'number' ? `n:${id}` : undefined;

/**
 * Records the framed messages of one direction, pairing answers with the requests of the other
 * direction they answer.
 */
function recorder(
  capture: CaptureWriter,
  dir: 'c2s' | 's2c',
  mine: Map<string, Pending>,
  theirs: Map<string, Pending>,
  sources: PrincipalSources,
): (framed: Framed) => void {
  return (framed) => {
    if ('oversize' in framed) {
      capture.recordOversize(framed.oversize, { dir });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(framed.text);
    } catch {
      capture.record(framed.text, { dir });
      return;
    }
    const msg =
      typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
    const key = idKey(msg['id']);
    if (typeof msg['method'] === 'string') {
      // A request (or notification) of this direction.
      const meta = dir === 'c2s' ? metaIdentity(value, sources.metaKey) : undefined;
      const principal =
        dir === 'c2s' ? principalDigest(capture.digester, sources, {}, value) : undefined;
      if (meta !== undefined && principal !== undefined) capture.addSecret(meta, principal);
      const line = capture.record(
        framed.text,
        {
          dir,
          ...(principal === undefined ? {} : { principal }),
          ...(meta === undefined ? {} : { principalMeta: { key: sources.metaKey, value: meta } }),
        },
        { value },
      );
      if (key !== undefined) {
        mine.delete(key);
        mine.set(key, { line, ...(principal === undefined ? {} : { principal }) });
        if (mine.size > MAX_PENDING) mine.delete(mine.keys().next().value as string);
      }
      return;
    }
    const asked = key === undefined ? undefined : theirs.get(key);
    if (key !== undefined) theirs.delete(key);
    capture.record(
      framed.text,
      {
        dir,
        ...(asked?.principal === undefined ? {} : { principal: asked.principal }),
        ...(asked === undefined ? {} : { re: asked.line }),
      },
      { value },
    );
  };
}

/** Starts the server behind the proxy and relays until both sides are done. */
export function startStdioProxy(options: StdioProxyOptions): StdioProxy {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const errorOutput = options.errorOutput ?? process.stderr;
  const child = spawn(options.command, [...options.args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: options.env ?? process.env,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    shell: false,
    windowsHide: true,
  });
  const stdin = child.stdin as Writable;
  const stdout = child.stdout as Readable;
  const stderr = child.stderr as Readable;
  // The relay first: `pipe` attaches its listener before the recorder's, so each chunk is written
  // on before its copy is framed.
  input.pipe(stdin);
  stdout.pipe(output, { end: false });
  stderr.pipe(errorOutput, { end: false });
  // A server that exits early closes its stdin: the client's later bytes have nowhere to go.
  stdin.on('error', () => undefined);
  const capture = options.capture;
  if (capture !== undefined) {
    const fromClient = new Map<string, Pending>();
    const fromServer = new Map<string, Pending>();
    const c2s = new LineFramer(
      MAX_RECORDED_MESSAGE,
      recorder(capture, 'c2s', fromClient, fromServer, options.principal),
    );
    const s2c = new LineFramer(
      MAX_RECORDED_MESSAGE,
      recorder(capture, 's2c', fromServer, fromClient, options.principal),
    );
    input.on('data', (chunk: Buffer) => c2s.push(chunk));
    input.on('end', () => c2s.end());
    stdout.on('data', (chunk: Buffer) => s2c.push(chunk));
    stdout.on('end', () => s2c.end());
  }
  const exited = new Promise<number>((resolve) => {
    child.on('error', (error) => {
      errorOutput.write(`stateguard watch: cannot start the server: ${error.message}\n`);
      resolve(127);
    });
    child.on('close', (code, signal) => {
      input.unpipe(stdin);
      resolve(code ?? 128 + (signal === null ? 0 : (SIGNALS[signal] ?? 0)));
    });
  });
  return { child, exited };
}
