/**
 * A scan's default limits, apart from the scan: `stateguard scan --help` and its argument parser
 * print and apply them without loading the scanner.
 */

/** Defaults of a scan. */
export const SCAN_DEFAULTS = {
  timeoutMs: 5000,
  startupTimeoutMs: 10_000,
  deadlineMs: 30_000,
  maxAnswerBytes: 1024 * 1024,
} as const;
