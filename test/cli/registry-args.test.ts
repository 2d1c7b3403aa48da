/**
 * The registry flags of `stateguard scan`, as the parser checks them before anything is read:
 * each misuse is a one-line usage error (exit 2) naming the flag.
 */
import { describe, expect, it } from 'vitest';
import { ProbeUsageError } from '../../src/errors.js';
import { parseScanArgs } from '../../src/cli/scan-args.js';

const parse = (...argv: string[]) => parseScanArgs(argv, {});

function usage(argv: string[]): string {
  try {
    parse(...argv);
  } catch (error) {
    if (error instanceof ProbeUsageError) return error.message;
    throw error;
  }
  throw new Error('no usage error');
}

describe('registry flags', () => {
  it('read the registry request: the list URL, filters, bounds and what may run', () => {
    const args = parse(
      '--registry',
      'https://registry.example.com/',
      '--registry-search',
      'weather',
      '--registry-updated-since',
      '2025-08-07T13:15:04Z',
      '--registry-version',
      'latest',
      '--registry-page-size',
      '100',
      '--run-packages',
      '--allow-remote',
      'MCP.Example.com',
      '--env',
      'API_TOKEN',
    );
    if (args === 'help' || args.registry === undefined) throw new Error('no registry request');
    expect(args.registry.where).toBe('https://registry.example.com/v0.1/servers');
    expect(args.registry.query).toEqual({
      limit: 100,
      search: 'weather',
      updatedSince: '2025-08-07T13:15:04Z',
      version: 'latest',
    });
    expect(args.registry.plan.runPackages).toBe(true);
    expect(args.registry.plan.allowRemote).toEqual(['mcp.example.com']);
    expect(args.registry.plan.envNames).toEqual(['API_TOKEN']);
  });

  it.each([
    [
      ['--stdio', 'node x.js', '--run-packages'],
      '--run-packages applies to --registry and --server-json only',
    ],
    [
      ['--http', 'http://127.0.0.1/mcp', '--allow-remote', 'a.example'],
      '--allow-remote applies to --registry and --server-json only',
    ],
    [
      ['--registry', 'http://r.example', '--server-json', 's.json'],
      'give either --registry or --server-json, not both',
    ],
    [
      ['--registry', 'http://r.example', '--config', 'x.json'],
      'give either --registry or --config, not both',
    ],
    [
      ['--registry', 'http://r.example', '--http', 'http://127.0.0.1/mcp'],
      '--http does not combine with --registry (the servers come from the registry)',
    ],
    [
      ['--registry', 'http://r.example', '--registry-page-size', '101'],
      '--registry-page-size is at most 100',
    ],
    [['--registry', 'ftp://r.example'], "--registry needs an http(s) URL, got 'ftp:' scheme"],
    [
      ['--registry', 'http://u:p@r.example'],
      '--registry URL must not carry a user name or password',
    ],
    [
      ['--registry', 'http://r.example', '--allow-remote', 'https://a.example/'],
      "--allow-remote takes a host name, e.g. --allow-remote mcp.example.com, got 'https://a.example/'",
    ],
    [
      ['--registry', 'http://r.example', '--registry-updated-since', 'yesterday'],
      "--registry-updated-since takes an RFC 3339 time, e.g. 2025-08-07T13:15:04Z, got 'yesterday'",
    ],
    [
      ['--server-json', 's.json', '--registry-search', 'x'],
      '--registry-search applies to --registry only',
    ],
    [
      ['--server-json', 's.json', '--env-file', 'x.env'],
      '--env-file does not combine with --server-json; give values by server name with --values',
    ],
    [
      ['--registry', 'http://r.example', '--values', '/nonexistent/values.json'],
      "--values '/nonexistent/values.json': cannot read (ENOENT)",
    ],
    [
      ['--registry', 'http://r.example', '--format', 'cert-x-gen'],
      '--format cert-x-gen has no report for several servers yet; with --registry use text, json, sarif, junit, markdown, html',
    ],
  ])('%j: %s', (argv, message) => {
    expect(usage(argv)).toBe(message);
  });
});
