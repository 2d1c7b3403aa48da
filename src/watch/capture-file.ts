/**
 * Where a live run's capture lines go: a file written in batches. A write per line put two system
 * calls on every exchange the proxy relays (the request's line and the answer's), each as costly
 * as the relay's own socket write; batched, the lines of many exchanges share one.
 *
 * Lines wait in memory for at most {@link FLUSH_MS} or until {@link FLUSH_BYTES} of them are
 * waiting, whichever comes first, so memory stays bounded and a capture read during a run is at
 * most that far behind. `close` writes what waits; a proxy killed outright loses at most that
 * much, and `parseCapture` skips a torn last line.
 */
import { closeSync, openSync, writeSync } from 'node:fs';

/** Bytes of lines that wait before they are written at once. */
export const FLUSH_BYTES = 64 * 1024;
/** Longest a line waits before it is written. */
export const FLUSH_MS = 100;

/** A capture file open for writing (mode 0600, truncated). */
export class CaptureFile {
  readonly #fd: number;
  #waiting: string[] = [];
  #bytes = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(path: string) {
    this.#fd = openSync(path, 'w', 0o600);
  }

  /** Queues one whole line (with its newline); lines are written in the order given. */
  readonly write = (line: string): void => {
    if (this.#closed) return;
    this.#waiting.push(line);
    this.#bytes += line.length;
    if (this.#bytes >= FLUSH_BYTES) this.flush();
    else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => this.flush(), FLUSH_MS);
      // Waiting lines never keep the process alive: `close` writes them.
      this.#timer.unref();
    }
  };

  /** Writes every waiting line now. */
  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#waiting.length === 0) return;
    const text = this.#waiting.join('');
    this.#waiting = [];
    this.#bytes = 0;
    writeSync(this.#fd, text);
  }

  /** Writes what waits and closes the file; later lines are dropped. */
  close(): void {
    if (this.#closed) return;
    this.flush();
    this.#closed = true;
    closeSync(this.#fd);
  }
}
