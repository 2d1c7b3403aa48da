/**
 * `stateguard watch wrap <config> [--server NAME] --capture-dir <dir>` and
 * `stateguard watch unwrap <config> [--server NAME]`: edit a client configuration in place.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ProbeUsageError } from '../errors.js';
import { parseArgsMessage } from '../parse-args-message.js';
import { unwrapConfig, wrapConfig, type ProxyLauncher } from '../watch/wrap.js';
import { readConfig } from './config/read-config.js';
import { readFileSync } from 'node:fs';

/** How a wrapped entry starts this very `stateguard`: node and its CLI entry. */
function launcher(): ProxyLauncher {
  const built = fileURLToPath(new URL('./main.js', import.meta.url));
  if (existsSync(built)) return { command: process.execPath, args: [built] };
  // Run from source (tests, `tsx`): the TypeScript entry through tsx.
  const source = fileURLToPath(new URL('./main.ts', import.meta.url));
  return { command: process.execPath, args: ['--import', 'tsx', source] };
}

/** Runs `watch wrap` or `watch unwrap`; resolves with the exit code. */
export async function runWrapCommand(
  verb: 'wrap' | 'unwrap',
  argv: readonly string[],
  err: (line: string) => void,
): Promise<number> {
  try {
    let parsed;
    try {
      parsed = parseArgs({
        args: [...argv],
        strict: true,
        allowPositionals: true,
        options: {
          server: { type: 'string' },
          'capture-dir': { type: 'string' },
        },
      });
    } catch (error) {
      throw new ProbeUsageError(parseArgsMessage(error));
    }
    const { values, positionals } = parsed;
    if (positionals.length !== 1) throw new ProbeUsageError(`give one client configuration file`);
    const file = positionals[0] as string;
    // Read as the scanner reads configurations: bounded, and refused when it is not one.
    readConfig(file, process.cwd());
    const text = readFileSync(file, 'utf8');
    let result;
    if (verb === 'wrap') {
      const dir = values['capture-dir'];
      if (dir === undefined) throw new ProbeUsageError('wrap needs --capture-dir <dir>');
      result = wrapConfig(text, launcher(), resolve(dir), values.server);
    } else result = unwrapConfig(text, values.server);
    writeFileSync(file, result.text);
    for (const c of result.changes)
      err(`stateguard watch ${verb}: ${c.name}${c.capture === undefined ? '' : ` → ${c.capture}`}`);
    if (result.changes.length === 0) err(`stateguard watch ${verb}: nothing to ${verb}`);
    return 0;
  } catch (error) {
    if (!(error instanceof ProbeUsageError)) throw error;
    err(`stateguard watch ${verb}: ${error.message}`);
    return 2;
  }
}
