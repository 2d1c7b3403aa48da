/**
 * Messages that say which party is at fault and what to do: a refused identity, a TLS mismatch, a
 * crashed or chatty stdio server, a port `fetch` would refuse, a short identity in the report.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureHttp } from '../../src/fixture/http.js';
import { quietLog } from '../../src/fixture/log.js';
import { createRedactor } from '../../src/probe/evidence/evidence.js';
import type { RunReport } from '../../src/probe/model/report.js';
import { CLI_MAIN, runCli } from '../helpers/cli.js';
import { startHttp, type RunningHttp } from '../helpers/http.js';
import { startHttpServer } from '../servers/http-server.js';

const dir = mkdtempSync(join(tmpdir(), 'stateguard-messages-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const NODE = process.execPath;

/** A server that refuses every request with `status` (the body a JSON-RPC error, as many do). */
const refusing = (status: number) =>
  startHttp((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'no' } }));
    });
  });

describe('a refused identity', () => {
  it.each([401, 403])(
    'HTTP %i says the identity was refused and how to give one',
    async (status) => {
      const server = await refusing(status);
      try {
        const run = await runCli([
          'scan',
          '--http',
          `${server.url}/mcp`,
          '--format',
          'json',
          '--quiet',
        ]);
        expect(run.code).toBe(4);
        const report = JSON.parse(run.stdout) as RunReport;
        expect(report.problem).toContain(
          `the target refused the identity (HTTP ${status} to server/discover)`,
        );
        expect(report.problem).toContain('STATEGUARD_IDENTITY_A and STATEGUARD_IDENTITY_B');
        expect(report.problem).toContain('--identity-header');
        expect(report.problem).not.toContain('answered neither');
      } finally {
        await server.close();
      }
    },
  );
});

describe('TLS', () => {
  let plain: RunningHttp;
  let tls: { url: string; close(): Promise<void> };
  const cert = join(dir, 'cert.pem');
  beforeAll(async () => {
    plain = await refusing(401);
    const key = join(dir, 'key.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore', timeout: 20_000 },
    );
    const server = createHttpsServer(
      { key: readFileSync(key), cert: readFileSync(cert) },
      (req, res) => {
        req.resume();
        req.on('end', () => {
          res.writeHead(401, { 'content-type': 'text/plain' });
          res.end('who are you');
        });
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    tls = {
      url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
      close: () =>
        new Promise((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  });
  afterAll(async () => {
    await plain.close();
    await tls.close();
  });

  it('https:// against a plain HTTP server: one line, no OpenSSL dump', async () => {
    const url = plain.url.replace('http://', 'https://');
    const run = await runCli(['scan', '--http', `${url}/mcp`, '--format', 'json', '--quiet']);
    expect(run.code).toBe(4);
    const report = JSON.parse(run.stdout) as RunReport;
    expect(report.problem).toContain(
      'TLS handshake failed: the server does not speak TLS on this port',
    );
    expect(report.problem).not.toMatch(/ssl3_get_record|openssl|\n/i);
  });

  it('an untrusted certificate names --ca and --insecure; --ca trusts it; --insecure warns and goes on', async () => {
    const untrusted = await runCli(['scan', '--http', tls.url, '--format', 'json', '--quiet']);
    expect((JSON.parse(untrusted.stdout) as RunReport).problem).toMatch(
      /TLS certificate not trusted \([A-Z_]+\): give its CA with --ca <file>, or \(for a test server only\) --insecure/,
    );
    for (const flags of [['--ca', cert], ['--insecure']]) {
      const run = await runCli([
        'scan',
        '--http',
        tls.url,
        ...flags,
        '--format',
        'json',
        '--quiet',
      ]);
      expect(run.code).toBe(4);
      // Past TLS: the server's own answer (401) is what the report is about.
      expect((JSON.parse(run.stdout) as RunReport).problem).toContain(
        'the target refused the identity (HTTP 401',
      );
      if (flags[0] === '--insecure') expect(run.stderr).toContain('WARNING: --insecure');
    }
  });
});

describe('ports fetch refuses', () => {
  // WHATWG fetch's "bad ports" above 1023; the scanner's transport is node:http, which has none.
  const BAD_PORTS = [
    6000, 6566, 6665, 6666, 6667, 6668, 6669, 6697, 10080, 5060, 5061, 4045, 3659, 2049, 1720, 1723,
    1719,
  ];
  const freeBadPort = async (): Promise<number> => {
    for (const port of BAD_PORTS) {
      const free = await new Promise<boolean>((resolve) => {
        const probe = createNetServer();
        probe.once('error', () => resolve(false));
        probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
      });
      if (free) return port;
    }
    throw new Error(`none of ${BAD_PORTS.join(', ')} is free on 127.0.0.1`);
  };

  it('scans a server on one of them like any other port', async () => {
    const fixture = await startFixtureHttp({
      mode: 'fixed',
      port: await freeBadPort(),
      log: quietLog,
    });
    try {
      const run = await runCli(['scan', '--http', fixture.url, '--format', 'json', '--quiet']);
      expect(run.stdout).not.toContain('bad port');
      expect(run.code).toBe(0);
    } finally {
      await fixture.close();
    }
  });
});

describe('timeouts name the limit that fired and its flag', () => {
  it('HTTP: the per-call limit, --timeout', async () => {
    const server = await startHttpServer('modern', () => 'hang');
    try {
      const run = await runCli([
        'scan',
        '--http',
        server.url,
        '--timeout',
        '500ms',
        '--deadline',
        '20s',
        '--format',
        'json',
        '--quiet',
      ]);
      expect(run.code).toBe(4);
      expect((JSON.parse(run.stdout) as RunReport).problem).toContain(
        "no answer to server/discover 'era: server/discover' as A within 500 ms (the per-call limit, set by --timeout)",
      );
    } finally {
      await server.close();
    }
  });

  it("stdio: the first answer's limit, --startup-timeout", async () => {
    const run = await runCli([
      'scan',
      '--stdio',
      "sh -c 'sleep 30'",
      '--timeout',
      '500ms',
      '--startup-timeout',
      '1s',
      '--deadline',
      '20s',
      '--format',
      'json',
      '--quiet',
    ]);
    expect(run.code).toBe(4);
    expect((JSON.parse(run.stdout) as RunReport).problem).toContain(
      "within 1000 ms (the limit on a stdio server's first answer, set by --startup-timeout)",
    );
  });
});

describe('stdio servers that fail', () => {
  it('a crash shows the error line of the server stderr in the default text report', async () => {
    const script =
      "echo 'Error: cannot read config.json' >&2; echo '  at main (server.js:3)' >&2; echo done >&2; exit 1";
    const run = await runCli(['scan', '--stdio', `sh -c "${script}"`, '--quiet']);
    expect(run.code).toBe(4);
    expect(run.stdout).toContain(
      'server exited with code 1 before answering; its stderr says: Error: cannot read config.json',
    );
    expect(run.stdout).not.toContain('its stderr ends');
  });

  it('a crash whose stderr states no error shows its last lines', async () => {
    const script = 'echo starting >&2; echo giving up >&2; exit 1';
    const run = await runCli(['scan', '--stdio', `sh -c "${script}"`, '--quiet']);
    expect(run.code).toBe(4);
    expect(run.stdout).toContain(
      'server exited with code 1 before answering; its stderr ends: starting | giving up',
    );
  });

  it("a missing script quotes Node's own error line, not the tail of its stack", async () => {
    const run = await runCli(
      ['scan', '--stdio', `${process.execPath} /nonexistent.js`, '--format', 'json', '--quiet'],
      {},
      60_000,
    );
    expect(run.code).toBe(4);
    const problem = (JSON.parse(run.stdout) as RunReport).problem ?? '';
    expect(problem).toContain(
      "server exited with code 1 before answering; its stderr says: Error: Cannot find module '/nonexistent.js'",
    );
    expect(problem).not.toMatch(/requireStack|Node\.js v/);
    // And on stderr, where CI looks when the report went to a file.
    expect(run.stderr).toContain("its stderr says: Error: Cannot find module '/nonexistent.js'");
  });

  it('non-JSON on stdout is named, with its first bytes, not only a timeout', async () => {
    const run = await runCli([
      'scan',
      '--stdio',
      "sh -c 'echo Server listening on stdio; sleep 30'",
      '--deadline',
      '2s',
      '--quiet',
    ]);
    expect(run.code).toBe(4);
    expect(run.stdout).toContain(
      'the server printed non-protocol output on stdout (not JSON-RPC): "Server listening on stdio"',
    );
    expect(run.stdout).toContain('the scan deadline (2000 ms, set by --deadline) passed');
  });
});

describe('short identities', () => {
  it('redaction never rewrites ordinary words', () => {
    const r = createRedactor({ A: 'a', B: 'bob' });
    expect(r.string('the planted value')).toBe('the planted value');
    expect(r.string('a')).toBe('<identity-A>');
    expect(r.string('bobcat and bob')).toBe('bobcat and <identity-B>');
    expect(r.headers({ authorization: 'Bearer a' })).toEqual({
      authorization: 'Bearer <identity-A>',
    });
  });

  it('a one-character identity warns and leaves the report readable', async () => {
    const fixture = `${NODE} ${CLI_MAIN} fixture --mode flawed --transport stdio`;
    const run = await runCli(['scan', '--stdio', fixture, '--evidence', 'full', '--quiet'], {
      STATEGUARD_IDENTITY_A: 'a',
      STATEGUARD_IDENTITY_B: 'b',
    });
    expect(run.stderr).toContain('identity A is 1 character long');
    expect(run.stdout).not.toMatch(/\w<identity-[AB]>|<identity-[AB]>\w/);
  });
});
