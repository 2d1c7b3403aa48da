/**
 * How a target is named in reports, apart from the scan: the CLI's reading of a config file or a
 * registry names its servers without loading the scanner.
 */
import { shellLine } from './command-words.js';
import type { Redactor } from '../evidence/evidence.js';
import type { Target } from '../model/target.js';

/** How a target is named in reports: `stdio:<command line>` or the URL without credentials. */
export function displayTarget(target: Target, redactor?: Redactor): string {
  let shown: string;
  if (target.kind === 'stdio') {
    shown = `stdio:${shellLine([target.command, ...target.args])}`;
  } else {
    try {
      const url = new URL(target.url);
      if (url.password) url.password = 'redacted';
      shown = url.toString();
    } catch {
      shown = target.url;
    }
  }
  return redactor ? redactor.string(shown) : shown;
}
