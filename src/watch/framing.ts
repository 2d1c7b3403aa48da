/**
 * Newline framing of a copy of a byte stream, as MCP stdio frames messages: each complete line is
 * handed on as text, once. A line longer than the cap is not kept: only its length is reported,
 * so a peer that never sends a newline cannot grow the proxy's memory.
 */

/** What the framer hands on: a whole line (without its newline), or the size of one too long. */
export type Framed = { readonly text: string } | { readonly oversize: number };

/** A framer that calls `emit` for every line of the bytes pushed into it. */
export class LineFramer {
  readonly #cap: number;
  readonly #emit: (framed: Framed) => void;
  #parts: Buffer[] = [];
  #held = 0;
  #dropped = 0;

  constructor(cap: number, emit: (framed: Framed) => void) {
    this.#cap = cap;
    this.#emit = emit;
  }

  /** Frames one chunk; never keeps more than `cap` bytes. */
  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? chunk.length : nl;
      this.#hold(chunk.subarray(start, end));
      if (nl === -1) return;
      this.#flush();
      start = nl + 1;
    }
  }

  /** Frames what is left at the end of the stream, as a last line. */
  end(): void {
    if (this.#held > 0 || this.#dropped > 0) this.#flush();
  }

  #hold(part: Buffer): void {
    if (part.length === 0) return;
    if (this.#dropped > 0 || this.#held + part.length > this.#cap) {
      this.#dropped += this.#held + part.length;
      this.#parts = [];
      this.#held = 0;
      return;
    }
    // A copy: the relay owns the chunk.
    this.#parts.push(Buffer.from(part));
    this.#held += part.length;
  }

  #flush(): void {
    if (this.#dropped > 0) this.#emit({ oversize: this.#dropped });
    else {
      const text = Buffer.concat(this.#parts, this.#held).toString('utf8').replace(/\r$/, '');
      if (text.trim() !== '') this.#emit({ text });
    }
    this.#parts = [];
    this.#held = 0;
    this.#dropped = 0;
  }
}
