/**
 * Reading a registry: `GET <registry>/v0.1/servers` page after page (`cursor` from
 * `metadata.nextCursor`), and one `server.json` from a file or a URL. Every read is bounded: a
 * timeout per request, a cap on each response's bytes, at most so many pages and entries, no
 * redirects, and a cursor seen twice ends the walk. A registry that breaks a bound is a problem
 * said in the report (what was read so far is scanned); one that cannot be read at all is a usage
 * error (exit 2), the way an unreadable `--config` file is.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { ProbeUsageError } from '../../errors.js';
import { visibleLine } from '../../report/visible.js';
import type { ServerListPage } from './schema.js';

/** The bounds of a registry walk. */
export interface RegistryLimits {
  /** Most pages requested. */
  readonly maxPages: number;
  /** Most entries kept (the rest are not read). */
  readonly maxEntries: number;
  /** Most bytes of one response (or one server.json). */
  readonly maxBytes: number;
  /** Time allowed for one request, headers and body. */
  readonly timeoutMs: number;
}

export const REGISTRY_DEFAULTS: RegistryLimits = {
  maxPages: 20,
  maxEntries: 500,
  maxBytes: 4 * 1024 * 1024,
  timeoutMs: 15_000,
};

/** The API's own bound on `limit`. */
export const MAX_PAGE_LIMIT = 100;

/** The filters of `GET /v0.1/servers`. */
export interface RegistryQuery {
  readonly search?: string;
  readonly updatedSince?: string;
  readonly version?: string;
  /** Entries per page (1–100). */
  readonly limit: number;
}

/** What a walk read. */
export interface RegistryRead {
  readonly entries: unknown[];
  readonly pages: number;
  /** Why the walk ended before the registry said it was done. */
  readonly cut?: string;
}

/** The URL of `GET /v0.1/servers` for `registry` (a base URL, or the list URL itself). */
export function listUrl(registry: string): URL {
  let url: URL;
  try {
    url = new URL(registry);
  } catch {
    throw new ProbeUsageError(`--registry needs an http(s) URL, got '${visibleLine(registry)}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ProbeUsageError(`--registry needs an http(s) URL, got '${url.protocol}' scheme`);
  if (url.username !== '' || url.password !== '')
    throw new ProbeUsageError('--registry URL must not carry a user name or password');
  if (!/\/v0(?:\.\d+)?\/servers\/?$/.test(url.pathname))
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/v0.1/servers`;
  url.search = '';
  url.hash = '';
  return url;
}

/** Reads `url`'s body as text, at most `limits.maxBytes`, in `limits.timeoutMs`. */
export async function fetchBounded(url: URL, limits: RegistryLimits): Promise<string> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, {
      signal,
      redirect: 'error',
      headers: { accept: 'application/json' },
    });
  } catch (error) {
    throw new Error(
      signal.aborted
        ? `no answer within ${limits.timeoutMs} ms`
        : `cannot connect (${(error as { cause?: { code?: string } }).cause?.code ?? 'error'})`,
    );
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`HTTP ${response.status}`);
  }
  const declared = Number(response.headers.get('content-length') ?? 'NaN');
  if (Number.isFinite(declared) && declared > limits.maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`answer of ${declared} bytes, more than the ${limits.maxBytes} read`);
  }
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let length = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      length += value.byteLength;
      if (length > limits.maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new Error(`answer of more than the ${limits.maxBytes} bytes read`);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (signal.aborted) throw new Error(`no whole answer within ${limits.timeoutMs} ms`);
    throw error;
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error(error instanceof RangeError ? 'nested too deeply' : 'not JSON');
  }
}

/**
 * Walks the registry's list. The first page must be read (else a usage error); a later page that
 * fails ends the walk with `cut` saying why.
 */
export async function readRegistry(
  registry: URL,
  query: RegistryQuery,
  limits: RegistryLimits = REGISTRY_DEFAULTS,
): Promise<RegistryRead> {
  // The schema loads zod (about 95 modules): only a walk of a registry needs it, not parsing `scan`.
  const { firstIssue, ServerListPage: pageSchema } = await import('./schema.js');
  const entries: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    if (pages >= limits.maxPages)
      return { entries, pages, cut: `stopped after ${limits.maxPages} pages (the page bound)` };
    const url = new URL(registry);
    url.searchParams.set('limit', String(query.limit));
    if (cursor !== undefined) url.searchParams.set('cursor', cursor);
    if (query.search !== undefined) url.searchParams.set('search', query.search);
    if (query.updatedSince !== undefined) url.searchParams.set('updated_since', query.updatedSince);
    if (query.version !== undefined) url.searchParams.set('version', query.version);
    let page: ReturnType<typeof ServerListPage.parse>;
    try {
      const parsed = pageSchema.safeParse(parseJson(await fetchBounded(url, limits)));
      if (!parsed.success) throw new Error(`not a server list (${firstIssue(parsed.error)})`);
      page = parsed.data;
    } catch (error) {
      const why = `page ${pages + 1} of ${registry.toString()}: ${(error as Error).message}`;
      if (pages === 0) throw new ProbeUsageError(`cannot read --registry ${visibleLine(why)}`);
      return { entries, pages, cut: `stopped at ${why}` };
    }
    pages += 1;
    for (const item of page.servers) {
      if (entries.length >= limits.maxEntries)
        return {
          entries,
          pages,
          cut: `stopped after ${limits.maxEntries} entries (the entry bound)`,
        };
      entries.push(item);
    }
    const next = page.metadata?.nextCursor ?? undefined;
    if (next === undefined || next === '') return { entries, pages };
    if (seen.has(next))
      return { entries, pages, cut: 'stopped: the registry sent a cursor it had sent before' };
    seen.add(next);
    cursor = next;
  }
}

/** Reads one `server.json`: from a file (at most `maxBytes`) or an http(s) URL. */
export async function readServerJson(
  where: string,
  limits: RegistryLimits = REGISTRY_DEFAULTS,
): Promise<unknown> {
  const fail = (why: string): ProbeUsageError =>
    new ProbeUsageError(`cannot read --server-json '${visibleLine(where)}': ${why}`);
  if (/^https?:\/\//i.test(where)) {
    let url: URL;
    try {
      url = new URL(where);
    } catch {
      throw fail('not a URL');
    }
    try {
      return parseJson(await fetchBounded(url, limits));
    } catch (error) {
      throw fail((error as Error).message);
    }
  }
  let fd: number;
  try {
    fd = openSync(where, 'r');
  } catch (error) {
    throw fail((error as NodeJS.ErrnoException).code ?? 'error');
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw fail('not a file');
    if (stat.size > limits.maxBytes) throw fail(`larger than ${limits.maxBytes} bytes`);
    const buffer = Buffer.alloc(stat.size);
    let length = 0;
    while (length < buffer.length) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    try {
      return parseJson(buffer.subarray(0, length).toString('utf8'));
    } catch (error) {
      throw fail((error as Error).message);
    }
  } finally {
    closeSync(fd);
  }
}

/** Reads `--values <file>`: `{ "<server name>": { "<input name>": "<value>" } }`, JSON. */
export function readValues(file: string): Record<string, Record<string, string>> {
  const fail = (why: string): ProbeUsageError =>
    new ProbeUsageError(`--values '${visibleLine(file)}': ${why}`);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    throw fail(`cannot read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let text: string;
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw fail('not a file');
    if (stat.size > 1024 * 1024) throw fail('larger than 1 MiB');
    const buffer = Buffer.alloc(stat.size);
    let length = 0;
    while (length < buffer.length) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    text = buffer.subarray(0, length).toString('utf8');
  } finally {
    closeSync(fd);
  }
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch {
    throw fail('not JSON');
  }
  if (typeof root !== 'object' || root === null || Array.isArray(root))
    throw fail('expected an object keyed by server name');
  const out: Record<string, Record<string, string>> = Object.create(null) as Record<
    string,
    Record<string, string>
  >;
  for (const [server, values] of Object.entries(root as Record<string, unknown>)) {
    if (typeof values !== 'object' || values === null || Array.isArray(values))
      throw fail(`the values of '${visibleLine(server)}' must be an object of strings`);
    const own: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const [name, value] of Object.entries(values as Record<string, unknown>)) {
      if (typeof value !== 'string')
        throw fail(`'${visibleLine(server)}' ${visibleLine(name)} must be a string`);
      own[name] = value;
    }
    out[server] = own;
  }
  return out;
}
