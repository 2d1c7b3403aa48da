/**
 * Engine mode's reading of the environment: which target the CERT_X_GEN_TARGET_* and CXG_MCP_*
 * variables name, and the one-line refusal of every value that names none. Files are real.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { engineInput, engineRequested } from '../../src/cli/engine-env.js';
import { parseScanArgs } from '../../src/cli/scan-args.js';
import { ProbeUsageError } from '../../src/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'sg-engine-env-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const server = join(dir, 'mcp-server');
writeFileSync(server, '#!/bin/sh\n');
chmodSync(server, 0o755);
const script = join(dir, 'server.py');
writeFileSync(script, 'print()\n');

const env = (vars: Record<string, string>): NodeJS.ProcessEnv => ({
  CERT_X_GEN_MODE: 'engine',
  ...vars,
});

describe('engine mode finds the target', () => {
  it.each([
    [
      { CERT_X_GEN_TARGET_HOST: '127.0.0.1', CERT_X_GEN_TARGET_PORT: '8971' },
      'http://127.0.0.1:8971/mcp',
    ],
    [{ CERT_X_GEN_TARGET_HOST: 'mcp.example' }, 'http://mcp.example:8000/mcp'],
    [
      {
        CERT_X_GEN_TARGET_HOST: 'mcp.example',
        CERT_X_GEN_TARGET_PORT: '443',
        CERT_X_GEN_TARGET_PROTOCOL: 'HTTPS',
      },
      'https://mcp.example/mcp',
    ],
    [
      {
        CERT_X_GEN_TARGET_HOST: 'mcp.example',
        CERT_X_GEN_TARGET_PORT: '8443',
        CERT_X_GEN_TARGET_KIND: 'https',
      },
      'https://mcp.example:8443/mcp',
    ],
    [
      { CERT_X_GEN_TARGET_HOST: 'https://mcp.example:9000/api/mcp', CERT_X_GEN_TARGET_PORT: '80' },
      'https://mcp.example:9000/api/mcp',
    ],
    [
      { CERT_X_GEN_TARGET_HOST: '[::1]', CERT_X_GEN_TARGET_PORT: '3000', STATEGUARD_MCP_PATH: '/' },
      'http://[::1]:3000/',
    ],
  ])('%j → %s', (vars, url) => {
    expect(engineInput(env(vars)).target).toEqual({ kind: 'http', url });
  });

  it('runs a cli:// host, CERT_X_GEN_TARGET_KIND=cli, or an absolute file over stdio with CXG_MCP_STDIO_ARGS', () => {
    const args = { CXG_MCP_STDIO_ARGS: `--mode 'a b' --flag` };
    const want = { kind: 'stdio', command: server, args: ['--mode', 'a b', '--flag'] };
    expect(engineInput(env({ CERT_X_GEN_TARGET_HOST: `cli://${server}`, ...args })).target).toEqual(
      want,
    );
    expect(engineInput(env({ CERT_X_GEN_TARGET_HOST: server, ...args })).target).toEqual(want);
    expect(
      engineInput(env({ CERT_X_GEN_TARGET_HOST: 'mcp-server', CERT_X_GEN_TARGET_KIND: 'CLI' }))
        .target,
    ).toEqual({ kind: 'stdio', command: 'mcp-server', args: [] });
  });

  it('hands a script that is not executable to its interpreter', () => {
    expect(engineInput(env({ CERT_X_GEN_TARGET_HOST: `cli://${script}` })).target).toEqual({
      kind: 'stdio',
      command: 'python3',
      args: [script],
    });
  });

  it('takes CXG_MCP_STDIO_CMD as the whole command line, before any host', () => {
    const input = engineInput(
      env({ CERT_X_GEN_TARGET_HOST: '127.0.0.1', CXG_MCP_STDIO_CMD: 'node "my server.js" --x' }),
    );
    expect(input.target).toEqual({ kind: 'stdio', command: 'node', args: ['my server.js', '--x'] });
  });

  it("reads the seed's identities, meta key and destructive opt-in", () => {
    expect(
      engineInput(
        env({
          CERT_X_GEN_TARGET_HOST: 'h',
          CXG_MCP_IDENTITY_A: 'alice-token',
          CXG_MCP_IDENTITY_B: 'bob-token',
          CXG_MCP_PRINCIPAL_META_KEY: 'example.com/principal',
          CXG_MCP_MRTR_INCLUDE_DESTRUCTIVE: '1',
        }),
      ),
    ).toMatchObject({
      identities: { A: 'alice-token', B: 'bob-token' },
      principalMetaKey: 'example.com/principal',
      includeDestructive: true,
    });
    expect(engineInput(env({ CERT_X_GEN_TARGET_HOST: 'h', CXG_MCP_IDENTITY_A: '' }))).toEqual({
      target: { kind: 'http', url: 'http://h:8000/mcp' },
      identities: {},
      includeDestructive: false,
    });
  });
});

describe('engine mode refuses', () => {
  it.each([
    [{}, 'CERT_X_GEN_TARGET_HOST is not set'],
    [
      { CERT_X_GEN_TARGET_HOST: 'h', CERT_X_GEN_TARGET_PORT: '80x' },
      "CERT_X_GEN_TARGET_PORT needs a port number (1-65535), got '80x'",
    ],
    [{ CERT_X_GEN_TARGET_HOST: 'h', CERT_X_GEN_TARGET_PORT: '70000' }, 'needs a port number'],
    [{ CERT_X_GEN_TARGET_HOST: 'h', CERT_X_GEN_TARGET_PROTOCOL: 'tcp' }, 'must be http or https'],
    [{ CERT_X_GEN_TARGET_HOST: 'user:pw@h' }, 'credentials go in CXG_MCP_IDENTITY_A/B'],
    [{ CERT_X_GEN_TARGET_HOST: 'h\nX-Injected: 1' }, 'without control characters'],
    [
      { CERT_X_GEN_TARGET_HOST: 'h', STATEGUARD_MCP_PATH: '//evil.example/mcp' },
      "must start with one '/'",
    ],
    [{ CERT_X_GEN_TARGET_HOST: 'cli://' }, 'cli:// needs the path of the server'],
    [
      { CERT_X_GEN_TARGET_HOST: 'cli:///bin/server', CXG_MCP_STDIO_ARGS: '--x; rm -rf ~' },
      "CXG_MCP_STDIO_ARGS runs no shell; remove ';'",
    ],
    [{ CXG_MCP_STDIO_CMD: 'server | tee log' }, "CXG_MCP_STDIO_CMD runs no shell; remove '|'"],
    [
      { CXG_MCP_STDIO_CMD: 'FOO=1 server' },
      'CXG_MCP_STDIO_CMD runs no shell, so environment assignments',
    ],
    [
      { CERT_X_GEN_TARGET_HOST: 'h', CXG_MCP_MRTR_INCLUDE_DESTRUCTIVE: 'yes' },
      'takes 1 (call destructive tools) or 0',
    ],
  ])('%j', (vars, message) => {
    expect(() => engineInput(env(vars))).toThrow(ProbeUsageError);
    expect(() => engineInput(env(vars))).toThrow(message);
  });
});

describe('scan arguments in engine mode', () => {
  it('needs --format cert-x-gen and CERT_X_GEN_MODE=engine together', () => {
    const vars = { CERT_X_GEN_TARGET_HOST: '127.0.0.1', CERT_X_GEN_TARGET_PORT: '9' };
    expect(engineRequested(['--format', 'cert-x-gen'], env(vars))).toBe(true);
    expect(engineRequested(['--format=cert-x-gen'], env(vars))).toBe(true);
    expect(engineRequested(['--format', 'json'], env(vars))).toBe(false);
    expect(engineRequested(['--format', 'cert-x-gen'], vars)).toBe(false);
    const parsed = parseScanArgs(
      ['--format', 'cert-x-gen'],
      env({ ...vars, CXG_MCP_MRTR_INCLUDE_DESTRUCTIVE: '1' }),
    );
    expect(parsed).toMatchObject({
      engine: true,
      target: { kind: 'http', url: 'http://127.0.0.1:9/mcp' },
      includeDestructive: true,
    });
    // Outside engine mode the format is an ordinary one: the target comes from the flags.
    expect(() => parseScanArgs(['--format', 'cert-x-gen'], vars)).toThrow('no target');
    expect(parseScanArgs(['--format', 'cert-x-gen', '--http', 'http://h/mcp'], vars)).toMatchObject(
      {
        engine: false,
      },
    );
  });

  it('lets a flag win over the environment, and refuses a target flag', () => {
    const vars = env({
      CERT_X_GEN_TARGET_HOST: 'h',
      CXG_MCP_IDENTITY_A: 'alice-token',
      STATEGUARD_IDENTITY_B: 'bob-token',
    });
    expect(
      parseScanArgs(['--format', 'cert-x-gen', '--identity-a', 'carol-token'], vars),
    ).toMatchObject({
      identities: { A: 'carol-token', B: 'bob-token' },
    });
    expect(() => parseScanArgs(['--format', 'cert-x-gen', '--http', 'http://h/mcp'], vars)).toThrow(
      'remove --http/--stdio',
    );
    // A warning names the variables engine mode reads.
    const one = parseScanArgs(
      ['--format', 'cert-x-gen'],
      env({ CERT_X_GEN_TARGET_HOST: 'h', CXG_MCP_IDENTITY_A: 'alice-token' }),
    );
    expect(one === 'help' ? [] : one.warnings).toContainEqual(
      expect.stringContaining(
        'only identity A is set (CXG_MCP_IDENTITY_A); B is a random one the server will likely refuse; set CXG_MCP_IDENTITY_B too',
      ),
    );
  });
});
