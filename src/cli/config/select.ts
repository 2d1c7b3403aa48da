/**
 * `--config`, `--server` and `--concurrency`: which files are read (named, or found in the
 * well-known locations), which of their servers are scanned, and each one's plan. Every problem a
 * user can fix before anything starts (an unreadable file, an unknown server name, a flag that
 * cannot apply to many servers) is a usage error here.
 */
import { isAbsolute, resolve } from 'node:path';
import { ProbeUsageError } from '../../errors.js';
import { COMBINED_FORMATS, type ReportFormat } from '../../report/formats.js';
import { visibleLine } from '../../report/visible.js';
import { foundLocations, wellKnownLocations, type Location } from './locations.js';
import type { ConfigServer } from './formats.js';
import { identityVariable, planServer, type PlanOptions, type ServerPlan } from './plan.js';
import { readConfig, type ConfigFile } from './read-config.js';

/** Servers scanned at once unless `--concurrency` says otherwise. */
export const DEFAULT_CONCURRENCY = 4;
/** The most servers scanned at once. */
export const MAX_CONCURRENCY = 64;

/** The servers a `--config` scan covers. */
export interface ConfigSelection {
  /** The files read, as named or found. */
  readonly files: readonly ConfigFile[];
  /** Set when `--config` was given without a file: the well-known locations that held one. */
  readonly found?: readonly Location[];
  readonly plans: readonly ServerPlan[];
  /** Entries with `disabled: true` that `--server` did not name: not scanned. */
  readonly disabled: readonly string[];
  readonly concurrency: number;
}

/** Flags that name one target or one deployment, and so cannot apply to many servers. */
const SINGLE_TARGET_FLAGS = ['http', 'stdio', 'peer', 'peer-stdio', 'header'] as const;

/** Usage errors for flags `--config` cannot honour, and formats without a combined report. */
export function checkConfigFlags(
  values: Readonly<Record<string, unknown>>,
  format: ReportFormat,
  label: '--config' | '--registry' | '--server-json' = '--config',
): void {
  const from = label === '--config' ? 'the files' : 'the registry';
  for (const flag of SINGLE_TARGET_FLAGS) {
    if (values[flag] !== undefined)
      throw new ProbeUsageError(
        flag === 'header'
          ? label === '--config'
            ? '--header does not combine with --config; declare headers in the entry ("headers")'
            : `--header does not combine with ${label}; give header values with --values`
          : `--${flag} does not combine with ${label} (the servers come from ${from})`,
      );
  }
  // What each server would be called with is every report's plan; --plan itself prints one target's.
  if (values['plan'] === true)
    throw new ProbeUsageError(
      `--plan takes one target (--http or --stdio); with ${label} every report carries each server's plan`,
    );
  if (!COMBINED_FORMATS.includes(format))
    throw new ProbeUsageError(
      `--format ${format} has no report for several servers yet; with ${label} use ${COMBINED_FORMATS.join(', ')}`,
    );
}

/**
 * A per-server identity goes to one server only. Names fold to a variable (`GitHub`, `git-hub` and
 * `GITHUB` all to `…__GITHUB`, and an entry declared in two files or twice in one to the same), so
 * when such a variable is set and two chosen entries fold to it, nobody can say which one it is
 * for: a usage error naming both, before anything starts. With one entry per variable, the
 * variable is that entry's alone.
 */
export function checkIdentityNames(servers: readonly ConfigServer[], env: NodeJS.ProcessEnv): void {
  const byVariable = new Map<string, ConfigServer[]>();
  for (const s of servers) {
    const key = identityVariable('A', s.source.name).slice('STATEGUARD_IDENTITY_A__'.length);
    byVariable.set(key, [...(byVariable.get(key) ?? []), s]);
  }
  for (const [key, same] of byVariable) {
    if (same.length < 2) continue;
    const set = (['A', 'B'] as const)
      .map((i) => identityVariable(i, same[0]?.source.name ?? ''))
      .filter((v) => (env[v] ?? '') !== '');
    if (set.length === 0) continue;
    const where = same.map(
      (s) => `'${visibleLine(s.source.name)}' (${visibleLine(s.source.file)}:${s.source.line})`,
    );
    throw new ProbeUsageError(
      `${set.join(' and ')} would go to ${same.length} servers whose names fold to ${key}: ` +
        `${where.join(' and ')}; rename one of them, or name one with --server`,
    );
  }
}

/** What {@link selectServers} needs. */
export interface SelectOptions {
  /** `--config` values; an empty one means the well-known locations. */
  readonly files: readonly string[];
  /** `--server` values. */
  readonly names: readonly string[];
  readonly concurrency: number;
  readonly place: { readonly cwd: string; readonly home: string };
  readonly plan: PlanOptions;
}

/** Reads the files, picks the servers, and plans each scan. */
export function selectServers(options: SelectOptions): ConfigSelection {
  const { place } = options;
  if (options.concurrency > MAX_CONCURRENCY)
    throw new ProbeUsageError(`--concurrency is at most ${MAX_CONCURRENCY}`);
  const discover = options.files.some((f) => f === '');
  const found = discover ? foundLocations(place.cwd, place.home, options.plan.env) : undefined;
  if (found !== undefined && found.length === 0) {
    const looked = wellKnownLocations(place.cwd, place.home, options.plan.env).map((l) => l.file);
    throw new ProbeUsageError(
      `--config found no client configuration; looked in ${looked.join(', ')}`,
    );
  }
  const named = [...options.files.filter((f) => f !== ''), ...(found ?? []).map((l) => l.file)];
  // The same file named twice (or named and found) is read once.
  const seen = new Set<string>();
  const files: ConfigFile[] = [];
  for (const file of named) {
    const absolute = isAbsolute(file) ? file : resolve(place.cwd, file);
    if (seen.has(absolute)) continue;
    seen.add(absolute);
    files.push(readConfig(file, place.cwd));
  }
  const all = files.flatMap((f) => f.servers);
  const names = [...new Set(all.map((s) => s.source.name))];
  for (const name of options.names) {
    if (!names.includes(name))
      throw new ProbeUsageError(
        `unknown --server '${name}' (${names.length > 0 ? names.map(visibleLine).join(', ') : 'no servers declared'})`,
      );
  }
  const picked =
    options.names.length > 0 ? all.filter((s) => options.names.includes(s.source.name)) : all;
  // A disabled entry is one the client does not start either, unless --server names it.
  const disabled = options.names.length > 0 ? [] : picked.filter((s) => s.disabled);
  const chosen = picked.filter((s) => !disabled.includes(s));
  if (chosen.length === 0)
    throw new ProbeUsageError(
      `--config: no server to scan in ${files.map((f) => f.file).join(', ')}` +
        (disabled.length > 0 ? ' (every entry is disabled; name one with --server)' : ''),
    );
  checkIdentityNames(chosen, options.plan.env);
  return {
    files,
    ...(found !== undefined ? { found } : {}),
    plans: chosen.map((s) => planServer(s, options.plan)),
    disabled: disabled.map(
      (s) => `${visibleLine(s.source.name)} (${visibleLine(s.source.file)}:${s.source.line})`,
    ),
    concurrency: options.concurrency,
  };
}
