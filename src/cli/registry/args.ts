/**
 * The registry flags of `stateguard scan`, checked before anything is read: `--registry <url>` or
 * `--server-json <file|url>`, the list's filters (`--registry-search`, `--registry-updated-since`,
 * `--registry-version`), its bounds (`--registry-page-size` ≤ 100, `--registry-max-pages`,
 * `--registry-max-entries`), and what may run (`--run-packages`, `--allow-remote <host>`,
 * `--include-deprecated`, `--values <file>`, `--env NAME`).
 */
import { ProbeUsageError } from '../../errors.js';
import type { HttpTls, IdentityName } from '../../probe/model/target.js';
import type { ConnectionPolicy } from '../../probe/target/http-connection.js';
import { visibleLine } from '../../report/visible.js';
import type { RegistryRequest } from '../registry-command.js';
import { MAX_CONCURRENCY } from '../config/select.js';
import { listUrl, MAX_PAGE_LIMIT, readValues, REGISTRY_DEFAULTS } from './fetch.js';

/** Flags that mean nothing without `--registry` or `--server-json`. */
export const REGISTRY_ONLY_FLAGS = [
  'run-packages',
  'allow-remote',
  'values',
  'include-deprecated',
  'registry-search',
  'registry-updated-since',
  'registry-version',
  'registry-page-size',
  'registry-max-pages',
  'registry-max-entries',
] as const;

/** Flags that filter or bound the list, meaningless for one server.json. */
const LIST_FLAGS = [
  'registry-search',
  'registry-updated-since',
  'registry-version',
  'registry-page-size',
  'registry-max-pages',
  'registry-max-entries',
] as const;

type Values = Readonly<Record<string, string | boolean | string[] | undefined>>;

function positive(flag: string, value: unknown, fallback: number, max?: number): number {
  if (value === undefined) return fallback;
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new ProbeUsageError(`--${flag} needs a positive integer, got '${String(value)}'`);
  if (max !== undefined && n > max) throw new ProbeUsageError(`--${flag} is at most ${max}`);
  return n;
}

/** A host as `--allow-remote` takes it: a name or an address, no scheme, port or path. */
function host(value: string): string {
  const v = value.trim().toLowerCase();
  if (!/^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])$/.test(v) || v.length > 253)
    throw new ProbeUsageError(
      `--allow-remote takes a host name, e.g. --allow-remote mcp.example.com, got '${visibleLine(value)}'`,
    );
  return v;
}

/** What the parser already checked and hands on. */
export interface RegistryContext {
  readonly env: NodeJS.ProcessEnv;
  readonly identities: Partial<Record<IdentityName, string>>;
  readonly carrier: string;
  readonly concurrency: number;
  readonly tls?: HttpTls;
  readonly connection?: ConnectionPolicy;
}

/** The request the flags describe; a usage error for any flag that cannot apply. */
export function registryRequest(values: Values, ctx: RegistryContext): RegistryRequest {
  const registry = values.registry as string | undefined;
  const serverJson = values['server-json'] as string | undefined;
  if (serverJson !== undefined) {
    for (const flag of LIST_FLAGS)
      if (values[flag] !== undefined)
        throw new ProbeUsageError(`--${flag} applies to --registry only`);
    if (serverJson.length === 0) throw new ProbeUsageError('--server-json needs a file or a URL');
  }
  if (ctx.concurrency > MAX_CONCURRENCY)
    throw new ProbeUsageError(`--concurrency is at most ${MAX_CONCURRENCY}`);
  const updatedSince = values['registry-updated-since'] as string | undefined;
  if (updatedSince !== undefined && Number.isNaN(Date.parse(updatedSince)))
    throw new ProbeUsageError(
      `--registry-updated-since takes an RFC 3339 time, e.g. 2025-08-07T13:15:04Z, got '${visibleLine(updatedSince)}'`,
    );
  const search = values['registry-search'] as string | undefined;
  const version = values['registry-version'] as string | undefined;
  const valuesFile = values.values as string | undefined;
  if (valuesFile !== undefined && valuesFile.length === 0)
    throw new ProbeUsageError('--values needs a file name');
  return {
    kind: registry !== undefined ? 'registry' : 'server-json',
    where: registry !== undefined ? listUrl(registry).toString() : (serverJson as string),
    query: {
      limit: positive('registry-page-size', values['registry-page-size'], 30, MAX_PAGE_LIMIT),
      ...(search === undefined ? {} : { search }),
      ...(updatedSince === undefined ? {} : { updatedSince }),
      ...(version === undefined ? {} : { version }),
    },
    limits: {
      ...REGISTRY_DEFAULTS,
      maxPages: positive(
        'registry-max-pages',
        values['registry-max-pages'],
        REGISTRY_DEFAULTS.maxPages,
      ),
      maxEntries: positive(
        'registry-max-entries',
        values['registry-max-entries'],
        REGISTRY_DEFAULTS.maxEntries,
      ),
    },
    names: (values.server as string[] | undefined) ?? [],
    concurrency: ctx.concurrency,
    plan: {
      runPackages: values['run-packages'] === true,
      allowRemote: ((values['allow-remote'] as string[] | undefined) ?? []).map(host),
      includeDeprecated: values['include-deprecated'] === true,
      values: valuesFile === undefined ? {} : readValues(valuesFile),
      envNames: (values.env as string[] | undefined) ?? [],
      env: ctx.env,
      identities: ctx.identities,
      carrier: ctx.carrier,
      ...(ctx.tls ? { tls: ctx.tls } : {}),
      ...(ctx.connection ? { connection: ctx.connection } : {}),
    },
  };
}
