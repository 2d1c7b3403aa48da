/**
 * A default scan harms nothing (issue #33), shown on the `side-effects` twin, whose 21 tools send,
 * pay, deploy, launch or delete, declared in ten languages, with no annotations or false ones, the
 * harm sometimes only in an enum or behind a `$ref`. Each of them appends its name to a log file the
 * test owns before it checks anything, so the log is the ground truth of what a scan called.
 *
 * On both transports, with the built command line (`npm run build` first) and two random
 * identities: a default scan appends nothing, lists every such tool as not called and still decides
 * the handle probe on the honestly safe pair (`create_note` → `read_note`); `--plan` calls no tool
 * at all (over HTTP a counting proxy sees no `tools/call`) and prints every tool with its class;
 * `--allow-tool run_payroll` calls that tool and no other that acts.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quote } from 'shell-quote';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LOG_ENV,
  SAFE_TOOLS,
  SIDE_EFFECTING,
  sideEffectsTwin,
} from '../../harness/twins/foreign/side-effects.js';
import type { RunningTwin } from '../../harness/twins/foreign/twin.js';
import { CALL_CLASSES, SAFE_CLASSES } from '../../src/probe/model/tools.js';
import type { RunReport } from '../../src/probe/model/report.js';
import { nodeCommand, runCommand, type CliRun } from '../helpers/cli.js';
import { REPO_ROOT, spawnStdio } from '../helpers/spawn-stdio.js';
import { envelope, parseBody, post } from '../fixture/driver.js';

const ACTING = Object.keys(SIDE_EFFECTING);
const ALL_TOOLS = [...SAFE_TOOLS, ...ACTING];
const ALLOWED = 'run_payroll';
const DIST_CLI = join(REPO_ROOT, 'dist/cli/main.js');
/** The twin from source: the harness is not in `dist/` (the built CLI scans it). */
const TWIN = join(REPO_ROOT, 'harness/twins/foreign/main.ts');
const SCAN_LIMIT_MS = 100_000;

const dir = mkdtempSync(join(tmpdir(), 'side-effects-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
/** A fresh, empty log file of this test's. */
function freshLog(): string {
  const file = join(dir, `calls-${++files}.log`);
  writeFileSync(file, '');
  return file;
}

/** The tool names the log holds, one a line, in order. */
const logged = (file: string): string[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as string);

/** The random pair of identities of one scan, kept out of the command line. */
const identities = (): NodeJS.ProcessEnv => ({
  STATEGUARD_IDENTITY_A: `a-${randomBytes(12).toString('hex')}`,
  STATEGUARD_IDENTITY_B: `b-${randomBytes(12).toString('hex')}`,
});

/**
 * A pass-through to `target` on 127.0.0.1 that counts the `tools/call` requests it forwards: the
 * twin's safe tools log nothing, so this is how a scan that must call no tool at all is watched.
 */
async function countingProxy(
  target: string,
): Promise<{ url: string; requests(): number; toolCalls(): number; close(): Promise<void> }> {
  let requests = 0;
  let toolCalls = 0;
  const read = (req: IncomingMessage): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.once('end', () => resolve(Buffer.concat(chunks)));
      req.once('error', reject);
    });
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await read(req);
      requests++;
      try {
        const message = JSON.parse(body.toString('utf8')) as unknown;
        const methods = (Array.isArray(message) ? message : [message]).map(
          (m) => (m as { method?: unknown } | null)?.method,
        );
        toolCalls += methods.filter((m) => m === 'tools/call').length;
      } catch {
        // Not JSON: forwarded as it is; the twin answers it.
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === 'string' && !['host', 'content-length', 'connection'].includes(name))
          headers[name] = value;
      const answer = await fetch(target, {
        method: req.method ?? 'POST',
        headers,
        ...(req.method === 'GET' || req.method === 'HEAD' ? {} : { body }),
        signal: AbortSignal.timeout(30_000),
      });
      const out: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (!['content-length', 'content-encoding', 'transfer-encoding'].includes(name))
          out[name] = value;
      });
      res.writeHead(answer.status, out);
      res.end(Buffer.from(await answer.arrayBuffer()));
    })().catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${new URL(target).pathname}`,
    requests: () => requests,
    toolCalls: () => toolCalls,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface Scanned {
  readonly run: CliRun;
  /** What the twin's log holds after the scan. */
  readonly log: string[];
  /** The JSON report, when the scan wrote one. */
  readonly report?: RunReport;
  /** HTTP only: the requests the scan sent, and how many of them were `tools/call`. */
  readonly requests?: number;
  readonly toolCalls?: number;
}

/** Runs `stateguard scan <flags>` against the twin in `variant` over `transport`. */
async function scan(
  transport: 'http' | 'stdio',
  variant: 'flawed' | 'fixed',
  flags: readonly string[],
  json: boolean,
): Promise<Scanned> {
  const logFile = freshLog();
  const output = join(dir, `report-${files}.json`);
  const out = json ? ['--format', 'json', '--output', output] : [];
  const report = (): RunReport | undefined =>
    json && existsSync(output)
      ? (JSON.parse(readFileSync(output, 'utf8')) as RunReport)
      : undefined;
  if (transport === 'stdio') {
    const command = quote([...nodeCommand(TWIN), '--twin', 'side-effects', '--variant', variant]);
    const run = await runCommand(
      process.execPath,
      // A stdio target starts in a minimal environment: the log's path is passed on by name, as a
      // user passes a server what it needs (--allow-tool's test is the control that it arrives).
      [DIST_CLI, 'scan', '--stdio', command, '--env', LOG_ENV, '--quiet', ...out, ...flags],
      { ...identities(), [LOG_ENV]: logFile },
      SCAN_LIMIT_MS,
    );
    return { run, log: logged(logFile), report: report() };
  }
  const running: RunningTwin = await sideEffectsTwin({ logFile }).startHttp(variant);
  const proxy = await countingProxy(running.url);
  try {
    const run = await runCommand(
      process.execPath,
      [DIST_CLI, 'scan', '--http', proxy.url, '--quiet', ...out, ...flags],
      identities(),
      SCAN_LIMIT_MS,
    );
    return {
      run,
      log: logged(logFile),
      report: report(),
      requests: proxy.requests(),
      toolCalls: proxy.toolCalls(),
    };
  } finally {
    await proxy.close();
    await running.close();
  }
}

beforeAll(() => {
  // A missing prerequisite is a failure, not a skip.
  for (const file of [DIST_CLI, TWIN])
    if (!existsSync(file)) throw new Error(`${file} is missing: run npm run build first`);
});

describe('the side-effects twin', () => {
  it('declares 21 acting tools, named and described as the fixture says', () => {
    expect(ACTING).toHaveLength(21);
    expect(ACTING).toContain('d\u0435lete_backups');
    expect(ACTING).not.toContain('delete_backups');
    for (const lead of ['approve', 'escalate', 'page', 'settle', 'launch', 'upload'])
      expect(
        ACTING.some((t) => t.startsWith(`${lead}_`)),
        lead,
      ).toBe(true);
  });

  it('logs every acting call before it checks anything, and the safe tools never (stdio)', async () => {
    const logFile = freshLog();
    const child = await spawnStdio(
      'harness/twins/foreign/main.ts',
      ['--twin', 'side-effects', '--variant', 'fixed'],
      { env: { [LOG_ENV]: logFile } },
    );
    try {
      let id = 0;
      const call = (name: string, args: unknown) =>
        child.rpc({
          id: ++id,
          method: 'tools/call',
          params: { name, arguments: args, _meta: envelope() },
        });
      const listed = await child.rpc({
        id: ++id,
        method: 'tools/list',
        params: { _meta: envelope() },
      });
      const names = ((listed.result?.['tools'] ?? []) as { name: string }[]).map((t) => t.name);
      expect([...names].sort()).toEqual([...ALL_TOOLS].sort());
      const created = await call('create_note', { text: 'hello' });
      expect(created.result?.['isError']).toBeUndefined();
      await call('read_note', { note: 'note_nothing' });
      expect(logged(logFile)).toEqual([]);
      // Arguments no schema accepts: the call is still logged, first thing.
      for (const name of ACTING) await call(name, { wrong: [1] });
      expect(logged(logFile)).toEqual(ACTING);
    } finally {
      await child.close();
    }
  }, 30_000);

  it('logs an acting call over HTTP too, the homoglyph name included', async () => {
    const logFile = freshLog();
    const running = await sideEffectsTwin({ logFile }).startHttp('fixed');
    try {
      for (const name of ['run_payroll', 'd\u0435lete_backups']) {
        // A name outside printable ASCII goes in Mcp-Name as the transport's base64 sentinel.
        const header = /^[\x20-\x7e]*$/.test(name)
          ? name
          : `=?base64?${Buffer.from(name, 'utf8').toString('base64')}?=`;
        const sent = await post(
          running.url,
          {
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name, arguments: {}, _meta: envelope() },
          },
          { token: 'alice', headers: { 'mcp-name': header } },
        );
        expect(sent.status).toBe(200);
        expect(parseBody(sent.text)['result']).toBeDefined();
      }
      expect(logged(logFile)).toEqual(['run_payroll', 'd\u0435lete_backups']);
    } finally {
      await running.close();
    }
  }, 30_000);
});

// flawed over HTTP (the handle probe confirms), fixed over stdio (it is refuted).
describe.each([
  ['http', 'flawed', 'confirmed'],
  ['stdio', 'fixed', 'refuted'],
] as const)('side-effects over %s (%s)', (transport, variant, handleVerdict) => {
  describe('a default scan', () => {
    let scanned: Scanned;
    beforeAll(async () => {
      scanned = await scan(transport, variant, [], true);
    }, SCAN_LIMIT_MS + 20_000);

    it('runs to a report', () => {
      // 5: the probes whose flow may sit behind a tool left alone are undecided, and say so.
      expect([0, 1, 5], scanned.run.stderr).toContain(scanned.run.code);
      expect(scanned.report?.protocol.toolNames.sort()).toEqual([...ALL_TOOLS].sort());
    });

    it('calls none of the tools that act: the log stays empty', () => {
      // What a failure here prints is the list of tools the scan called, with how often.
      const counts: Record<string, number> = {};
      for (const name of scanned.log) counts[name] = (counts[name] ?? 0) + 1;
      expect(counts).toEqual({});
    });

    it('names every tool that acts as not called', () => {
      const uncalled = (scanned.report?.uncalled ?? []).map((u) => u.tool);
      expect(ACTING.filter((t) => !uncalled.includes(t))).toEqual([]);
      expect(uncalled.filter((t) => (SAFE_TOOLS as readonly string[]).includes(t))).toEqual([]);
    });

    it('plans each tool that acts outside read and create, uncalled, and calls the safe pair', () => {
      const entries = scanned.report?.plan?.entries ?? [];
      expect(entries.length, 'the report carries a call plan').toBeGreaterThan(0);
      const entry = (name: string) => entries.find((e) => e.kind === 'tool' && e.name === name);
      for (const name of ACTING) {
        const e = entry(name);
        expect(e, name).toBeDefined();
        expect(SAFE_CLASSES.has(e!.class), `${name} is ${e!.class}`).toBe(false);
        expect(e!.calledBy, name).toBeUndefined();
      }
      for (const name of SAFE_TOOLS) {
        expect(SAFE_CLASSES.has(entry(name)!.class), name).toBe(true);
        expect(entry(name)?.calledBy, name).toBe('default');
      }
    });

    it('still decides the handle probe on create_note → read_note', () => {
      const handle = scanned.report?.probes.find((p) => p.id === 'handle/cross-principal');
      expect(handle?.verdict).toBe(handleVerdict);
      expect(scanned.report?.surface?.handles).toContain('create_note → read_note.note');
      // The counting proxy sees the calls a scan makes (so its zero under --plan means something).
      if (transport === 'http') expect(scanned.toolCalls).toBeGreaterThan(0);
    });
  });

  describe('stateguard scan --plan', () => {
    let scanned: Scanned;
    beforeAll(async () => {
      scanned = await scan(transport, variant, ['--plan'], false);
    }, SCAN_LIMIT_MS + 20_000);

    it('is a flag the command line knows', () => {
      expect(scanned.run.code, scanned.run.stderr).not.toBe(2);
    });

    it('calls no tool at all', () => {
      // Not by failing early: the plan was made from the server's own tools/list.
      expect(scanned.run.code, scanned.run.stderr).not.toBe(2);
      expect(scanned.run.stdout).toContain('create_note');
      expect(scanned.log).toEqual([]);
      if (transport === 'http') {
        expect(scanned.requests).toBeGreaterThan(0);
        expect(scanned.toolCalls).toBe(0);
      }
    });

    it('prints every tool with its class', () => {
      const lines = scanned.run.stdout.split('\n');
      const classOf = new RegExp(`(^|[^\\p{L}_])(${CALL_CLASSES.join('|')})([^\\p{L}_]|$)`, 'u');
      for (const name of ALL_TOOLS) {
        const line = lines.find((l) =>
          new RegExp(`(^|[^\\p{L}\\d_])${name}([^\\p{L}\\d_]|$)`, 'u').test(l),
        );
        expect(line, `${name} is printed`).toBeDefined();
        expect(line, `${name}'s line names its class`).toMatch(classOf);
      }
      for (const name of ACTING) {
        const line = lines.find((l) => l.includes(name)) ?? '';
        expect(line, name).toMatch(/(^|[^\p{L}_])(write|outside|destroy|unknown)([^\p{L}_]|$)/u);
      }
    });
  });

  describe(`stateguard scan --allow-tool ${ALLOWED}`, () => {
    let scanned: Scanned;
    beforeAll(async () => {
      scanned = await scan(transport, variant, ['--allow-tool', ALLOWED], true);
    }, SCAN_LIMIT_MS + 20_000);

    it('is a flag the command line knows', () => {
      expect(scanned.run.code, scanned.run.stderr).not.toBe(2);
    });

    it(`calls ${ALLOWED}, and no other tool that acts`, () => {
      expect(scanned.log.length).toBeGreaterThan(0);
      expect(scanned.log.filter((name) => name !== ALLOWED)).toEqual([]);
    });

    it(`says ${ALLOWED} was called on the user's word`, () => {
      const entry = scanned.report?.plan?.entries.find((e) => e.name === ALLOWED);
      expect(entry?.calledBy).toBe('--allow-tool');
      expect(scanned.report?.plan?.allowTools).toEqual([ALLOWED]);
    });
  });
});
