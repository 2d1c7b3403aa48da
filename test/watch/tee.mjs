// A test shim: runs a command, relays stdin/stdout/stderr, and appends a copy of the bytes it
// received on stdin and the bytes the command wrote on stdout to two files. Placed on both sides
// of the proxy, it shows whether the proxy changed a byte.
//   node tee.mjs <stdin-copy> <stdout-copy> -- <command> [args...]
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';

const [inCopy, outCopy, dashes, command, ...args] = process.argv.slice(2);
if (dashes !== '--' || command === undefined) process.exit(2);
const inFile = createWriteStream(inCopy);
const outFile = createWriteStream(outCopy);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.on('data', (chunk) => inFile.write(chunk));
process.stdin.pipe(child.stdin);
child.stdout.on('data', (chunk) => outFile.write(chunk));
child.stdout.pipe(process.stdout);
child.stdin.on('error', () => undefined);
process.on('SIGTERM', () => child.kill('SIGTERM'));
child.on('close', (code) => {
  let open = 2;
  const done = () => --open === 0 && process.exit(code ?? 1);
  inFile.end(done);
  outFile.end(done);
});
