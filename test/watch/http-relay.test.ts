/**
 * The byte relay of `watch --http` against raw sockets on both sides: whatever HTTP/1.1 framing the
 * client and the upstream use (keep-alive, pipelined requests in one write, chunked bodies split
 * mid-chunk, `100 Continue`, `HEAD`, `204`, `304`, an answer that runs to the end of the
 * connection, a `101` upgrade), each side receives exactly the bytes the other sent, `Host` and
 * hop-by-hop headers included, and the capture pairs every answer with its request. An event
 * stream is recorded while it stays open. A hostile stream stops the recording, never the relay.
 */
import { createHash } from 'node:crypto';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { CaptureWriter, parseCapture, type CaptureLine } from '../../src/watch/capture.js';
import { startHttpProxy, type HttpProxy } from '../../src/watch/http-proxy.js';

const closers: (() => unknown)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

const rpc = (id: number, extra = ''): string =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"t"${extra}}}`;
const result = (id: number): string => `{"jsonrpc":"2.0","id":${id},"result":{"content":[]}}`;
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/**
 * A raw upstream: once `expect` bytes arrived on a connection, it writes `answer`'s pieces with a
 * pause between them, then runs `after` (default: ends the connection).
 */
async function rawUpstream(
  expected: number,
  answer: readonly string[],
  after: (socket: Socket) => void = (s) => s.end(),
): Promise<{ port: number; received: Promise<Buffer> }> {
  let deliver: (b: Buffer) => void = () => undefined;
  const received = new Promise<Buffer>((resolve) => (deliver = resolve));
  const server: Server = createServer((socket) => {
    const got: Buffer[] = [];
    let size = 0;
    socket.on('data', (c: Buffer) => {
      got.push(c);
      size += c.length;
      if (size !== expected) return;
      deliver(Buffer.concat(got));
      void (async () => {
        for (const piece of answer) {
          socket.write(piece);
          await new Promise((r) => setTimeout(r, 5));
        }
        after(socket);
      })();
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise((r) => server.close(r)));
  return { port: (server.address() as AddressInfo).port, received };
}

async function proxyTo(port: number, lines: string[]): Promise<HttpProxy> {
  const upstream = `http://127.0.0.1:${port}/mcp`;
  const capture = new CaptureWriter('http', upstream, (l) => lines.push(l));
  const proxy = await startHttpProxy({
    upstream: new URL(upstream),
    host: '127.0.0.1',
    port: 0,
    capture,
    principal: { metaKey: 'x/principal' },
  });
  closers.push(() => proxy.close());
  return proxy;
}

/** Sends `pieces` on one connection to the proxy; resolves with every byte back, at its end. */
function rawClient(proxy: HttpProxy, pieces: readonly string[]): Promise<Buffer> {
  const { port } = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const got: Buffer[] = [];
    socket.on('data', (c: Buffer) => got.push(c));
    socket.on('end', () => resolve(Buffer.concat(got)));
    socket.on('error', reject);
    for (const p of pieces) socket.write(p);
    setTimeout(() => reject(new Error('no end in 10 s')), 10_000).unref();
  });
}

const captured = (lines: string[]): CaptureLine[] => {
  const parsed = parseCapture(lines.join(''));
  if ('problem' in parsed) throw new Error(parsed.problem);
  return parsed.lines;
};

const settle = () => new Promise((r) => setTimeout(r, 30));

describe('watch --http byte relay', () => {
  it('passes every framing through byte for byte and pairs each answer with its request', async () => {
    const body2 = rpc(2, ',"arguments":{"text":"chunked"}');
    const requests = [
      // Host names the proxy, and hop-by-hop headers: the upstream gets them as sent.
      `POST /mcp HTTP/1.1\r\nHost: proxy.example:1\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\nExpect: 100-continue\r\nAuthorization: Bearer tok-abcdef\r\nContent-Length: ${rpc(1).length}\r\n\r\n${rpc(1)}`,
      // Pipelined: three requests in one write, the first chunked.
      `POST /mcp?q=2 HTTP/1.1\r\nHost: proxy.example:1\r\nTransfer-Encoding: chunked\r\n\r\n` +
        `${(10).toString(16)}\r\n${body2.slice(0, 10)}\r\n${(body2.length - 10).toString(16)}\r\n${body2.slice(10)}\r\n0\r\n\r\n` +
        'HEAD /mcp HTTP/1.1\r\nHost: proxy.example:1\r\n\r\n' +
        'DELETE /mcp HTTP/1.1\r\nHost: proxy.example:1\r\n\r\n',
      'GET /mcp HTTP/1.1\r\nHost: proxy.example:1\r\nIf-None-Match: "x"\r\n\r\n',
      `POST /mcp HTTP/1.1\r\nHost: proxy.example:1\r\nConnection: close\r\nContent-Length: ${rpc(6).length}\r\n\r\n${rpc(6)}`,
    ];
    const r2 = result(2);
    const answers = [
      'HTTP/1.1 100 Continue\r\n\r\n',
      `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${result(1).length}\r\n\r\n${result(1).slice(0, 7)}`,
      `${result(1).slice(7)}HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n${r2.slice(0, 3)}`,
      `${r2.slice(3, 5)}\r\n${(r2.length - 5).toString(16)}\r\n${r2.slice(5)}\r\n0\r\n\r\n`,
      'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 999\r\n\r\n',
      'HTTP/1.1 204 No Content\r\nMcp-Session-Id: s-1\r\n\r\nHTTP/1.1 304 Not Modified\r\nETag: "x"\r\n\r\n',
      `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${result(6)}`,
    ];
    const sent = Buffer.from(requests.join(''));
    const upstream = await rawUpstream(sent.length, answers);
    const lines: string[] = [];
    const proxy = await proxyTo(upstream.port, lines);
    const back = await rawClient(proxy, requests);
    expect(sha(await upstream.received)).toBe(sha(sent));
    expect(sha(back)).toBe(sha(Buffer.from(answers.join(''))));

    await settle();
    const l = captured(lines);
    const asked = l.filter((x) => x.dir === 'c2s');
    expect(
      asked.map((x) => [x.http?.method, x.http?.path, (x.msg as { id?: number })?.id]),
    ).toEqual([
      ['POST', '/mcp', 1],
      ['POST', '/mcp?q=2', 2],
      ['HEAD', '/mcp', undefined],
      ['DELETE', '/mcp', undefined],
      ['GET', '/mcp', undefined],
      ['POST', '/mcp', 6],
    ]);
    const byLine = new Map(asked.map((x) => [x.n, x.http?.method]));
    const answered = l.filter((x) => x.dir === 's2c');
    expect(
      answered.map((x) => [byLine.get(x.re ?? 0), x.http?.status, (x.msg as { id?: number })?.id]),
    ).toEqual([
      ['POST', 200, 1],
      ['POST', 200, 2],
      ['HEAD', 200, undefined],
      ['DELETE', 204, undefined],
      ['GET', 304, undefined],
      ['POST', 200, 6],
    ]);
    expect(answered[3]?.http?.session).toMatch(/^[0-9a-f]{16}$/);
    // The bearer token is the principal's, recorded as a digest only.
    expect(asked[0]?.principal).toMatch(/^[0-9a-f]{16}$/);
    expect(lines.join('')).not.toContain('tok-abcdef');
  });

  it('records each event of a stream that stays open as it arrives', async () => {
    const head =
      'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n';
    const event = (id: number) => {
      const e = `data: ${result(id)}\n\n`;
      return `${e.length.toString(16)}\r\n${e}\r\n`;
    };
    const request = 'GET /mcp HTTP/1.1\r\nHost: h\r\nAccept: text/event-stream\r\n\r\n';
    let stream: Socket | undefined;
    const upstream = await rawUpstream(request.length, [head, event(1)], (s) => (stream = s));
    const lines: string[] = [];
    const proxy = await proxyTo(upstream.port, lines);
    const back = rawClient(proxy, [request]);
    const deadline = Date.now() + 5000;
    while (stream === undefined && Date.now() < deadline) await settle();
    await settle();
    // The stream is open, and its first event is on record.
    expect(captured(lines).map((x) => [x.dir, (x.msg as { id?: number })?.id])).toEqual([
      ['c2s', undefined],
      ['s2c', 1],
    ]);
    stream?.end(`${event(2)}0\r\n\r\n`);
    await back;
    await settle();
    expect(captured(lines).filter((x) => x.dir === 's2c').length).toBe(2);
  });

  it('passes an upgraded connection through and stops recording it', async () => {
    const request =
      'GET /ws HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n\x81\x05hello';
    const answers = [
      'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
      '\x81\x02ok{"id":9}',
    ];
    const upstream = await rawUpstream(Buffer.byteLength(request), answers);
    const lines: string[] = [];
    const proxy = await proxyTo(upstream.port, lines);
    const back = await rawClient(proxy, [request]);
    expect(sha(await upstream.received)).toBe(sha(Buffer.from(request)));
    expect(sha(back)).toBe(sha(Buffer.from(answers.join(''))));
    await settle();
    expect(captured(lines).map((x) => [x.dir, x.http?.status])).toEqual([
      ['c2s', undefined],
      ['s2c', 101],
    ]);
  });

  it('records the 101 when the bytes the client sends after its upgrade request are not HTTP', async () => {
    // Sent at once with the request, before the 101: the tap reads them first, and must not let
    // their failure to parse as HTTP cost the 101.
    const request =
      'GET /ws HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n' +
      '\x81\x8anot http\r\n\r\n\x00\x01\r\n';
    const answers = [
      'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
      '\x81\x02ok',
    ];
    const upstream = await rawUpstream(Buffer.byteLength(request), answers);
    const lines: string[] = [];
    const proxy = await proxyTo(upstream.port, lines);
    const back = await rawClient(proxy, [request]);
    expect(sha(await upstream.received)).toBe(sha(Buffer.from(request)));
    expect(sha(back)).toBe(sha(Buffer.from(answers.join(''))));
    await settle();
    expect(captured(lines).map((x) => [x.dir, x.http?.status])).toEqual([
      ['c2s', undefined],
      ['s2c', 101],
    ]);
  });

  it('goes on recording when the server declines an upgrade, with the requests sent after it', async () => {
    const upgrade = `POST /mcp HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: h2c\r\nContent-Length: ${rpc(1).length}\r\n\r\n${rpc(1)}`;
    const next = `POST /mcp HTTP/1.1\r\nHost: h\r\nContent-Length: ${rpc(2).length}\r\n\r\n${rpc(2)}`;
    const ok = (id: number): string =>
      `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${result(id).length}\r\n\r\n${result(id)}`;
    const sent = upgrade + next;
    // The second request goes in the same write, before the server has declined.
    const upstream = await rawUpstream(sent.length, [ok(1), ok(2)]);
    const lines: string[] = [];
    const proxy = await proxyTo(upstream.port, lines);
    const back = await rawClient(proxy, [sent]);
    expect(back.toString()).toBe(ok(1) + ok(2));
    await settle();
    const l = captured(lines);
    const id = (x: CaptureLine | undefined): unknown => (x?.msg as { id?: number } | undefined)?.id;
    const asked = l.filter((x) => x.dir === 'c2s');
    const answered = l.filter((x) => x.dir === 's2c');
    expect(asked.map(id)).toEqual([1, 2]);
    expect(answered.map((x) => [x.http?.status, id(x), id(l.find((y) => y.n === x.re))])).toEqual([
      [200, 1, 1],
      [200, 2, 2],
    ]);
  });

  it('relays a hostile stream whole but stops recording it: a chunk-size line that never ends', async () => {
    const request = `POST /mcp HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n${'1'.repeat(300_000)}`;
    const upstream = await rawUpstream(request.length, [
      'HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n',
    ]);
    const lines: string[] = [];
    const proxy = await proxyTo(upstream.port, lines);
    const back = await rawClient(proxy, [request]);
    expect(sha(await upstream.received)).toBe(sha(Buffer.from(request)));
    expect(back.toString()).toContain('400 Bad Request');
    await settle();
    // The request is on record bare (its body never completed); nothing after.
    expect(captured(lines).map((x) => x.dir)).toEqual(['c2s']);
  });
  it('answers 502 when the upstream cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const { port } = closed.address() as AddressInfo;
    await new Promise((r) => closed.close(r));
    const lines: string[] = [];
    const proxy = await proxyTo(port, lines);
    const back = await rawClient(proxy, ['GET /mcp HTTP/1.1\r\nHost: h\r\n\r\n']);
    expect(back.toString()).toMatch(/^HTTP\/1\.1 502 /);
  });
});
