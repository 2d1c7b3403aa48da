/**
 * An optional dangerous slot is never filled (docs/scanner.md, "What a scan calls"), shown on a
 * real stdio server (test/servers/optional-slot.ts): `get_page_snapshot` reads, and saves on the
 * host only when its optional `filename` is set, by appending to a log file this test owns. A
 * default scan (the built command line, `npm run build` first) puts the tool in its plan as `read`,
 * calls it, and never sends `filename`: the save log stays empty; with `--include-destructive`,
 * where every probe may vary arguments, it stays empty too. The control: the same server, sent a
 * `filename`, writes the log.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quote } from 'shell-quote';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/probe/model/report.js';
import { nodeCommand, runCommand } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/spawn-stdio.js';

const SERVER = join(REPO_ROOT, 'test/servers/optional-slot.ts');
const DIST_CLI = join(REPO_ROOT, 'dist/cli/main.js');
const TOOL = 'get_page_snapshot';
const dir = mkdtempSync(join(tmpdir(), 'optional-slot-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
const fresh = (what: string): string => {
  const file = join(dir, `${what}-${++files}.log`);
  writeFileSync(file, '');
  return file;
};
const lines = (file: string): string[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as string);

interface Scan {
  readonly code: number | null;
  readonly stderr: string;
  readonly calls: string[];
  readonly saved: string[];
  readonly report: RunReport;
}

async function scan(flags: readonly string[] = []): Promise<Scan> {
  const calls = fresh('calls');
  const saved = fresh('saved');
  const output = join(dir, `report-${++files}.json`);
  const command = quote(nodeCommand(SERVER));
  const run = await runCommand(
    process.execPath,
    [
      DIST_CLI,
      'scan',
      '--stdio',
      command,
      '--env',
      'OPTIONAL_SLOT_CALLS',
      '--env',
      'OPTIONAL_SLOT_SAVED',
      '--format',
      'json',
      '--output',
      output,
      '--allow-undecided',
      '--quiet',
      ...flags,
    ],
    {
      OPTIONAL_SLOT_CALLS: calls,
      OPTIONAL_SLOT_SAVED: saved,
      STATEGUARD_IDENTITY_A: `a-${randomBytes(12).toString('hex')}`,
      STATEGUARD_IDENTITY_B: `b-${randomBytes(12).toString('hex')}`,
    },
    100_000,
  );
  return {
    code: run.code,
    stderr: run.stderr,
    calls: lines(calls),
    saved: lines(saved),
    report: JSON.parse(readFileSync(output, 'utf8')) as RunReport,
  };
}

beforeAll(() => {
  if (!existsSync(DIST_CLI)) throw new Error(`${DIST_CLI} is missing: run npm run build first`);
});

describe('an optional dangerous slot is never filled', () => {
  it('control: the server saves on the host when it is sent a filename', async () => {
    const saved = fresh('saved');
    const child = spawn(process.execPath, nodeCommand(SERVER).slice(1), {
      cwd: REPO_ROOT,
      env: { ...process.env, OPTIONAL_SLOT_SAVED: saved },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const answer = new Promise<string>((resolve) =>
      child.stdout.once('data', (c: Buffer) => resolve(c.toString())),
    );
    child.stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: TOOL, arguments: { filename: 'snap.txt' } },
      })}\n`,
    );
    expect(await answer).toContain('Saved the snapshot');
    child.kill();
    expect(lines(saved)).toEqual(['snap.txt']);
  }, 30_000);

  it('a default scan plans the tool as read, calls it, and never sends filename', async () => {
    const run = await scan();
    expect(run.code, run.stderr).toBe(0);
    const entry = run.report.plan?.entries.find((e) => e.name === TOOL);
    expect(entry?.class).toBe('read');
    expect(entry?.calledBy).toBe('default');
    expect(entry?.evidence).toContain('optional path `filename` left unset');
    expect(run.calls).toContain(TOOL);
    expect(run.saved).toEqual([]);
  }, 120_000);

  it('with --include-destructive, every probe varying arguments, it is still never sent', async () => {
    const run = await scan(['--include-destructive']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.calls.filter((c) => c === TOOL).length).toBeGreaterThan(0);
    expect(run.saved).toEqual([]);
  }, 120_000);
});
