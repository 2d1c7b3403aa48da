/**
 * stdio channel: spawns the target (no shell), writes newline-delimited JSON-RPC to its stdin and
 * matches the lines it writes to stdout by id. stderr is kept, bounded, as evidence.
 *
 * A server that crashes, prints garbage, floods notifications or asks the client something before
 * answering must end each request with an outcome, never hang the scan or crash it.
 *
 * The child runs in a hold of its own (a process group, and on Linux a cgroup where one can be made:
 * see `hold.ts`), and closing stops all of it, whether or not the pipes closed already: a wrapper
 * script whose child (`sleep 100`, a watcher, a server it started) keeps the pipes open would
 * otherwise keep the scan waiting long after the deadline, and a helper started with its stdio
 * closed would outlive it. Once the hold is told to stop, the pipes are let go: nothing still
 * holding them can make the scanner wait.
 *
 * The phases: starting and stopping the process (`stdio-process.ts`), reading its output
 * (`stdio-output.ts`), and the requests its stdout answers (`stdio-requests.ts`).
 */
import type { ChildProcess } from 'node:child_process';
import type { Redactor } from '../evidence/evidence.js';
import type { Outcome } from '../model/wire.js';
import type { Channel } from './jsonrpc.js';
import { failure } from './jsonrpc.js';
import { GROUPS, trackGroup } from './process-group.js';
import { createStderrLog, exitFailure, stdoutLines, type StderrLog } from './stdio-output.js';
import { goneWatch, startChild, stopChild } from './stdio-process.js';
import {
  createRequests,
  endAll,
  onLine,
  overlongLine,
  reply,
  send,
  write,
  type StdioRequests,
} from './stdio-requests.js';

export { STDIO_CLOSE_GRACE_MS } from './stdio-process.js';

/** Options of a stdio channel. */
export interface StdioChannelOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly redactor: Redactor;
  /** Most bytes of one line, and of everything read while one request waits. */
  readonly maxAnswerBytes: number;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
}

// After the child exits, how long its pipes may stay open (held by its own children) before the
// requests still waiting are ended anyway.
const ORPHAN_PIPE_MS = 200;

/** The channel of a child that could not be started: every request ends with `outcome`. */
function notStarted(redactor: Redactor, outcome: Outcome): Channel {
  return {
    send: async (req) => reply(redactor, req, outcome, [], 0),
    notify: async () => undefined,
    takeStderr: () => [],
    close: async () => undefined,
  };
}

/** Ends the requests when the child fails to start, exits or closes its pipes. */
function endOnExit(
  child: ChildProcess,
  command: string,
  requests: StdioRequests,
  stderr: StderrLog,
): void {
  child.once('error', (err: NodeJS.ErrnoException) => {
    endAll(requests, failure('spawn', `could not start '${command}': ${err.code ?? err.message}`));
  });
  // The group stays tracked when the child exits on its own: what it started may still run.
  child.once('close', (code, signal) => {
    endAll(requests, exitFailure(code, signal, stderr.lines));
  });
  child.once('exit', (code, signal) => {
    // Output still in the pipes arrives before 'close'; pipes held open by the child's own children
    // never close, so a request waiting on a dead server ends shortly after all the same.
    setTimeout(
      () => endAll(requests, exitFailure(code, signal, stderr.lines)),
      ORPHAN_PIPE_MS,
    ).unref();
  });
}

/** Spawns `command` and returns a channel over its stdin/stdout. */
export function createStdioChannel(options: StdioChannelOptions): Channel {
  const { command, args, redactor, maxAnswerBytes } = options;
  const started = startChild(command, args, options);
  if ('error' in started)
    return notStarted(redactor, failure('spawn', `could not start '${command}': ${started.error}`));
  const { child, hold: held } = started;
  const requests = createRequests(redactor, maxAnswerBytes, (message) => {
    if (!child.stdin?.writable) return;
    child.stdin.write(`${JSON.stringify(message)}\n`);
  });
  const pid = child.pid;
  if (pid !== undefined) held.attach(pid);
  if (pid !== undefined && GROUPS) trackGroup(pid);
  const gone = goneWatch(child, held);
  const stderr = createStderrLog();
  endOnExit(child, command, requests, stderr);
  child.stdin?.on('error', () => undefined);
  child.stdout?.on(
    'data',
    stdoutLines(
      maxAnswerBytes,
      (line) => onLine(requests, line),
      () => overlongLine(requests),
    ),
  );
  child.stderr?.on('data', (chunk: Buffer) => stderr.write(chunk));
  return {
    send: (req) => send(requests, req),
    notify: async (message) => write(requests, message),
    takeStderr: () => stderr.take(),
    async close() {
      endAll(requests, failure('closed', 'the scan closed the session'));
      await stopChild(child, held, pid, gone);
    },
  };
}
