/**
 * JSON: exactly the canonical {@link RunReport} (or, for `--config`, the `CombinedReport`). Evidence was bounded at construction, so a hostile
 * answer cannot make this fail.
 */
import type { Reporter } from './types.js';
import { escapeJsonText } from './visible.js';

/** The JSON reporter. */
export const json: Reporter = {
  id: 'json',
  // The exact value; DEL, C1 and bidi characters spelled as `\u` escapes, so printing it is safe.
  render: (report) => `${escapeJsonText(JSON.stringify(report, null, 2))}\n`,
  // Exactly the CombinedReport: one canonical RunReport per server, each with its `server`.
  renderCombined: (report) => `${escapeJsonText(JSON.stringify(report, null, 2))}\n`,
};
