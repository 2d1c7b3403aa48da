/**
 * Reads `--baseline <file>` before any scan starts, so that a missing, unreadable or malformed
 * baseline is a usage error (exit 2) and never a scan whose gate silently accepts nothing.
 */
import { readFileSync, statSync } from 'node:fs';
import { ProbeUsageError } from '../errors.js';
import { parseBaseline } from '../probe/runner/baseline.js';
import type { Baseline } from '../probe/runner/baseline.js';

/** Largest baseline file read; a real one is a few lines. */
export const MAX_BASELINE_BYTES = 1024 * 1024;

/** Reads and parses a baseline file; any problem is a {@link ProbeUsageError}. */
export function readBaseline(file: string): Baseline {
  let text: string;
  try {
    const stat = statSync(file);
    // A device or a FIFO could stream forever; a directory has no lines.
    if (!stat.isFile()) throw new ProbeUsageError(`--baseline '${file}' is not a file`);
    if (stat.size > MAX_BASELINE_BYTES) {
      throw new ProbeUsageError(`--baseline '${file}' is larger than ${MAX_BASELINE_BYTES} bytes`);
    }
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof ProbeUsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new ProbeUsageError(`cannot read --baseline '${file}': ${code}`);
  }
  return parseBaseline(text, file);
}
