/**
 * `--env NAME` and `--env-file <file>`: what a `--stdio` target (and its `--peer-stdio`) gets on top
 * of the minimal environment a server of a client configuration starts with (config/minimal-env.ts).
 * Nothing else of the scanner's environment reaches the server, so a server that echoes its
 * environment cannot put a CI job's secrets in a report; the values the user does pass are redacted
 * in every report like identities (`<env NAME>`).
 */
import { readFileSync } from 'node:fs';
import { ProbeUsageError } from '../errors.js';
import type { ExtraSecret } from '../probe/evidence/evidence.js';
import { stdioEnv } from './config/minimal-env.js';
import { MAX_ENV_FILE_BYTES, MIN_REDACTED, parseEnvFile } from './config/plan.js';
import { ENV_NAME } from './env-name.js';

/** The environment of a stdio target, and the values a report must not hold. */
export interface StdioLaunchEnv {
  readonly env: Record<string, string>;
  readonly secrets: readonly ExtraSecret[];
  readonly warnings: readonly string[];
}

function readEnvFile(file: string): Record<string, string> {
  if (file.length === 0) throw new ProbeUsageError('--env-file needs a file name');
  let text: Buffer;
  try {
    text = readFileSync(file);
  } catch (error) {
    throw new ProbeUsageError(
      `cannot read --env-file '${file}': ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  if (text.length > MAX_ENV_FILE_BYTES)
    throw new ProbeUsageError(`--env-file '${file}' is larger than ${MAX_ENV_FILE_BYTES} bytes`);
  return parseEnvFile(text.toString('utf8'));
}

/**
 * The minimal environment taken from `scanner`, then the `--env-file` lines, then each `--env`
 * variable passed through from `scanner` (the named variable wins over the file's line).
 */
export function stdioLaunchEnv(
  names: readonly string[],
  file: string | undefined,
  scanner: NodeJS.ProcessEnv,
): StdioLaunchEnv {
  const warnings: string[] = [];
  const extra: Record<string, string> = file === undefined ? {} : readEnvFile(file);
  for (const name of names) {
    if (!ENV_NAME.test(name))
      throw new ProbeUsageError(`--env takes an environment variable name, e.g. API_TOKEN`);
    const value = scanner[name];
    if (value === undefined)
      warnings.push(
        `--env ${name}: not set in the scanner's environment; the server starts without it`,
      );
    else extra[name] = value;
  }
  const secrets = Object.entries(extra)
    .filter(([, value]) => value.length >= MIN_REDACTED)
    .map(([name, value]) => ({ placeholder: `<env ${name}>`, value }));
  return { env: stdioEnv(scanner, extra), secrets, warnings };
}
