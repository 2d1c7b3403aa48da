/**
 * A local MCP registry and npm registry in one real HTTP server on 127.0.0.1, port 0:
 *
 * - `GET /v0.1/servers?limit&cursor&search&updated_since&version` pages through `entries` (at
 *   most `limit`, itself at most 100, per page; `metadata.nextCursor` while more are left); every
 *   request is recorded, so a test can assert the paging and the filters sent;
 * - `GET /<package name>` and `GET /-/<file>.tgz` serve an npm packument and tarball for each
 *   packed package, so `npx -y -- <name>@<version>` installs from here with a `.npmrc` naming
 *   this server as its registry: no traffic beyond loopback.
 *
 * `packFixturePackage` packs a tiny npm package whose bin starts the repository's stdio fixture
 * (from this run's build, or from source through tsx: see harness/node-entry.ts) in the mode its
 * first argument names.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHttp, type RunningHttp } from './http.js';
import { nodeCommand } from './cli.js';
import { REPO_ROOT } from './spawn-stdio.js';

/** A packed npm package: its name, version and tarball bytes. */
export interface PackedPackage {
  readonly name: string;
  readonly version: string;
  readonly bin: string;
  readonly tarball: Buffer;
}

/**
 * Packs, in `dir`, a package `name@version` whose bin runs the stdio fixture in the mode of its
 * first argument (default `fixed`); later arguments are ignored.
 */
export function packFixturePackage(dir: string, name: string, version: string): PackedPackage {
  const root = join(dir, `${name}-${version}`);
  mkdirSync(root, { recursive: true });
  const bin = 'bin.mjs';
  writeFileSync(
    join(root, 'package.json'),
    JSON.stringify({ name, version, type: 'module', bin: { [name]: bin } }),
  );
  const [node, ...entry] = nodeCommand(join(REPO_ROOT, 'harness/fixture/main.ts'));
  writeFileSync(
    join(root, bin),
    [
      '#!/usr/bin/env node',
      "import { spawn } from 'node:child_process';",
      `const mode = process.argv[2] ?? 'fixed';`,
      `const child = spawn(${JSON.stringify(node)}, [...${JSON.stringify(entry)}, '--transport', 'stdio', '--mode', mode], { stdio: 'inherit' });`,
      "child.on('exit', (code) => process.exit(code ?? 1));",
      "for (const s of ['SIGTERM', 'SIGINT']) process.on(s, () => child.kill(s));",
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  const packed = spawnSync('npm', ['pack', '--silent', '--pack-destination', dir], {
    cwd: root,
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
  const file = packed.stdout.trim().split('\n').pop() ?? '';
  return { name, version, bin, tarball: readFileSync(join(dir, file)) };
}

/** The running registry. */
export interface LocalRegistry extends RunningHttp {
  /** Every request's URL (path and query), in order. */
  readonly requests: URL[];
  /** The `.npmrc` text that makes npm install from here. */
  readonly npmrc: string;
}

/** Starts the registry over `entries` (each a `{ server, _meta }` item) and `packages`. */
export async function startRegistry(
  entries: readonly unknown[],
  packages: readonly PackedPackage[] = [],
): Promise<LocalRegistry> {
  const requests: URL[] = [];
  let base = '';
  const http = await startHttp((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push(url);
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/v0.1/servers') {
      const limit = Math.min(Number(url.searchParams.get('limit') ?? '30') || 30, 100);
      const cursor = url.searchParams.get('cursor');
      const start = cursor === null ? 0 : Number(Buffer.from(cursor, 'base64url').toString());
      const search = url.searchParams.get('search');
      const matching = entries.filter(
        (e) =>
          search === null ||
          String((e as { server?: { name?: unknown } }).server?.name ?? '').includes(search),
      );
      const page = matching.slice(start, start + limit);
      const next = start + limit < matching.length ? start + limit : undefined;
      json(200, {
        servers: page,
        metadata: {
          count: page.length,
          ...(next === undefined
            ? {}
            : { nextCursor: Buffer.from(String(next)).toString('base64url') }),
        },
      });
      return;
    }
    const tarball = /^\/-\/(.+)\.tgz$/.exec(url.pathname)?.[1];
    const pkg = packages.find((p) =>
      tarball !== undefined
        ? `${p.name.replace('/', '-')}-${p.version}` === tarball
        : decodeURIComponent(url.pathname.slice(1)) === p.name,
    );
    if (pkg === undefined) return json(404, { error: 'not found' });
    if (tarball !== undefined) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(pkg.tarball);
      return;
    }
    json(200, {
      name: pkg.name,
      'dist-tags': { latest: pkg.version },
      versions: {
        [pkg.version]: {
          name: pkg.name,
          version: pkg.version,
          bin: { [pkg.name]: pkg.bin },
          dist: {
            tarball: `${base}/-/${pkg.name.replace('/', '-')}-${pkg.version}.tgz`,
            shasum: createHash('sha1').update(pkg.tarball).digest('hex'),
            integrity: `sha512-${createHash('sha512').update(pkg.tarball).digest('base64')}`,
          },
        },
      },
    });
  });
  base = http.url;
  return {
    ...http,
    requests,
    npmrc: `registry=${base}/\naudit=false\nfund=false\nupdate-notifier=false\n`,
  };
}
