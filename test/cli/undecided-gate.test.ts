/**
 * The gate tells the truth: a server whose one flow sits behind a tool the call plan leaves alone
 * (test/servers/left-alone.ts: `refund_order` spends) has one probe decided and the state probes
 * skipped. Those are *undecided*, named with the flag that would decide them, and the run exits 5;
 * `--allow-undecided` restores the old exit 0. On both transports, against a real child process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/probe/model/report.js';
import { builtPath, runCli } from '../helpers/cli.js';

const SERVER = builtPath('test/servers/left-alone.ts');
const dir = mkdtempSync(join(tmpdir(), 'stateguard-undecided-'));
let http: ChildProcess | undefined;
let url = '';

beforeAll(async () => {
  const child = spawn(process.execPath, [SERVER, 'http'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  http = child;
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const line = /^(http:\/\/\S+)\n/.exec(out);
      if (line) resolve(line[1] as string);
    });
    child.on('exit', () => reject(new Error('the HTTP server exited')));
  });
}, 30_000);
afterAll(() => {
  http?.kill();
  rmSync(dir, { recursive: true, force: true });
});

const targets = (): [string, string[]][] => [
  ['stdio', ['--stdio', `${process.execPath} ${SERVER} stdio`]],
  ['http', ['--http', url]],
];

describe.each(['stdio', 'http'])('a flow left alone by the call plan, over %s', (transport) => {
  const target = (): string[] => targets().find(([t]) => t === transport)?.[1] ?? [];

  it('is undecided: exit 5, each such probe named with --allow-tool refund_order', async () => {
    const output = join(dir, `${transport}.json`);
    const run = await runCli(
      ['scan', ...target(), '--format', 'json', '--output', output, '--quiet'],
      {},
      60_000,
    );
    expect(run.code, run.stderr).toBe(5);
    const report = JSON.parse(readFileSync(output, 'utf8')) as RunReport;
    expect(report.probes.find((p) => p.id === 'handle/cross-principal')?.verdict).toBe('refuted');
    const undecided = report.probes.filter((p) => p.decideWith !== undefined).map((p) => p.id);
    expect(undecided).toContain('state/tamper');
    for (const p of report.probes.filter((r) => r.decideWith !== undefined))
      expect(p.decideWith).toEqual(['--allow-tool refund_order']);
    // A skip that no opt-in would change (no tasks declared) is not undecided.
    expect(undecided).not.toContain('handle/task-cross-principal');
    expect(run.stderr).toContain(
      'undecided state/tamper: its surface may be there but was not tried; --allow-tool refund_order would decide it',
    );
    // The summary line (on stderr with --output) says it first.
    const summary = run.stderr.trim().split('\n').at(-1) ?? '';
    expect(summary).toMatch(
      new RegExp(
        `^${undecided.length} undecided \\(--allow-tool refund_order would decide them\\) · `,
      ),
    );
  });

  it('--allow-undecided keeps the old exit code, 0', async () => {
    const run = await runCli(
      ['scan', ...target(), '--format', 'json', '--allow-undecided', '--quiet'],
      {},
      60_000,
    );
    expect(run.code, run.stderr).toBe(0);
  });
});

describe('a server whose every tool call answers -32603 Internal error', () => {
  it('over stdio: nothing decided (exit 4), each probe named undecided with the broken tools', async () => {
    const run = await runCli(
      ['scan', '--stdio', `${process.execPath} ${SERVER} stdio --broken`],
      {},
      60_000,
    );
    expect(run.code, run.stderr).toBe(4);
    expect(run.stderr).toContain(
      'undecided state/tamper: its surface may be there but was not tried; a server that answers create_note, get_note (each answered -32603 Internal error, so no tool ran) would decide it',
    );
  });

  it('over HTTP: the Origin probe decides, the rest are undecided: exit 5; --allow-undecided 0', async () => {
    const child = spawn(process.execPath, [SERVER, 'http', '--broken'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const broken = await new Promise<string>((resolve) => {
        let out = '';
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          const line = /^(http:\/\/\S+)\n/.exec(out);
          if (line) resolve(line[1] as string);
        });
      });
      const output = join(dir, 'broken.json');
      const run = await runCli(
        ['scan', '--http', broken, '--format', 'json', '--output', output, '--quiet'],
        {},
        60_000,
      );
      expect(run.code, run.stderr).toBe(5);
      const report = JSON.parse(readFileSync(output, 'utf8')) as RunReport;
      expect(report.probes.find((p) => p.id === 'transport/origin')?.verdict).toBe('refuted');
      expect(report.probes.find((p) => p.id === 'state/tamper')?.decideWith).toEqual([
        'a server that answers create_note, get_note (each answered -32603 Internal error, so no tool ran)',
      ]);
      const allowed = await runCli(
        ['scan', '--http', broken, '--allow-undecided', '--quiet'],
        {},
        60_000,
      );
      expect(allowed.code, allowed.stderr).toBe(0);
    } finally {
      child.kill();
    }
  });
});

describe('with --output, a run that decided nothing says why on stderr (exit 4)', () => {
  it('a stdio command that does not start: the target problem, and that fixing it decides', async () => {
    const output = join(dir, 'missing.json');
    const run = await runCli(
      [
        'scan',
        '--stdio',
        'node /nonexistent.js',
        '--format',
        'json',
        '--output',
        output,
        '--quiet',
      ],
      {},
      60_000,
    );
    expect(run.code, run.stderr).toBe(4);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^stateguard scan: nothing decided: target problem: the target did not answer: server\/discover \(closed: server exited with code 1 before answering; .*\); with it fixed, its probes would decide \(--allow-undecided passes without\)$/,
    );
    expect(lines[1]).toMatch(
      /^0 confirmed · 0 refuted · 0 skipped · \d+ errored · nothing decided/,
    );
  });

  it('every probe skipped for an absent surface: each reason once, with what would decide it', async () => {
    const output = join(dir, 'origin.json');
    const run = await runCli(
      [
        'scan',
        '--stdio',
        `${process.execPath} ${SERVER} stdio`,
        '--probe',
        'transport/origin',
        '--probe',
        'state/tamper',
        '--format',
        'json',
        '--output',
        output,
        '--quiet',
      ],
      {},
      60_000,
    );
    expect(run.code, run.stderr).toBe(4);
    // state/tamper is named once, by the undecided line; the Origin probe by its skip reason.
    expect(run.stderr).toContain('stateguard scan: undecided state/tamper:');
    expect(run.stderr).toContain(
      'stateguard scan: nothing decided: transport/origin skipped: precondition: the Streamable HTTP transport (stdio carries no Origin); a target with that surface would decide it (--allow-undecided passes without)\n',
    );
    expect(run.stderr).not.toMatch(/nothing decided: state\/tamper/);
  });
});
