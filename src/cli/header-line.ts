/**
 * Header flags of `stateguard scan`: `--identity-header` (a template holding `{identity}`) and
 * `--header` (sent as given). Each is one `Name: value` line.
 */
import { ProbeUsageError } from '../errors.js';

/** A header as given: `Name: value`. */
export interface HeaderLine {
  readonly name: string;
  readonly value: string;
}

// Headers the scanner writes itself: a --header may not replace them.
export const RESERVED_HEADERS = new Set([
  'content-type',
  'content-length',
  'accept',
  'host',
  'connection',
  'transfer-encoding',
  'mcp-method',
  'mcp-name',
  'mcp-protocol-version',
  'mcp-session-id',
]);

/**
 * `Name: value` → its parts; a usage error when it is not a header line. An identity header's
 * value must hold `{identity}`, where the secret goes.
 */
export function headerLine(
  flag: string,
  v: string | undefined,
  template: boolean,
): HeaderLine | undefined {
  if (v === undefined) return undefined;
  const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/.exec(v);
  const value = m?.[2]?.trim() ?? '';
  if (m === null || (template && !value.includes('{identity}')))
    throw new ProbeUsageError(
      template
        ? "--identity-header takes 'Name: value' with {identity} in the value, e.g. 'X-Api-Key: {identity}'"
        : `--${flag} takes 'Name: value', e.g. 'X-Tenant: acme'`,
    );
  if (/[\r\n\0]/.test(value)) throw new ProbeUsageError(`--${flag} value must be one line`);
  return { name: m[1] as string, value };
}
