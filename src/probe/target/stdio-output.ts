/**
 * Reading a stdio child's output: stdout cut into lines (a line longer than the limit is dropped
 * whole, not cut), and stderr kept, bounded, for the evidence and for what a crash says.
 */
import { StringDecoder } from 'node:string_decoder';
import type { Outcome } from '../model/wire.js';
import { failure } from './jsonrpc.js';

const MAX_STDERR_LINES = 200;
const MAX_STDERR_LINE = 500;
// How many stderr lines a crash's failure quotes.
const CRASH_STDERR_LINES = 3;

/**
 * A stdout `data` handler that hands each whole line to `onLine`. A line past `maxBytes` is
 * dropped up to its newline, and `onOverlong` is told once when it passes the limit.
 */
export function stdoutLines(
  maxBytes: number,
  onLine: (line: string) => void,
  onOverlong: () => void,
): (chunk: Buffer) => void {
  const out = new StringDecoder('utf8');
  let line = '';
  let discarding = false;
  return (chunk) => {
    let text = out.write(chunk);
    for (;;) {
      const nl = text.indexOf('\n');
      if (nl < 0) break;
      const piece = text.slice(0, nl);
      text = text.slice(nl + 1);
      if (!discarding) onLine(line + piece);
      line = '';
      discarding = false;
    }
    if (discarding) return;
    line += text;
    if (line.length > maxBytes) {
      line = '';
      discarding = true;
      onOverlong();
    }
  };
}

/** A child's stderr, kept by line and bounded. */
export interface StderrLog {
  /** A stderr `data` handler. */
  write(chunk: Buffer): void;
  /** The lines written since the last call. */
  take(): string[];
  /** The last lines written, kept whether taken or not. */
  readonly lines: readonly string[];
}

/** An empty {@link StderrLog}. */
export function createStderrLog(): StderrLog {
  const err = new StringDecoder('utf8');
  const lines: string[] = [];
  let errLine = '';
  let untaken: string[] = [];
  return {
    lines,
    write(chunk) {
      const parts = (errLine + err.write(chunk)).split('\n');
      errLine = (parts.pop() ?? '').slice(0, 4096);
      for (const part of parts) {
        const kept = part.slice(0, MAX_STDERR_LINE);
        lines.push(kept);
        untaken.push(kept);
        if (lines.length > MAX_STDERR_LINES) lines.shift();
        if (untaken.length > MAX_STDERR_LINES) untaken.shift();
      }
    },
    take() {
      const taken = untaken;
      untaken = [];
      return taken;
    },
  };
}

/**
 * A line that states an error, as runtimes print one when a program dies: Node's
 * `Error: Cannot find module '/x.js'` (and `TypeError: …`, `SyntaxError: …`), Python's last
 * `ModuleNotFoundError: No module named 'x'`, Java's `Exception in thread "main" …`, a Go or shell
 * `error: …`/`fatal: …`/`panic: …`, Rust's `thread 'main' panicked at …:` (with the message on
 * the line after it). Stack frames
 * (`    at …`, `  File "…"`), a source excerpt and Node's closing `Node.js v20.20.2` are not.
 */
const ERROR_LINE =
  /^(?:(?:[A-Za-z_$][\w$.]*)?(?:Error|Exception)(?: \[[\w-]+\])?:|(?:error|fatal|panic)(?:\[[\w-]+\])?:|Exception in thread |thread '[^']*' panicked at )/i;

/**
 * The line of `stderr` that says what went wrong: the last line shaped as an error
 * ({@link ERROR_LINE}), trimmed; undefined when none is. The last, because a runtime prints the
 * error that ended the process last (Python's chain ends with it; Node prints one, and its
 * `[cause]` lines are indented).
 */
export function errorLine(stderr: readonly string[]): string | undefined {
  for (let i = stderr.length - 1; i >= 0; i--) {
    const line = stderr[i] as string;
    // An indented line is a frame, a cause or a code excerpt, never the error itself.
    if (/^\s/.test(line)) continue;
    if (!ERROR_LINE.test(line)) continue;
    // Rust puts a panic's message on the next line: `thread 'main' panicked at src/main.rs:3:5:`.
    const next = stderr[i + 1]?.trim() ?? '';
    return line.trimEnd().endsWith(':') && next.length > 0 ? `${line.trim()} ${next}` : line.trim();
  }
  return undefined;
}

/**
 * What a crash says: the exit, and the error line the server wrote to stderr
 * ({@link errorLine}), or else its last lines. The tail of a stack (`requireStack: [] | } |
 * Node.js v20`) says nothing; the error line says what to fix. Lines are kept bounded by the
 * {@link StderrLog}; redaction and escaping happen where every target text is redacted and shown.
 */
export function exitFailure(
  code: number | null,
  signal: NodeJS.Signals | null,
  stderr: readonly string[],
): Outcome {
  const how = signal ? `was killed by ${signal}` : `exited with code ${code ?? 'unknown'}`;
  const error = errorLine(stderr);
  if (error !== undefined)
    return failure('closed', `server ${how} before answering; its stderr says: ${error}`);
  const last = stderr
    .filter((l) => l.trim().length > 0)
    .slice(-CRASH_STDERR_LINES)
    .map((l) => l.trim());
  const tail = last.length > 0 ? `; its stderr ends: ${last.join(' | ')}` : '';
  return failure('closed', `server ${how} before answering${tail}`);
}
