/**
 * "What this scan created", said the same way by every reporter: a scan of a server with a
 * persistent store leaves behind what its calls created (a note, a draft, an `sg-survey-…`
 * record); the report names each with the tool that minted it, so a user can find and remove it.
 * The values were redacted and cut when the report was built (probe/scan-report.ts).
 */
import type { RunReport } from '../probe/model/report.js';

/** The report's created objects. */
export type Created = NonNullable<RunReport['created']>;

/**
 * `This scan created 3 objects on the target (the tool called, and the id or handle it handed
 * out); it removes none of them.`, with how many are not listed when the report names fewer.
 */
export function createdSentence(c: Created): string {
  const objects = c.total === 1 ? '1 object' : `${c.total} objects`;
  const unlisted = c.total - c.items.length;
  const more =
    unlisted > 0 ? ` The first ${c.items.length} are listed, ${unlisted} more are not.` : '';
  return `This scan created ${objects} on the target (the tool called, and the id or handle it handed out); it removes none of them.${more}`;
}

/** `create_note → note-7f3a`, one per listed object. */
export const createdItem = (item: Created['items'][number]): string =>
  `${item.tool} → ${item.value}`;
