/**
 * Files named by `scan` flags, checked before the scan starts: a report or baseline that cannot be
 * written must not cost a whole scan and then be lost; a CA file that cannot be read is a usage
 * error, not a TLS failure on every call.
 */
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ProbeUsageError } from '../errors.js';

/** Largest CA bundle read; a system bundle is a few hundred KiB. */
const MAX_CA_BYTES = 4 * 1024 * 1024;

/** Throws {@link ProbeUsageError} unless `file` can be created or overwritten. */
export function checkWritable(flag: string, file: string): void {
  const path = resolve(file);
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat?.isDirectory()) throw new ProbeUsageError(`--${flag} '${file}' is a directory`);
  const dir = dirname(path);
  const parent = statSync(dir, { throwIfNoEntry: false });
  if (parent === undefined || !parent.isDirectory())
    throw new ProbeUsageError(
      `--${flag} '${file}': the directory '${dirname(file)}' does not exist`,
    );
  try {
    accessSync(stat ? path : dir, constants.W_OK);
  } catch {
    throw new ProbeUsageError(`--${flag} '${file}' is not writable`);
  }
}

/** Reads a PEM bundle for `--ca`; throws {@link ProbeUsageError} when it is not one. */
export function readCa(file: string): string {
  let text: string;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new ProbeUsageError(`--ca '${file}' is not a file`);
    if (stat.size > MAX_CA_BYTES)
      throw new ProbeUsageError(`--ca '${file}' is larger than ${MAX_CA_BYTES} bytes`);
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof ProbeUsageError) throw error;
    throw new ProbeUsageError(
      `cannot read --ca '${file}': ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----'))
    throw new ProbeUsageError(
      `--ca '${file}' holds no PEM certificate (-----BEGIN CERTIFICATE-----)`,
    );
  return text;
}
