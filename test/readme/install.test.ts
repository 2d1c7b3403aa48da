/**
 * The install story (issue 35): stateguard is not on the npm registry, so no instruction may install
 * it from there, and the README says how to install it from the repository (a clone, a tarball, a
 * git URL) and plainly that it is not published.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/spawn-stdio.js';

const read = (path: string): string => readFileSync(join(REPO_ROOT, path), 'utf8');
const PAGES = [
  'README.md',
  ...readdirSync(join(REPO_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The lines inside fenced code blocks: what a reader copies and runs. */
function codeLines(markdown: string): string[] {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const open = /^(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && open !== undefined) fence = open;
    else if (fence !== undefined && line.startsWith(fence)) fence = undefined;
    else if (fence !== undefined) lines.push(line);
  }
  return lines;
}

/** An instruction that fetches stateguard from the npm registry, or a release tag that does not exist. */
const FROM_REGISTRY = [
  /\bnpm (?:install|i|add)\b(?:\s+-\S+)*\s+stateguard(?:@\S*)?(?:\s|$)/,
  /\bnpx (?:-y |--yes )?stateguard@/,
  /\bnpx -y stateguard\b/,
  /uses: \S*stateguard@v\d/,
  /\$\(npm root -g\)\/stateguard/,
];

describe('install instructions', () => {
  it.each(PAGES)('%s installs nothing of stateguard from the npm registry', (page) => {
    const offending = codeLines(read(page)).filter((l) => FROM_REGISTRY.some((r) => r.test(l)));
    expect(offending).toEqual([]);
  });

  it('the engine template and action.yml install nothing from the registry', () => {
    const template = read('templates/cert-x-gen/stateguard-mcp-state-integrity.py');
    expect(template).not.toMatch(/npm install -g stateguard/);
    expect(template).toContain('not on the npm registry');
    const action = read('action.yml');
    expect(action).not.toMatch(/npm install[^\n]*stateguard@/);
    expect(action).toContain('working-directory: ${{ github.action_path }}');
  });

  it('the README says it is not on the registry, and shows a clone, a tarball and a git URL', () => {
    const readme = read('README.md');
    expect(readme).toContain('**stateguard is not on the npm registry**');
    const code = codeLines(readme).join('\n');
    expect(code).toMatch(/npm install && npm run build/);
    expect(code).toMatch(/node dist\/cli\/main\.js scan/);
    expect(code).toMatch(/npm link/);
    expect(code).toMatch(/npm pack/);
    expect(code).toMatch(/npm install \S*stateguard-0\.1\.0\.tgz/);
    expect(code).toMatch(/npm install git\+https:\/\/\S+stateguard\.git#/);
  });

  it('the version in the tarball name is the package version', () => {
    const { version } = JSON.parse(read('package.json')) as { version: string };
    expect(read('README.md')).toContain(`stateguard-${version}.tgz`);
  });

  it('catches the instructions it forbids (the patterns are live)', () => {
    for (const line of [
      'npm install stateguard',
      'npm install -g stateguard',
      'npm i stateguard@0.1.0 ioredis',
      'npx -y stateguard scan',
      '      - uses: acme/stateguard@v0.1.0',
      'cp "$(npm root -g)/stateguard/templates/x.py" .',
    ])
      expect(
        FROM_REGISTRY.some((r) => r.test(line)),
        line,
      ).toBe(true);
    for (const line of [
      'npm install ./stateguard-0.1.0.tgz',
      'npm install git+https://h/o/stateguard.git#abc',
    ])
      expect(
        FROM_REGISTRY.some((r) => r.test(line)),
        line,
      ).toBe(false);
  });
});
