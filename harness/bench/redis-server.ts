/**
 * A throwaway `redis-server` on a free loopback port, with no persistence: for the Redis bench suite and
 * the Redis tests (test/helpers/redis.ts). Not part of the library.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;

/** Why `redis-server` cannot be started here, or `undefined` when it is on PATH. */
export function redisServerMissing(): string | undefined {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8', timeout: 5_000 });
  if (probe.error || probe.status !== 0) {
    return 'redis-server is not on PATH (install Debian\'s "redis-server"; .ci/run does)';
  }
  return undefined;
}

/** A running `redis-server`. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** SIGKILL the server and wait (bounded) for it to exit. Safe to call twice. */
  kill(): Promise<void>;
  /** SIGSTOP the server: it keeps its connections but answers nothing until `resume()`. */
  pause(): void;
  /** SIGCONT a paused server. */
  resume(): void;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no port assigned'))));
    });
  });
}

function waitForExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Start `redis-server` on `port` and resolve once it accepts connections (bounded). */
function startOn(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let output = '';
    const fail = (why: string): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`redis-server did not start: ${why}\n${output.slice(-2000)}`));
    };
    const timer = setTimeout(() => fail('timed out'), START_TIMEOUT_MS);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('exit', (code) => fail(`exited with ${code}`));
    child.once('error', (error) => fail(error.message));
  });
}

/**
 * Start a throwaway `redis-server` on a free port (retrying a port lost to a race, three times), or on
 * `port` to bring a killed one back.
 */
export async function startRedis(options: { port?: number } = {}): Promise<RedisServer> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const port = options.port ?? (await freePort());
    try {
      const child = await startOn(port);
      return {
        port,
        url: `redis://127.0.0.1:${port}`,
        async kill() {
          child.kill('SIGCONT');
          child.kill('SIGKILL');
          await waitForExit(child);
        },
        pause: () => void child.kill('SIGSTOP'),
        resume: () => void child.kill('SIGCONT'),
      };
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}
