import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { splitCommandLine } from '../../src/cli/command-line.js';
import { readConfig } from '../../src/cli/config/read-config.js';
import { ORIGINAL_MARKER, unwrapConfig, wrapConfig } from '../../src/watch/wrap.js';
import { REPO_ROOT } from '../helpers/spawn-stdio.js';
import { CLI_MAIN } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'sg-wrap-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const stdio = (indent: string) =>
  `{\n${indent}  "command": "npx",\n${indent}  "args": ["-y", "@acme/mcp server", "--root=$HOME/it's"],\n${indent}  "env": { "TOKEN": "t0k" }\n${indent}}`;

/** One copy of each client format, with a stdio server and a remote one. */
const FORMATS: Record<string, string> = {
  'claude_desktop_config.json': `{\n  "mcpServers": {\n    "files": ${stdio('    ')},\n    "remote": { "url": "https://example.com/mcp" }\n  },\n  "globalShortcut": ""\n}\n`,
  '.mcp.json': `{\n  "mcpServers": {\n    "files": ${stdio('    ')}\n  }\n}\n`,
  '.claude.json': `{"numStartups":3,"projects":{${JSON.stringify(dir)}:{"mcpServers":{"files":${stdio('')}}}},"mcpServers":{}}`,
  '.cursor/mcp.json': `{\n\t"mcpServers": {\n\t\t"files": ${stdio('\t\t')}\n\t}\n}`,
  '.vscode/mcp.json': `// workspace servers\n{\n  "inputs": [],\n  "servers": {\n    "files": ${stdio('    ')}, // trailing comment\n    "web": { "type": "http", "url": "http://localhost:3000/mcp" },\n  }\n}\n`,
  'mcp_config.json': `\uFEFF{\r\n  "mcpServers": {\r\n    "files": {"command": "uvx", "args": ["mcp-server-files"]},\r\n    "remote": {"serverUrl": "https://example.com/mcp"}\r\n  }\r\n}\r\n`,
};

const launcher = { command: '/usr/bin/node', args: ['/opt/stateguard/dist/cli/main.js'] };

describe('watch wrap / unwrap', () => {
  for (const [name, text] of Object.entries(FORMATS)) {
    it(`${name}: wraps the stdio server only, and unwrap restores the bytes`, () => {
      const { text: wrapped, changes } = wrapConfig(text, launcher, '/tmp/caps');
      expect(changes.map((c) => c.name)).toEqual(['files']);
      expect(wrapped).not.toBe(text);
      // The scanner still reads it, and the entry now runs the proxy around the old command.
      const file = join(dir, name.replace(/\//g, '_'), name);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, wrapped);
      const server = readConfig(file, dir).servers.find((s) => s.source.name === 'files');
      if (server?.spec.kind !== 'stdio') throw new Error('not stdio');
      expect(server.spec.command).toBe('/usr/bin/node');
      const [, watch, flag, line, captureFlag, capture] = server.spec.args;
      expect([watch, flag, captureFlag, capture]).toEqual([
        'watch',
        '--stdio',
        '--capture',
        '/tmp/caps/files.jsonl',
      ]);
      const original = readConfig((writeFileSync(file, text), file), dir).servers.find(
        (s) => s.source.name === 'files',
      );
      if (original?.spec.kind !== 'stdio') throw new Error('not stdio');
      expect(splitCommandLine(line as string)).toEqual({
        command: original.spec.command,
        args: original.spec.args,
      });
      expect(server.spec.env[ORIGINAL_MARKER]).toBeTypeOf('string');
      // Wrapping twice changes nothing; unwrap gives back the very bytes.
      expect(wrapConfig(wrapped, launcher, '/tmp/caps').changes).toEqual([]);
      expect(unwrapConfig(wrapped).text).toBe(text);
    });
  }

  it('--server picks one entry; a name that is not there is a usage error', () => {
    const text = FORMATS['claude_desktop_config.json'] as string;
    expect(wrapConfig(text, launcher, '/c', 'files').changes).toHaveLength(1);
    expect(() => wrapConfig(text, launcher, '/c', 'nope')).toThrow(/no unwrapped stdio server/);
    expect(() => unwrapConfig(text, 'files')).toThrow(/no wrapped server/);
  });

  it('the command line: wrap then unwrap a copy in place', () => {
    const file = join(dir, 'cli', 'claude_desktop_config.json');
    mkdirSync(dirname(file), { recursive: true });
    const text = FORMATS['claude_desktop_config.json'] as string;
    writeFileSync(file, text);
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [CLI_MAIN, 'watch', ...args], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        timeout: 30_000,
      });
    const wrap = run('wrap', file, '--capture-dir', join(dir, 'caps'));
    expect(wrap.status).toBe(0);
    expect(wrap.stderr).toContain('files');
    expect(readFileSync(file, 'utf8')).toContain('"watch"');
    expect(run('unwrap', file).status).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});
