/** `stateguard watch wrap|unwrap`: not yet. */
export async function runWrapCommand(
  _verb: 'wrap' | 'unwrap',
  _argv: readonly string[],
  err: (line: string) => void,
): Promise<number> {
  err('stateguard watch: wrap/unwrap is not implemented yet');
  return 2;
}
