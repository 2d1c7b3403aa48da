/**
 * `stateguard scan --baseline <file>`: the file's grammar and its usage errors, the semantics on a
 * fixed report (baselined, stale, neither), and real scans of the fixture twins over stdio.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quote } from 'shell-quote';
import { afterAll, describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../src/cli/scan-common.js';
import { ProbeUsageError } from '../../src/errors.js';
import type { Mode } from '../../src/fixture/flaws.js';
import { applyBaseline, parseBaseline, targetKey } from '../../src/probe/runner/baseline.js';
import { PROBES } from '../../src/probe/runner/registry.js';
import { displayTarget } from '../../src/probe/runner/scan.js';
import type { RunReport } from '../../src/probe/model/report.js';
import { runCli, builtFixtureStdio } from '../helpers/cli.js';
import { report } from '../report/sample-report.js';

const dir = mkdtempSync(join(tmpdir(), 'stateguard-baseline-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
/** Writes a baseline file and returns its path. */
function baselineFile(...lines: string[]): string {
  const file = join(dir, `b${++files}.baseline`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** The fixture twin in `mode` over stdio: the `--stdio` command line and its report display. */
function fixture(mode: Mode): { line: string; display: string } {
  const { command, args } = builtFixtureStdio(mode);
  return {
    line: quote([command, ...args]),
    display: displayTarget({ kind: 'stdio', command, args }),
  };
}

const usageError = (text: string): string => {
  try {
    parseBaseline(text, 'b.txt');
  } catch (error) {
    expect(error).toBeInstanceOf(ProbeUsageError);
    return (error as Error).message;
  }
  throw new Error('parsed without an error');
};

describe('the baseline file', () => {
  it('reads bare and target-limited entries, skipping comments, blank lines, CRLF and a BOM', () => {
    const text =
      '\uFEFF# accepted until the 2.0 migration\r\n\r\nstate/tamper\r\n' +
      '  handle/cross-principal@http://127.0.0.1:3000/mcp  \n' +
      'state/replay-request@stdio:node server.js --flag "#1"\nstate/tamper\n';
    expect(parseBaseline(text, 'b.txt')).toEqual({
      file: 'b.txt',
      entries: [
        { probeId: 'state/tamper', text: 'state/tamper', line: 3 },
        {
          probeId: 'handle/cross-principal',
          target: 'http://127.0.0.1:3000/mcp',
          text: 'handle/cross-principal@http://127.0.0.1:3000/mcp',
          line: 4,
        },
        {
          probeId: 'state/replay-request',
          target: 'stdio:node server.js --flag "#1"',
          text: 'state/replay-request@stdio:node server.js --flag "#1"',
          line: 5,
        },
      ],
    });
  });

  it.each([
    ['state/tamper # until v2', 1],
    ['\nstate tamper', 2],
    ['state/tamper\n\n@stdio:node server.js', 3],
    ['state/tamper@', 1],
    ['state/tamper@localhost:3000', 1],
    ['state/tamper@ stdio:node server.js', 1],
  ])('refuses the malformed entry in %j, naming line %i', (text, line) => {
    expect(usageError(text)).toMatch(
      new RegExp(`^--baseline 'b\\.txt' line ${line}: expected <probe-id> or <probe-id>@<target>`),
    );
  });

  it('refuses an unknown probe id, naming its line and the known ids', () => {
    const message = usageError('state/tamper\nstate/tamperr@stdio:x');
    expect(message).toBe(
      `--baseline 'b.txt' line 2: unknown probe 'state/tamperr' (${PROBES.map((p) => p.id).join(', ')})`,
    );
  });
});

describe('targets as entries and reports are compared', () => {
  it.each([
    ['http://127.0.0.1:3000/mcp', 'http://localhost:4100/mcp/'],
    ['http://127.0.0.1:3000/mcp', 'http://[::1]:80/mcp'],
    ['https://MCP.example.com:443/mcp', 'https://mcp.example.com/mcp'],
    ['stdio:node  server.js --flag', 'stdio:node server.js --flag'],
  ])('%s matches %s', (a, b) => {
    expect(targetKey(a)).toBe(targetKey(b));
  });

  it.each([
    ['http://127.0.0.1:3000/mcp', 'https://127.0.0.1:3000/mcp'],
    ['http://127.0.0.1:3000/mcp', 'http://127.0.0.1:3000/other'],
    ['https://mcp.example.com:8443/mcp', 'https://mcp.example.com/mcp'],
    ['https://mcp.example.com/mcp', 'https://mcp.example.org/mcp'],
    ['stdio:node server.js', 'stdio:node server.js --flag'],
  ])('%s does not match %s', (a, b) => {
    expect(targetKey(a)).not.toBe(targetKey(b));
  });

  it('applies an entry on a moved loopback port and by a --config server name, and reports what matched nothing', () => {
    const moved: RunReport = {
      ...report,
      target: { kind: 'http', display: 'http://localhost:4100/mcp' },
    };
    const named: RunReport = {
      ...report,
      server: { name: 'github', file: '.mcp.json', line: 3, format: 'claude-code' },
    };
    const b = parseBaseline(
      'state/tamper@http://127.0.0.1:3000/mcp\nstate/tamper@github\nstate/tamper@http://mcp.example.com/mcp',
      'b',
    );
    expect(applyBaseline(moved, b).baseline).toMatchObject({
      baselined: ['state/tamper'],
      unmatched: ['state/tamper@github', 'state/tamper@http://mcp.example.com/mcp'],
    });
    expect(applyBaseline(named, b).baseline?.baselined).toEqual(['state/tamper']);
    const strict = applyBaseline(moved, { ...b, strict: true });
    expect(exitCodeOf(applyBaseline(moved, b))).toBe(3);
    expect(exitCodeOf(strict)).toBe(1);
  });
});

describe('a baseline applied to a report', () => {
  // The sample holds one probe of each verdict: tamper confirmed, replay-request refuted,
  // cross-principal skipped, replay-principal errored.
  const all = parseBaseline(PROBES.map((p) => p.id).join('\n'), 'all.baseline');

  it('marks an accepted confirmed result baselined, keeping its verdict, right after the verdict', () => {
    const applied = applyBaseline(report, all);
    const tamper = applied.probes.find((p) => p.id === 'state/tamper');
    expect(tamper).toMatchObject({ verdict: 'confirmed', baselined: true });
    const keys = Object.keys(tamper ?? {});
    expect(keys.slice(keys.indexOf('verdict'), keys.indexOf('verdict') + 2)).toEqual([
      'verdict',
      'baselined',
    ]);
    expect(applied.probes.filter((p) => p.baselined === true)).toHaveLength(1);
    const top = Object.keys(applied);
    expect(top.slice(top.indexOf('baseline'), top.indexOf('baseline') + 2)).toEqual([
      'baseline',
      'probes',
    ]);
  });

  it('calls an entry stale when its probe is refuted, and names neither skipped nor errored ones', () => {
    const applied = applyBaseline(report, all);
    expect(applied.baseline).toEqual({
      file: 'all.baseline',
      baselined: ['state/tamper'],
      stale: ['state/replay-request'],
      unmatched: [],
    });
    expect(exitCodeOf(applied)).toBe(1);
  });

  it('exits 3 for an errored probe when every confirmed one is baselined and nothing is stale', () => {
    const applied = applyBaseline(
      report,
      parseBaseline('state/tamper\nstate/replay-principal\nhandle/cross-principal', 'b'),
    );
    expect(applied.baseline?.stale).toEqual([]);
    expect(exitCodeOf(report)).toBe(1);
    expect(exitCodeOf(applied)).toBe(3);
  });

  it('applies an entry limited to a target only on exactly that target', () => {
    const here = parseBaseline('state/tamper@stdio:./server.js', 'b');
    const there = parseBaseline('state/tamper@stdio:./server.js --other', 'b');
    expect(applyBaseline(report, here).baseline?.baselined).toEqual(['state/tamper']);
    expect(applyBaseline(report, there).baseline?.baselined).toEqual([]);
    expect(applyBaseline(report, there).probes).toEqual(report.probes);
  });
});

// The four probes the flawed twin confirms on every transport; the others are not about baselines.
const FOUR = [
  'handle/cross-principal',
  'state/tamper',
  'state/replay-principal',
  'state/replay-request',
];
const ONLY_FOUR = FOUR.flatMap((id) => ['--probe', id]);

describe('stateguard scan --baseline against the fixture twins', () => {
  it('exits 0 on the flawed twin when the baseline lists all four probes, every result baselined', async () => {
    const output = join(dir, 'all.json');
    const file = baselineFile('# every known flaw', ...FOUR);
    const { line } = fixture('flawed');
    const run = await runCli([
      'scan',
      '--stdio',
      line,
      ...ONLY_FOUR,
      '--baseline',
      file,
      '--format',
      'json',
      '--output',
      output,
    ]);
    expect(run.code).toBe(0);
    const json = JSON.parse(readFileSync(output, 'utf8')) as RunReport;
    expect(json.schemaVersion).toBe(1);
    expect(json.probes.map((p) => [p.verdict, p.baselined])).toEqual(
      FOUR.map(() => ['confirmed', true]),
    );
    expect(json.baseline).toEqual({ file, baselined: FOUR, stale: [], unmatched: [] });
    expect(run.stderr).toContain('4 confirmed (4 baselined) · 0 refuted · 0 skipped · 0 errored');
  });

  it('exits 1 on the flawed twin when the baseline lists one probe, the other three unbaselined', async () => {
    const run = await runCli([
      'scan',
      '--stdio',
      fixture('flawed').line,
      ...ONLY_FOUR,
      '--baseline',
      baselineFile('state/tamper'),
      '--quiet',
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('✗ CONFIRMED state/tamper (baselined)  ');
    for (const id of ['handle/cross-principal', 'state/replay-principal', 'state/replay-request'])
      expect(run.stdout).toMatch(new RegExp(`✗ CONFIRMED ${id}  `));
    expect(run.stdout.match(/\(baselined\)/g)).toHaveLength(1);
    expect(run.stdout).toContain('4 confirmed (1 baselined) · 0 refuted');
  });

  it('exits 1 on the fixed twin for a stale state/tamper entry and names it', async () => {
    const file = baselineFile('state/tamper');
    const run = await runCli([
      'scan',
      '--stdio',
      fixture('fixed').line,
      '--probe',
      'state/tamper',
      '--baseline',
      file,
      '--quiet',
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('✓ refuted   state/tamper');
    expect(run.stdout).toContain(
      `✗ STALE     baseline entry state/tamper: its probe is now refuted`,
    );
    expect(run.stdout).toContain(
      '0 confirmed (0 baselined) · 1 refuted · 0 skipped · 0 errored · 1 stale baseline entry',
    );
    expect(run.stderr).toBe(
      `stateguard scan: stale baseline entry 'state/tamper': its probe is now refuted on this target; remove it from ${file}\n`,
    );
  });

  it('does not apply <id>@<other target>, and applies <id>@<this target>', async () => {
    const { line, display } = fixture('flawed');
    const scan = (file: string) =>
      runCli([
        'scan',
        '--stdio',
        line,
        '--probe',
        'state/tamper',
        '--baseline',
        file,
        '--format',
        'json',
        '--quiet',
      ]);
    const elsewhere = 'state/tamper@http://127.0.0.1:1/mcp';
    const both = baselineFile(`state/tamper@${display}`, elsewhere);
    const [other, same, lenient, strict] = await Promise.all([
      scan(baselineFile(`state/tamper@${display} --other`, elsewhere)),
      scan(baselineFile(`state/tamper@${display}`)),
      scan(both),
      runCli([
        'scan',
        '--stdio',
        line,
        '--probe',
        'state/tamper',
        '--baseline',
        both,
        '--strict-baseline',
        '--quiet',
      ]),
    ]);
    // The finding is accepted either way; only --strict-baseline fails on the entry that matched nothing.
    expect(lenient.code).toBe(0);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain(
      '1 confirmed (1 baselined) · 0 refuted · 0 skipped · 0 errored · 1 unmatched baseline entry',
    );
    expect(strict.stderr).toContain(`unmatched baseline entry '${elsewhere}'`);
    expect(strict.stderr).toContain('(--strict-baseline fails the run)');
    expect(other.code).toBe(1);
    const otherReport = JSON.parse(other.stdout) as RunReport;
    expect(otherReport.probes[0]).toMatchObject({ verdict: 'confirmed' });
    expect(otherReport.probes[0]).not.toHaveProperty('baselined');
    expect(otherReport.baseline).toMatchObject({
      baselined: [],
      stale: [],
      unmatched: [`state/tamper@${display} --other`, elsewhere],
    });
    expect(other.stderr).toContain(
      `stateguard scan: warning: unmatched baseline entry '${elsewhere}': it names a target this run did not scan, so it accepts nothing;`,
    );
    expect(same.code).toBe(0);
    expect((JSON.parse(same.stdout) as RunReport).probes[0]).toMatchObject({
      verdict: 'confirmed',
      baselined: true,
    });
  });

  it.each([
    [
      'a malformed line',
      () => baselineFile('state/tamper', 'state tamper'),
      'line 2: expected <probe-id>',
    ],
    [
      'an unknown probe id',
      () => baselineFile('# c', '', 'state/nope'),
      "line 3: unknown probe 'state/nope'",
    ],
    ['a missing file', () => join(dir, 'no-such.baseline'), ': ENOENT'],
    ['a directory', () => dir, 'is not a file'],
    ['an empty name', () => '', '--baseline needs a file name'],
  ])(
    'refuses %s with one line, the help hint and exit 2, before any scan',
    async (_, make, message) => {
      const run = await runCli(['scan', '--stdio', fixture('flawed').line, '--baseline', make()]);
      expect(run.code).toBe(2);
      const lines = run.stderr.trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toContain(message);
      expect(lines[0]).toMatch(/^stateguard scan: /);
      expect(lines[1]).toBe("Try 'stateguard scan --help'.");
      expect(run.stdout).toBe('');
    },
  );
});

describe('a stdio target written as a user writes it', () => {
  // `--title=@scope/pkg` stands for `npx -y @scope/pkg`: a word with `@` and `=`, which the report
  // once showed escaped (`--title\=\@scope/pkg`), so an entry written by hand never matched.
  const { command, args } = builtFixtureStdio('flawed');
  const words = [command, '--title=@scope/pkg', ...args];
  const written = words.join(' ');
  const scan = (file: string) =>
    runCli(
      [
        'scan',
        '--stdio',
        written,
        '--probe',
        'state/tamper',
        '--baseline',
        file,
        '--format',
        'json',
        '--quiet',
      ],
      {},
      60_000,
    );

  it('is shown unescaped, and a hand-written entry for it accepts the finding', async () => {
    const run = await scan(baselineFile(`state/tamper@stdio:${written}`));
    expect(run.code, run.stderr).toBe(0);
    const shown = JSON.parse(run.stdout) as RunReport;
    expect(shown.target.display).toBe(`stdio:${written}`);
    expect(shown.probes[0]).toMatchObject({ verdict: 'confirmed', baselined: true });
  });

  it('an older entry with the escaped spelling still matches', async () => {
    const escaped = `state/tamper@stdio:${quote(words)}`;
    expect(escaped).toContain('--title\\=\\@scope/pkg');
    const run = await scan(baselineFile(escaped));
    expect(run.code, run.stderr).toBe(0);
  });
});
