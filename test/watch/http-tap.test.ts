/**
 * The byte relay's tap on its own, fed a connection's bytes by hand: how much it keeps is bounded
 * whatever a peer sends (requests that are never answered, a head that never ends), and a
 * long-lived keep-alive connection pairs every one of its exchanges.
 */
import { describe, expect, it } from 'vitest';
import { CaptureWriter } from '../../src/watch/capture.js';
import { SessionRun } from '../../src/watch/http-record.js';
import { ConnectionTap, MAX_HEAD, MAX_IN_FLIGHT, MAX_STALL } from '../../src/watch/http-tap.js';

const request = (id: number): string => {
  const body = `{"jsonrpc":"2.0","id":${id},"method":"ping"}`;
  return `POST /mcp HTTP/1.1\r\nHost: h\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
};
const answer = (id: number): string => {
  const body = `{"jsonrpc":"2.0","id":${id},"result":{}}`;
  return `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
};

function tapped(): { tap: ConnectionTap; lines: string[] } {
  const lines: string[] = [];
  const capture = new CaptureWriter('http', 'http://h/mcp', (l) => lines.push(l));
  const tap = new ConnectionTap(capture, { metaKey: 'x/principal' }, new SessionRun());
  return { tap, lines };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('the byte relay tap', () => {
  it(`stops recording a connection with more than ${MAX_IN_FLIGHT} requests unanswered`, () => {
    const { tap, lines } = tapped();
    let all = '';
    for (let id = 1; id <= MAX_IN_FLIGHT + 500; id++) all += request(id);
    tap.fromClient(Buffer.from(all));
    expect(tap.stopped).toBe(true);
    // The header line, then the requests it kept before it stopped.
    expect(lines.length - 1).toBe(MAX_IN_FLIGHT);
  });

  it(`stops recording at a head longer than ${MAX_HEAD} bytes`, () => {
    const { tap, lines } = tapped();
    tap.fromClient(Buffer.from('POST /mcp HTTP/1.1\r\n'));
    for (let i = 0; i < 200 && !tap.stopped; i++)
      tap.fromClient(Buffer.from(`X-Pad-${i}: ${'p'.repeat(1000)}\r\n`));
    expect(tap.stopped).toBe(true);
    expect(lines.length).toBe(1);
  });

  it(`holds at most ${MAX_STALL} bytes sent after an upgrade request that is not answered`, () => {
    const { tap, lines } = tapped();
    tap.fromClient(
      Buffer.from(
        'GET /ws HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
      ),
    );
    for (let i = 0; i < 100 && !tap.stopped; i++) tap.fromClient(Buffer.alloc(1024, 0x0a));
    expect(tap.stopped).toBe(true);
    // The upgrade request itself was recorded; nothing of the held bytes was.
    expect(lines.length).toBe(2);
  });

  it('reads the held bytes as HTTP again when an upgrade is declined, one more upgrade included', () => {
    const { tap, lines } = tapped();
    const upgrade =
      'GET /ws HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n';
    tap.fromClient(Buffer.from(upgrade + request(1).slice(0, 30)));
    tap.fromClient(Buffer.from(request(1).slice(30) + upgrade + '\x81\x85bytes\r\n\r\n'));
    tap.fromServer(Buffer.from('HTTP/1.1 426 Upgrade Required\r\nContent-Length: 0\r\n\r\n'));
    tap.fromServer(Buffer.from(answer(1)));
    tap.fromServer(
      Buffer.from(
        'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
      ),
    );
    expect(tap.stopped).toBe(true);
    const parsed = lines
      .slice(1)
      .map((l) => JSON.parse(l) as { dir: string; http?: { status?: number } });
    expect(parsed.map((x) => [x.dir, x.http?.status])).toEqual([
      ['c2s', undefined],
      // The declined answer's head resumed the parsing; its line is written at its end.
      ['c2s', undefined],
      ['c2s', undefined],
      ['s2c', 426],
      ['s2c', 200],
      ['s2c', 101],
    ]);
  });

  it('pairs 20 000 keep-alive exchanges on one connection, fed in odd pieces, in order', async () => {
    const { tap, lines } = tapped();
    for (let id = 1; id <= 20_000; id++) {
      const req = Buffer.from(request(id));
      tap.fromClient(req.subarray(0, 17));
      tap.fromClient(req.subarray(17));
      const ans = Buffer.from(answer(id));
      tap.fromServer(ans.subarray(0, 40));
      tap.fromServer(ans.subarray(40));
      if (id % 1000 === 0) await tick();
    }
    await tick();
    expect(tap.stopped).toBe(false);
    expect(lines.length).toBe(1 + 40_000);
    const parsed = lines
      .slice(1)
      .map((l) => JSON.parse(l) as { n: number; dir: string; re?: number; msg: { id: number } });
    const asked = new Map(parsed.filter((x) => x.dir === 'c2s').map((x) => [x.n, x.msg.id]));
    const answers = parsed.filter((x) => x.dir === 's2c');
    expect(answers.length).toBe(20_000);
    expect(answers.every((x) => asked.get(x.re ?? 0) === x.msg.id)).toBe(true);
    // In the order seen, though no tick passed between an answer and the next request.
    expect(parsed.every((x, i) => x.dir === (i % 2 === 0 ? 'c2s' : 's2c'))).toBe(true);
  });
});
