/**
 * JSON: exactly the canonical {@link RunReport}. Evidence was bounded at construction, so a hostile
 * answer cannot make this fail.
 */
import type { Reporter } from './types.js';

/** The JSON reporter. */
export const json: Reporter = {
  id: 'json',
  render: (report) => `${JSON.stringify(report, null, 2)}\n`,
};
