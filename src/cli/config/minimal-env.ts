/**
 * The environment a stdio server from a client configuration starts with: its own `env` over a
 * minimal one, never the scanner's whole environment. A CI job's environment holds tokens, cloud
 * credentials and the scanner's own identities (`STATEGUARD_IDENTITY_*`); a server under test must
 * see none of them unless its entry names them.
 *
 * The minimal set is what the MCP SDKs' stdio clients pass on by default (`getDefaultEnvironment`):
 * on POSIX `HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER`; on Windows `APPDATA`, `HOMEDRIVE`,
 * `HOMEPATH`, `LOCALAPPDATA`, `PATH`, `PROCESSOR_ARCHITECTURE`, `SYSTEMDRIVE`, `SYSTEMROOT`, `TEMP`,
 * `USERNAME`, `USERPROFILE`, `PROGRAMFILES`. To these we add the temporary directory (`TMPDIR`, `TMP`,
 * `TEMP`) and the locale (`LANG`, `LC_ALL`, `LC_CTYPE`), without which many runtimes pick a wrong
 * temp folder or encoding, and on Windows `PATHEXT` and `COMSPEC`, without which a command such as
 * `npx` is not found.
 */

const POSIX = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'TMPDIR'] as const;
const WINDOWS = [
  'APPDATA',
  'HOMEDRIVE',
  'HOMEPATH',
  'LOCALAPPDATA',
  'PATH',
  'PATHEXT',
  'COMSPEC',
  'PROCESSOR_ARCHITECTURE',
  'SYSTEMDRIVE',
  'SYSTEMROOT',
  'TEMP',
  'TMP',
  'USERNAME',
  'USERPROFILE',
  'PROGRAMFILES',
] as const;
const LOCALE = ['LANG', 'LC_ALL', 'LC_CTYPE'] as const;

/** The variables passed on from the scanner's environment on `platform`. */
export function minimalNames(platform: NodeJS.Platform = process.platform): readonly string[] {
  return [...(platform === 'win32' ? WINDOWS : POSIX), ...LOCALE];
}

/** The minimal environment taken from `env`. */
export function minimalEnv(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  const out: Record<string, string> = {};
  // Windows spells variable names in any case (Path, SystemRoot); match them so.
  const lookup =
    platform === 'win32'
      ? new Map(Object.keys(env).map((k) => [k.toUpperCase(), k]))
      : new Map(Object.keys(env).map((k) => [k, k]));
  for (const name of minimalNames(platform)) {
    const key = lookup.get(name);
    const value = key === undefined ? undefined : env[key];
    // A value that starts with `()` is an exported shell function: a known injection vector.
    if (value !== undefined && !value.startsWith('()')) out[name] = value;
  }
  return out;
}

/**
 * The environment every stdio target starts with (`--stdio`, `--peer-stdio`, the Action's target,
 * a server of a client configuration): the minimal one taken from the scanner's environment, with
 * `extra` on top. A `null` in `extra` removes the variable (VS Code's rule for an entry's `env`).
 */
export function stdioEnv(
  scanner: NodeJS.ProcessEnv,
  extra: Readonly<Record<string, string | null>> = {},
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  const env = minimalEnv(scanner, platform);
  for (const [name, value] of Object.entries(extra)) {
    if (value === null) delete env[name];
    else env[name] = value;
  }
  return env;
}
