/**
 * Two SARIF validators from the npm registry, neither of them ours:
 * - the OASIS SARIF 2.1.0 JSON schema (the copy `@microsoft/sarif-multitool` ships), checked with
 *   Ajv and its formats, so `uri-reference`, `uri` and `date-time` values are checked too;
 * - Microsoft's SARIF Multitool (`validate`, the validator behind the web validator GitHub's docs
 *   point to), with its SARIF rules and its GitHub ingestion rules (`--rule-kind "Sarif;Gh"`).
 * Both, because each misses what the other sees: the Multitool reports nothing at all for a log it
 * cannot deserialize (an unknown `level`, say), and the schema knows none of GitHub's rules.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const require = createRequire(import.meta.url);

/** The Multitool executable for this platform (`@microsoft/sarif-multitool` resolves it). */
export const MULTITOOL = require('@microsoft/sarif-multitool') as string;

/** The official schema, from the Multitool's package. */
export const SCHEMA = JSON.parse(
  readFileSync(join(dirname(MULTITOOL), 'sarif-2.1.0.json'), 'utf8'),
) as Record<string, unknown>;

// ajv-formats is CommonJS with a `default` beside `module.exports`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
const validate = ajv.compile(SCHEMA);

/** Every way `log` departs from the SARIF 2.1.0 schema, as `path: message`; empty when valid. */
export function schemaProblems(log: unknown): string[] {
  if (validate(log)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message ?? e.keyword}`);
}

/**
 * Multitool findings this project accepts, each with its reason. SARIF2005 asks for the tool's
 * `informationUri`: the package names no home page to point at.
 */
export const ACCEPTED_MULTITOOL_RULES: Record<string, string> = {
  SARIF2005: 'no informationUri: the package has no home page to name',
};

const LINE = /^(.*)\((\d+),(\d+)\): (error|warning|note) ([A-Za-z]+\d+): (.*)$/;

/**
 * Runs the Multitool's `validate` with its SARIF and GitHub rules over `files`; resolves with every
 * error or warning it reports (`file:line: RULE message`) other than the accepted ones. A run that
 * does not end with all files scanned is a problem too.
 */
export async function multitoolProblems(files: readonly string[]): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'stateguard-multitool-'));
  try {
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        MULTITOOL,
        [
          'validate',
          ...files,
          '--rule-kind',
          'Sarif;Gh',
          '--output',
          join(dir, 'validation.sarif'),
          '--log',
          'ForceOverwrite',
        ],
        { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
        (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)),
      );
    });
    const problems: string[] = [];
    for (const line of stdout.split(/\r?\n/)) {
      const m = LINE.exec(line.trim());
      if (m === null) continue;
      const [, file, row, , , rule = '', message] = m;
      if (Object.hasOwn(ACCEPTED_MULTITOOL_RULES, rule)) continue;
      problems.push(`${file}:${row}: ${rule} ${message}`);
    }
    if (!stdout.includes(`Done. ${files.length} files scanned.`))
      problems.push(`the Multitool did not scan all ${files.length} files:\n${stdout}`);
    if (!stdout.includes('Analysis completed successfully.'))
      problems.push(`the Multitool did not complete:\n${stdout}`);
    return problems;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
