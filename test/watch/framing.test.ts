import { describe, expect, it } from 'vitest';
import { LineFramer, type Framed } from '../../src/watch/framing.js';

describe('LineFramer', () => {
  it('frames lines across chunks, drops CR and blank lines, and keeps no more than the cap', () => {
    const out: Framed[] = [];
    const f = new LineFramer(10, (x) => out.push(x));
    f.push(Buffer.from('{"a":1}\r\n{"b"'));
    f.push(Buffer.from(':2}\n\n0123456789abc'));
    f.push(Buffer.from('def\n{"c":3}'));
    f.end();
    expect(out).toEqual([
      { text: '{"a":1}' },
      { text: '{"b":2}' },
      { oversize: 16 },
      { text: '{"c":3}' },
    ]);
  });

  it('a peer that never sends a newline holds nothing past the cap', () => {
    const out: Framed[] = [];
    const f = new LineFramer(1024, (x) => out.push(x));
    for (let i = 0; i < 1000; i++) f.push(Buffer.alloc(1000, 120));
    f.push(Buffer.from('\n'));
    expect(out).toEqual([{ oversize: 1_000_000 }]);
  });
});
