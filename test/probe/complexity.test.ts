/**
 * The complexity servers (`harness/twins/complexity`) at one moderate size each: nested arrays in a
 * readable state, very many tokens, long echoes, many minted-looking values. Every scan must end
 * with a whole report within its deadline plus the documented grace, alone and under `--config`
 * beside a normal fixture twin, whose verdicts must come out as they do without the neighbour.
 *
 * The bench's complexity suite grows the same servers from 1 KiB to 1 MiB and fits the growth; here
 * only the promises are held (a report, the deadline), at a size where, before issue 22, a scan ran
 * out of heap or ran long past its deadline. Nothing here measures speed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  COMPLEXITY_SHAPES,
  complexityStdioCommand,
  type ComplexityShape,
} from '../../harness/twins/complexity/index.js';
import { expectedFor } from '../../src/fixture/flaws.js';
import { PROBES } from '../../src/probe/runner/registry.js';
import { runScan } from '../../src/probe/runner/scan.js';
import { STDIO_CLOSE_GRACE_MS } from '../../src/probe/target/stdio.js';
import type { CombinedReport, RunReport } from '../../src/probe/model/report.js';
import { json } from '../../src/report/json.js';
import { runCli, builtFixtureStdio } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/spawn-stdio.js';

/** What each server grows its state and answers to. */
const SIZE = 512 * 1024;
/** Read answers that large: the default (1 MiB) would refuse the echoes, sparing the scanner. */
const MAX_ANSWER = 8 * 1024 * 1024;
const DEADLINE_MS = 3000;
// Five scans at once on two cores: the twin beside the hostile servers needs room to finish all of
// its probes, or its verdicts would be the deadline's rather than its own.
const CONFIG_DEADLINE_MS = 25_000;
// The promise is the deadline plus the grace; the margin is for a loaded two-core machine (the
// timer fires late, the report is built after it), far below what a stalled scan overshoots by.
const MARGIN_MS = 1500;

const dir = mkdtempSync(join(tmpdir(), 'stateguard-complexity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A whole report: every probe, with evidence, that the JSON reporter writes and reads back. */
function expectWhole(report: RunReport): void {
  expect(report.probes.map((p) => p.id)).toEqual(PROBES.map((p) => p.id));
  for (const p of report.probes) expect(p.evidence.length, p.id).toBeGreaterThan(0);
  const text = json.render(report, { color: false, evidence: 'full' });
  expect((JSON.parse(text) as RunReport).probes).toHaveLength(PROBES.length);
}

describe('each complexity server alone, at 512 KiB', () => {
  it.each(COMPLEXITY_SHAPES.map((s) => [s]))(
    '%s: the scan ends within its deadline plus the grace, with a whole report',
    async (shape: ComplexityShape) => {
      const { command, args } = complexityStdioCommand(shape, SIZE);
      const started = performance.now();
      const report = await runScan({
        target: { kind: 'stdio', command, args },
        probes: PROBES,
        deadlineMs: DEADLINE_MS,
        maxAnswerBytes: MAX_ANSWER,
      });
      const wall = performance.now() - started;
      expectWhole(report);
      expect(report.problem).toBeUndefined();
      // The server was read: the survey found its tools and something was decided or tried.
      expect(report.protocol.toolNames).toEqual(['open_notebook', 'read_notebook', 'add_entry']);
      expect(wall).toBeLessThanOrEqual(DEADLINE_MS + STDIO_CLOSE_GRACE_MS + MARGIN_MS);
    },
  );
});

describe('every complexity server under --config beside a normal twin', () => {
  it("ends within the deadline plus the grace, and the twin's verdicts are its own", async () => {
    const entry = (command: string, args: readonly string[]) => ({ command, args, cwd: REPO_ROOT });
    const servers: Record<string, unknown> = {};
    for (const shape of COMPLEXITY_SHAPES) {
      const { command, args } = complexityStdioCommand(shape, SIZE);
      servers[`hostile-${shape}`] = entry(command, args);
    }
    const twin = builtFixtureStdio('flawed');
    servers['twin-flawed'] = entry(twin.command, twin.args);
    const config = join(dir, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: servers }));
    const output = join(dir, 'report.json');
    const started = performance.now();
    const run = await runCli(
      [
        'scan',
        '--config',
        config,
        '--concurrency',
        String(COMPLEXITY_SHAPES.length + 1),
        '--deadline',
        `${CONFIG_DEADLINE_MS}ms`,
        '--max-answer-bytes',
        String(MAX_ANSWER),
        '--format',
        'json',
        '--output',
        output,
      ],
      {},
      60_000,
    );
    const wall = performance.now() - started;
    expect(run.code, run.stderr).not.toBeNull();
    const report = JSON.parse(readFileSync(output, 'utf8')) as CombinedReport;
    const byName = new Map(report.servers.map((s) => [s.server?.name, s]));
    expect([...byName.keys()].sort()).toEqual(Object.keys(servers).sort());
    for (const shape of COMPLEXITY_SHAPES) {
      const hostile = byName.get(`hostile-${shape}`) as RunReport;
      expect(hostile.problem, shape).toBeUndefined();
      expectWhole(hostile);
    }
    const normal = byName.get('twin-flawed') as RunReport;
    const expected = expectedFor('flawed', 'stdio');
    expect(Object.keys(expected).length).toBeGreaterThanOrEqual(4);
    const got = Object.fromEntries(
      Object.keys(expected).map((id) => [id, normal.probes.find((p) => p.id === id)?.verdict]),
    );
    const reasons = normal.probes.map((p) => `${p.id}: ${p.reason}`).join('\n');
    expect(got, reasons).toEqual(expected);
    // Every server runs at once, so the whole run is one deadline plus the grace, and the CLI's
    // own start and exit (tsx from source here).
    expect(wall).toBeLessThanOrEqual(CONFIG_DEADLINE_MS + STDIO_CLOSE_GRACE_MS + MARGIN_MS + 4000);
    // The bound that matters is the one above; the runner's own limit sits past it and runCli's.
  }, 70_000);
});
