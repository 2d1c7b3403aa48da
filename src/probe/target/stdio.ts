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
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import type { Redactor } from '../evidence/evidence.js';
import { jsonrpcEvidence } from '../evidence/evidence.js';
import type { Outcome } from '../types.js';
import type { Channel, ChannelReply, ChannelRequest, JsonRpcNotification } from './jsonrpc.js';
import { abortOutcome, answerOutcome, failure, isAnswerTo, parseJson } from './jsonrpc.js';
import type { Hold } from './hold.js';
import { createHold } from './hold.js';
import { GROUPS, trackGroup, untrackGroup } from './process-group.js';

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

const MAX_STDERR_LINES = 200;
const MAX_STDERR_LINE = 500;
const MAX_REPLIES = 100;
// Shutdown, as the spec orders it: close stdin, wait, SIGTERM, wait, SIGKILL (to the whole group).
const GRACE_MS = [300, 1000, 500] as const;
/** The longest a stdio session takes to close after the scan ends: the sum of the waits above. */
export const STDIO_CLOSE_GRACE_MS = GRACE_MS[0] + GRACE_MS[1] + GRACE_MS[2];
// After the child exits, how long its pipes may stay open (held by its own children) before the
// requests still waiting are ended anyway.
const ORPHAN_PIPE_MS = 200;
// How many stderr lines a crash's failure quotes, and how much of a non-protocol stdout line.
const CRASH_STDERR_LINES = 3;
const NON_PROTOCOL_CHARS = 60;
interface Pending {
  readonly id: number;
  readonly received: unknown[];
  bytes: number;
  settle(outcome: Outcome): void;
}

/** Spawns `command` and returns a channel over its stdin/stdout. */
export function createStdioChannel(options: StdioChannelOptions): Channel {
  const { command, args, redactor, maxAnswerBytes } = options;
  const pending = new Map<number, Pending>();
  const stderrLines: string[] = [];
  let stderrUntaken: string[] = [];
  let ended: Outcome | undefined;
  let replies = 0;

  // The first bytes of the first stdout line that was not JSON: a server that logs to stdout breaks
  // the protocol, and a timeout alone would not say why.
  let nonProtocol: string | undefined;
  const explained = (outcome: Outcome): Outcome =>
    outcome.kind === 'failure' && nonProtocol !== undefined && outcome.failure !== 'oversize'
      ? failure(
          outcome.failure,
          `${outcome.detail}; the server printed non-protocol output on stdout (not JSON-RPC): ${JSON.stringify(nonProtocol)}`,
        )
      : outcome;
  const endAll = (outcome: Outcome): void => {
    ended ??= outcome;
    for (const p of [...pending.values()]) p.settle(outcome);
  };
  // What a crash says: the exit, and the last lines the server wrote to stderr.
  const exitFailure = (code: number | null, signal: NodeJS.Signals | null): Outcome => {
    const how = signal ? `was killed by ${signal}` : `exited with code ${code ?? 'unknown'}`;
    const last = stderrLines
      .filter((l) => l.trim().length > 0)
      .slice(-CRASH_STDERR_LINES)
      .map((l) => l.trim());
    const tail = last.length > 0 ? `; its stderr ends: ${last.join(' | ')}` : '';
    return failure('closed', `server ${how} before answering${tail}`);
  };

  let child: ChildProcess;
  let hold: Hold | undefined;
  try {
    const env = options.env ?? process.env;
    hold = createHold(command, args, env, options.cwd);
    child = spawn(hold.command, [...hold.args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      windowsHide: true,
      // Its own process group, so that closing can stop everything the target started.
      detached: GROUPS,
    });
  } catch (err) {
    hold?.dispose();
    endAll(failure('spawn', `could not start '${command}': ${(err as Error).message}`));
    return {
      send: async (req) => reply(req, ended ?? failure('spawn', 'not started'), [], 0),
      notify: async () => undefined,
      takeStderr: () => [],
      close: async () => undefined,
    };
  }
  const pid = child.pid;
  const held = hold;
  if (pid !== undefined) held.attach(pid);
  if (pid !== undefined && GROUPS) trackGroup(pid);
  // 'close' (every pipe closed: the child and all it started are gone, or let go of them) and
  // 'exit' (the direct child alone) are awaited apart: a grandchild may hold the pipes for minutes.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  child.once('error', (err: NodeJS.ErrnoException) => {
    endAll(failure('spawn', `could not start '${command}': ${err.code ?? err.message}`));
  });
  // The group stays tracked when the child exits on its own: what it started may still run.
  child.once('close', (code, signal) => {
    endAll(exitFailure(code, signal));
  });
  child.once('exit', (code, signal) => {
    // Output still in the pipes arrives before 'close'; pipes held open by the child's own children
    // never close, so a request waiting on a dead server ends shortly after all the same.
    setTimeout(() => endAll(exitFailure(code, signal)), ORPHAN_PIPE_MS).unref();
  });
  child.stdin?.on('error', () => undefined);

  const out = new StringDecoder('utf8');
  let line = '';
  let discarding = false;
  child.stdout?.on('data', (chunk: Buffer) => {
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
    if (line.length > maxAnswerBytes) {
      line = '';
      discarding = true;
      for (const p of [...pending.values()]) {
        p.settle(failure('oversize', `a line on stdout exceeded ${maxAnswerBytes} bytes`));
      }
    }
  });

  const err = new StringDecoder('utf8');
  let errLine = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    const parts = (errLine + err.write(chunk)).split('\n');
    errLine = (parts.pop() ?? '').slice(0, 4096);
    for (const part of parts) {
      const kept = part.slice(0, MAX_STDERR_LINE);
      stderrLines.push(kept);
      stderrUntaken.push(kept);
      if (stderrLines.length > MAX_STDERR_LINES) stderrLines.shift();
      if (stderrUntaken.length > MAX_STDERR_LINES) stderrUntaken.shift();
    }
  });

  function onLine(raw: string): void {
    const text = raw.trim();
    if (text.length === 0) return;
    const parsed = parseJson(text);
    if (!parsed) nonProtocol ??= text.slice(0, NON_PROTOCOL_CHARS);
    const message = parsed ? parsed.value : text.slice(0, 2048);
    for (const p of pending.values()) {
      if (parsed && isAnswerTo(message, p.id)) {
        p.received.push(message);
        p.settle(answerOutcome(message as Record<string, unknown>));
        return;
      }
    }
    for (const p of [...pending.values()]) {
      p.bytes += text.length;
      if (p.bytes > maxAnswerBytes) {
        p.settle(
          failure('oversize', `more than ${maxAnswerBytes} bytes arrived without an answer`),
        );
      } else if (p.received.length < 1000) {
        p.received.push(message);
      }
    }
    answerServerRequest(message);
  }

  // 2026-07-28 servers must not send requests; an older one may, and may wait for the reply
  // before answering us. Refuse it, so the wait ends; it is recorded, never taken for an answer.
  function answerServerRequest(message: unknown): void {
    const m = message as { id?: unknown; method?: unknown } | null;
    if (!m || typeof m.method !== 'string' || m.id === undefined || replies >= MAX_REPLIES) return;
    replies++;
    write({
      jsonrpc: '2.0',
      id: m.id,
      error: { code: -32601, message: 'not supported by scanner' },
    });
  }

  function write(message: unknown): void {
    if (ended || !child.stdin?.writable) return;
    child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  function reply(
    req: ChannelRequest,
    outcome: Outcome,
    received: unknown[],
    started: number,
  ): ChannelReply {
    const evidence = jsonrpcEvidence(redactor, {
      label: req.label,
      ...(req.identity ? { identity: req.identity } : {}),
      transport: 'stdio',
      sent: req.message,
      received,
      ...(outcome.kind === 'failure' ? { error: `${outcome.failure}: ${outcome.detail}` } : {}),
      ms: Math.round(performance.now() - started),
    });
    return { outcome, evidence };
  }

  function send(req: ChannelRequest): Promise<ChannelReply> {
    const started = performance.now();
    const received: unknown[] = [];
    if (ended) return Promise.resolve(reply(req, ended, received, started));
    if (req.signal.aborted)
      return Promise.resolve(reply(req, abortOutcome(req.signal), received, started));
    return new Promise<ChannelReply>((resolve) => {
      const onAbort = (): void => entry.settle(abortOutcome(req.signal));
      const entry: Pending = {
        id: req.message.id,
        received,
        bytes: 0,
        settle(outcome) {
          if (!pending.delete(req.message.id)) return;
          req.signal.removeEventListener('abort', onAbort);
          resolve(reply(req, explained(outcome), received, started));
        },
      };
      pending.set(entry.id, entry);
      req.signal.addEventListener('abort', onAbort, { once: true });
      write(req.message);
    });
  }

  async function notify(message: JsonRpcNotification): Promise<void> {
    write(message);
  }

  let hasClosed = false;
  let hasExited = false;
  void closed.then(() => (hasClosed = true));
  void exited.then(() => (hasExited = true));
  // Gone: every pipe closed and nothing left in the hold (without groups: the child exited).
  const gone = (): boolean => (GROUPS ? hasClosed && held.empty() : hasExited);
  const POLL_MS = 25;
  const until = (done: () => boolean, ms: number): Promise<boolean> =>
    new Promise((resolve) => {
      const deadline = performance.now() + ms;
      const tick = (): void => {
        if (done()) resolve(true);
        else if (performance.now() >= deadline) resolve(false);
        else setTimeout(tick, POLL_MS);
      };
      tick();
    });

  /** Lets go of the pipes and the child: nothing the target left running can hold the scanner. */
  function release(): void {
    if (pid !== undefined) untrackGroup(pid);
    held.dispose();
    child.stdin?.destroy();
    child.stdout?.destroy();
    child.stderr?.destroy();
    child.unref();
  }

  async function close(): Promise<void> {
    endAll(failure('closed', 'the scan closed the session'));
    if (pid === undefined) {
      held.dispose();
      return;
    }
    // Well behaved: stdin closes, the server and all it started exit, the pipes close. Whatever is
    // left then, the direct child or what it started (a helper with its stdio closed holds no
    // pipe), is asked to stop, then made to.
    child.stdin?.end();
    if (!(await until(gone, GRACE_MS[0]))) {
      if (GROUPS) held.signal('SIGTERM');
      else child.kill('SIGTERM');
      if (!(await until(gone, GRACE_MS[1]))) {
        if (GROUPS) held.signal('SIGKILL');
        else child.kill('SIGKILL');
        await until(gone, GRACE_MS[2]);
      }
    }
    release();
  }

  return {
    send,
    notify,
    takeStderr() {
      const taken = stderrUntaken;
      stderrUntaken = [];
      return taken;
    },
    close,
  };
}
