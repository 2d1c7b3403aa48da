/**
 * Durations on the command line: a number with its unit, always. A bare `30` once meant 30 ms,
 * silently, and the report then blamed the server for not answering in time; a unit makes the
 * intent readable in a CI file, and a value no timer can hold is refused instead of firing at once.
 */
import { ProbeUsageError } from '../errors.js';

/** The largest delay a Node.js timer honours (2^31 − 1 ms, about 24.8 days); beyond, it fires at once. */
export const MAX_DURATION_MS = 2 ** 31 - 1;

const UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
const FORMS = '500ms, 30s, 2m or 1h (decimals such as 2.5s work)';

/**
 * Parses `--<flag> <value>` into milliseconds: a positive decimal number and a unit (`ms`, `s`,
 * `m`, `h`). Throws {@link ProbeUsageError} for a bare number, another unit, zero, or a value
 * past {@link MAX_DURATION_MS}.
 */
export function parseDuration(flag: string, value: string): number {
  const text = value.trim();
  const m = /^(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m|h)$/i.exec(text);
  if (m === null) {
    const why = /^\d+(?:\.\d+)?$/.test(text) ? 'needs a unit' : 'needs a duration';
    throw new ProbeUsageError(`--${flag} ${why}, e.g. ${FORMS}; got '${value}'`);
  }
  const unit = (m[2] ?? '').toLowerCase() as keyof typeof UNITS;
  const ms = Math.round(Number(m[1]) * UNITS[unit]);
  if (ms < 1) throw new ProbeUsageError(`--${flag} must be at least 1ms, got '${value}'`);
  if (ms > MAX_DURATION_MS) {
    throw new ProbeUsageError(
      `--${flag} '${value}' is too long: at most ${MAX_DURATION_MS}ms (about 24 days)`,
    );
  }
  return ms;
}
