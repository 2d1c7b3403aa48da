/**
 * Tests that leave processes behind on purpose, run by `leftovers.test.ts` in a vitest of its own
 * (not part of the suite: the name does not end in `.test.ts`). Each writes the pid it leaves to
 * the file named by `LEAKY_PIDS`, one `kind pid` a line, then fails: two throw, one times out.
 */
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { it } from 'vitest';
import { CLI_MAIN } from '../helpers/cli.js';

const PIDS = process.env.LEAKY_PIDS ?? '';
const record = (kind: string, pid: number | undefined): void =>
  appendFileSync(PIDS, `${kind} ${pid ?? 0}\n`);

it('starts an HTTP fixture server, which runs until a signal, and throws', async () => {
  // Its stdin is not read: only a signal stops it, as with the consumer test's leftover.
  const child = spawn(
    process.execPath,
    [CLI_MAIN, 'fixture', '--mode', 'flawed', '--transport', 'http'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no URL printed')), 20_000);
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.startsWith('[fixture] listening ')) return;
      clearTimeout(timer);
      resolve();
    });
  });
  record('server', child.pid);
  throw new Error('the test body failed, its server still listening');
});

it('starts a command that starts another, and throws', async () => {
  // Killing the first alone would leave the second running, adopted by init.
  const child = spawn('sh', ['-c', 'sleep 300 & echo $!; wait'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const inner = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout }).once('line', resolve),
  );
  record('grandchild', Number(inner));
  throw new Error('the test body failed, a grandchild still sleeping');
});

it('starts a process group whose leader and member sleep, and times out', async () => {
  const child = spawn('sh', ['-c', 'sleep 300 & sleep 300'], {
    stdio: 'ignore',
    detached: true,
  });
  record('group', child.pid);
  await new Promise(() => undefined); // never settles: the test times out
}, 1_000);
