/**
 * One line for a `node:util` `parseArgs` failure, as every subcommand prints its usage errors.
 *
 * `parseArgs` explains a flag given without its value (`--http --quiet`) in three lines, the first
 * of which ("argument is ambiguous") does not say what to do; the other failures are one line.
 */
const AMBIGUOUS = /^Option '(-{1,2}[\w-]+)' argument is ambiguous/;

/** The one-line usage message for an error thrown by `parseArgs`. */
export function parseArgsMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const flag = AMBIGUOUS.exec(message)?.[1];
  if (flag !== undefined) {
    return `${flag} needs a value (for one that starts with '-', write ${flag}=<value>)`;
  }
  return message.split('\n')[0] || 'bad arguments';
}
