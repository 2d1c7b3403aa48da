/**
 * Every golden SARIF file against validators that are not ours (the SARIF 2.1.0 schema and
 * Microsoft's SARIF Multitool with GitHub's ingestion rules) and against GitHub's documented
 * constraints; and each check shown to catch what it is for.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { PROBES } from '../../src/probe/runner/registry.js';
import type { RunReport } from '../../src/probe/model/report.js';
import { toSarif } from '../../src/report/sarif.js';
import { CASES } from './golden-cases.js';
import { githubProblems, uriProblem } from './sarif-github.js';
import { multitoolProblems, schemaProblems } from './sarif-validators.js';
import { report } from './sample-report.js';

const GOLDEN = (name: string): string =>
  fileURLToPath(new URL(`../golden/${name}`, import.meta.url));
const SARIF_FILES = CASES.filter(([, format]) => format === 'sarif').map(([file]) => file);
const read = (file: string): { log: unknown; text: string } => {
  const text = readFileSync(GOLDEN(file), 'utf8');
  return { log: JSON.parse(text), text };
};

/* eslint-disable @typescript-eslint/no-explicit-any -- logs are broken on purpose below */
/** A log with one result that breaks a GitHub rule of each kind. */
function brokenLog(): any {
  const log = JSON.parse(JSON.stringify(toSarif(report, { color: false, evidence: 'summary' })));
  const [first, second] = log.runs[0].results;
  delete first.locations; // "expected at least one location"
  second.locations[0].physicalLocation.artifactLocation.uri = 'file:///etc/passwd';
  return log;
}

const dir = mkdtempSync(join(tmpdir(), 'stateguard-sarif-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('every golden SARIF file', () => {
  it('lists the combined and every-severity goldens among its files', () => {
    expect(SARIF_FILES).toEqual(expect.arrayContaining(['report-combined.sarif', 'report.sarif']));
    expect(SARIF_FILES.length).toBeGreaterThanOrEqual(5);
  });

  it.each(SARIF_FILES)('%s is valid against the SARIF 2.1.0 schema', (file) => {
    expect(schemaProblems(read(file).log)).toEqual([]);
  });

  it.each(SARIF_FILES)('%s meets GitHub code scanning constraints', (file) => {
    const { log, text } = read(file);
    expect(githubProblems(log, text)).toEqual([]);
  });

  it('passes the SARIF Multitool with its SARIF and GitHub ingestion rules', async () => {
    expect(await multitoolProblems(SARIF_FILES.map(GOLDEN))).toEqual([]);
  }, 120_000);
});

describe('the validators', () => {
  it('catch a result without a location, a URI with a scheme and an unknown level', async () => {
    const broken = brokenLog();
    const file = join(dir, 'broken.sarif');
    writeFileSync(file, JSON.stringify(broken, null, 2));
    const github = githubProblems(broken, JSON.stringify(broken));
    expect(github).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/results\[0\]: 0 locations/),
        expect.stringMatching(/results\[1\].*uri has a URL scheme/),
      ]),
    );
    expect((await multitoolProblems([file])).join('\n')).toMatch(/GH1015/);
    broken.runs[0].results[1].level = 'fatal';
    expect(schemaProblems(broken).join('\n')).toMatch(/results\/1\/level/);
  }, 120_000);

  it.each([
    ['src/server.ts', undefined],
    ['.stateguard/stdio-server.js-3def2330', undefined],
    ['my%20config/.mcp.json', undefined],
    ['https://example.com/x', 'has a URL scheme'],
    ['C:/repo/x', 'has a URL scheme'],
    ['/etc/passwd', 'is absolute'],
    ['a/../b', 'has . , .. or //'],
    ['a\\b', 'uses a backslash'],
    ['my config.json', 'is not a percent-encoded URI reference'],
    ['', 'is empty'],
  ])('judge the URI %j: %s', (uri, problem) => {
    expect(uriProblem(uri)).toBe(problem);
  });
});

describe('the rules of every registered probe', () => {
  it('meet GitHub rule limits and pass the schema when every probe is confirmed', () => {
    const all: RunReport = {
      ...report,
      probes: PROBES.map((p) => ({ ...report.probes[0]!, id: p.id, severity: p.severity })),
    };
    const log = toSarif(all, { color: false, evidence: 'summary' });
    expect(log.runs[0]?.tool.driver.rules).toHaveLength(PROBES.length);
    expect(githubProblems(log, JSON.stringify(log))).toEqual([]);
    expect(schemaProblems(JSON.parse(JSON.stringify(log)))).toEqual([]);
  });
});
