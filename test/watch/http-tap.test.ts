/**
 * The byte relay's tap on its own, fed a connection's bytes by hand: how much it keeps is bounded
 * whatever a peer sends (requests that are never answered, a head that never ends), and a
 * long-lived keep-alive connection pairs every one of its exchanges.
 */
import { describe, expect, it } from 'vitest';
import { CaptureWriter } from '../../src/watch/capture.js';
import { SessionRun } from '../../src/watch/http-record.js';
import { ConnectionTap, MAX_HEAD, MAX_IN_FLIGHT } from '../../src/watch/http-tap.js';

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
