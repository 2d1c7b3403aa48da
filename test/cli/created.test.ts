/**
 * "What this scan created": a scan of a server that keeps what its tools create
 * (test/servers/left-alone.ts: `create_note` mints `note-<24 hex>` ids into a store) leaves those
 * notes behind, and every report format says so: the tool called and the id it handed out,
 * counted. The scan is a real child process; each format is rendered from its JSON report.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CombinedReport, RunReport } from '../../src/probe/model/report.js';
import { REPORTERS } from '../../src/report/index.js';
import { builtPath, runCli } from '../helpers/cli.js';

const SERVER = builtPath('test/servers/left-alone.ts');
const dir = mkdtempSync(join(tmpdir(), 'stateguard-created-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let report: RunReport;
beforeAll(async () => {
  const output = join(dir, 'report.json');
  const run = await runCli(
    [
      'scan',
      '--stdio',
      `${process.execPath} ${SERVER} stdio`,
      '--format',
      'json',
      '--output',
      output,
      '--allow-undecided',
      '--quiet',
    ],
    {},
    60_000,
  );
  expect(run.code, run.stderr).toBe(0);
  report = JSON.parse(readFileSync(output, 'utf8')) as RunReport;
}, 90_000);

const options = { color: false, evidence: 'summary', all: false } as const;

describe('what this scan created', () => {
  it('JSON: each note the scan created, with the tool that minted it, counted', () => {
    const created = report.created;
    expect(created?.total).toBeGreaterThan(0);
    expect(created?.items).toHaveLength(created?.total ?? -1);
    for (const item of created?.items ?? []) {
      expect(item.tool).toBe('create_note');
      // The id itself, not the answer's text block that carries it.
      expect(item.value).toMatch(/^note-[0-9a-f]{24}$/);
    }
  });

  it.each(['text', 'markdown', 'html', 'sarif', 'junit'] as const)(
    '%s says it: the count in words and each id',
    (format) => {
      const out = REPORTERS[format].render(report, options);
      const n = report.created?.total ?? 0;
      expect(out).toContain(`This scan created ${n} object${n === 1 ? '' : 's'} on the target`);
      for (const item of report.created?.items ?? []) expect(out).toContain(item.value);
      if (format === 'sarif') {
        const log = JSON.parse(out) as {
          runs: { invocations: { properties?: { created?: { total: number } } }[] }[];
        };
        expect(log.runs[0]?.invocations[0]?.properties?.created?.total).toBe(n);
      }
      if (format === 'junit')
        expect(out).toMatch(/<property name="created" value="create_note → note-/);
    },
  );

  it.each(['text', 'markdown', 'html', 'sarif', 'junit', 'json'] as const)(
    'a --config report in %s says it for each server',
    (format) => {
      const combined: CombinedReport = {
        schemaVersion: 1,
        kind: 'combined',
        tool: report.tool,
        configs: ['mcp.json'],
        startedAt: report.startedAt,
        ms: report.ms,
        servers: [report],
      };
      const out = REPORTERS[format].renderCombined?.(combined, options) ?? '';
      for (const item of report.created?.items ?? []) expect(out).toContain(item.value);
    },
  );
});
