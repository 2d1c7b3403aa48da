/**
 * Spawn a TypeScript entry point as a real stdio child (`node <its build>`, or `node --import tsx
 * file` where this run's build lacks it, see harness/node-entry.ts), wait for its
 * ready marker on stderr, and speak newline-delimited JSON-RPC to it. Every wait is bounded.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sourceEntry } from '../../harness/node-entry.js';

/** The repository root, so `--import tsx` resolves whatever the test's cwd. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Options of {@link spawnStdio}. */
export interface SpawnStdioOptions {
  /** Extra environment variables (added to this process's environment). */
  env?: Record<string, string>;
  /** Seen on stderr once the child serves. Default: `] ready`. */
  readyMarker?: string;
  /** How long to wait for the marker. Default 15 s. */
  readyTimeoutMs?: number;
}

/** A JSON-RPC response as it came off the wire. */
export interface RpcResponse {
  jsonrpc: '2.0';
  id: number | string | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** A running stdio child. */
export interface StdioChild {
  readonly child: ChildProcessWithoutNullStreams;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Send one request and wait (bounded) for the response with the same id. */
  rpc(
    request: { id: number | string; method: string; params?: unknown },
    timeoutMs?: number,
  ): Promise<RpcResponse>;
  /** Close stdin, then SIGTERM, then SIGKILL; resolves once the child exited. */
  close(): Promise<void>;
}

function exited(child: ChildProcessWithoutNullStreams, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Spawn `file` with `process.execPath` (see {@link sourceEntry}) and wait for its ready marker. */
export async function spawnStdio(
  file: string,
  args: readonly string[] = [],
  options: SpawnStdioOptions = {},
): Promise<StdioChild> {
  const child = spawn(process.execPath, [...sourceEntry(file), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdoutBuffer = '';
  const pending = new Map<number | string, (response: RpcResponse) => void>();
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdoutBuffer += chunk;
    let newline: number;
    while ((newline = stdoutBuffer.indexOf('\n')) >= 0) {
      const line = stdoutBuffer.slice(0, newline).trim();
      stdoutBuffer = stdoutBuffer.slice(newline + 1);
      if (line === '') continue;
      const message = JSON.parse(line) as RpcResponse;
      if (message.id !== undefined && message.id !== null) pending.get(message.id)?.(message);
    }
  });

  const handle: StdioChild = {
    child,
    stderr: () => stderr,
    rpc(request, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(request.id);
          reject(new Error(`no response to ${request.method} within ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(request.id, (response) => {
          clearTimeout(timer);
          pending.delete(request.id);
          resolve(response);
        });
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...request })}\n`);
      });
    },
    async close() {
      child.stdin.end();
      if (await exited(child, 2000)) return;
      child.kill('SIGTERM');
      if (await exited(child, 2000)) return;
      child.kill('SIGKILL');
      await exited(child, 2000);
    },
  };

  const marker = options.readyMarker ?? '] ready';
  const timeoutMs = options.readyTimeoutMs ?? 15_000;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`no ready marker within ${timeoutMs} ms; stderr: ${stderr.slice(-500)}`));
    }, timeoutMs);
    const onData = () => {
      if (stderr.includes(marker)) {
        cleanup();
        resolve();
      }
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`child exited (${code}) before ready; stderr: ${stderr.slice(-500)}`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.stderr.off('data', onData);
      child.off('exit', onExit);
    };
    child.stderr.on('data', onData);
    child.once('exit', onExit);
    onData();
  }).catch(async (error: unknown) => {
    await handle.close();
    throw error;
  });
  return handle;
}

/** Run `file` to completion (bounded) and return its exit code and output. */
export async function runToExit(
  file: string,
  args: readonly string[] = [],
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...sourceEntry(file), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  child.stdin.end();
  if (!(await exited(child, options.timeoutMs ?? 15_000))) {
    child.kill('SIGKILL');
    await exited(child, 2000);
    throw new Error(`child did not exit in time; stderr: ${stderr.slice(-500)}`);
  }
  return { code: child.exitCode, stdout, stderr };
}
