/**
 * `stateguard scan --help` and the flag table in docs/scanner.md list the same flags: the table is
 * the reference a newcomer reads, the help what they see first, and neither may drift.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SCAN_OPTIONS } from '../../src/cli/scan-args.js';
import { SCAN_HELP } from '../../src/cli/scan-help.js';
import { REPORT_FORMATS } from '../../src/report/index.js';

const DOC = readFileSync(fileURLToPath(new URL('../../docs/scanner.md', import.meta.url)), 'utf8');

/** The first column of the table under `## Flags`, flag by flag. */
function tableFlags(): Map<string, string> {
  const section = DOC.slice(DOC.indexOf('## Flags'));
  const rows = section
    .slice(0, section.indexOf('\n## ', 1))
    .split('\n')
    .filter((l) => l.startsWith('| `--'));
  const flags = new Map<string, string>();
  for (const row of rows) {
    const [first = '', ...rest] = row.slice(1).split(/(?<!\\)\|/);
    for (const m of first.matchAll(/--([a-z][a-z-]*)/g)) flags.set(m[1] ?? '', rest.join('|'));
  }
  return flags;
}

/** Flags `--help` documents: every `--flag` at the start of an option line. */
function helpFlags(): Set<string> {
  const flags = new Set<string>();
  for (const line of SCAN_HELP.split('\n')) {
    const m = /^\s{2}(?:-h, )?--([a-z][a-z-]*)/.exec(line);
    if (m) flags.add(m[1] ?? '');
  }
  return flags;
}

// Flags issue 10 added: each shows an example in both places.
const NEW_FLAGS = ['skip-probe', 'write-baseline', 'ca', 'insecure', 'header'];

describe('the flag table and --help', () => {
  const accepted = Object.keys(SCAN_OPTIONS).filter((f) => f !== 'help');

  it('list exactly the flags the parser accepts', () => {
    expect([...tableFlags().keys()].sort()).toEqual([...accepted].sort());
    expect([...helpFlags()].filter((f) => f !== 'help').sort()).toEqual([...accepted].sort());
  });

  it.each(NEW_FLAGS)('give an example of --%s in both', (flag) => {
    expect(tableFlags().get(flag)).toMatch(new RegExp(`e\\.g\\. \`--${flag}`, 'i'));
    const block = SCAN_HELP.slice(SCAN_HELP.indexOf(`  --${flag}`)).split(/\n {2}--/)[0] ?? '';
    expect(block).toMatch(new RegExp(`e\\.g\\.[\\s\\S]*--${flag}`));
  });

  it.each(REPORT_FORMATS)('name and describe the report format %s in both', (format) => {
    expect(tableFlags().get('format')).toContain(`\`${format}\``);
    expect(SCAN_HELP).toMatch(new RegExp(`^ {31}${format}: \\S`, 'm'));
  });
});
