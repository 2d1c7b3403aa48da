/**
 * The ids of the probes registry.ts lists, in the same order, without loading a probe: what parsing
 * `--probe`, `--skip-probe` and a baseline file, and the help text, need. A usage error then does
 * not load every probe and the experiments behind them. test/probe/registry.test.ts holds this list
 * to the registry's.
 */
export const PROBE_IDS: readonly string[] = [
  'handle/cross-principal',
  'handle/task-cross-principal',
  'handle/task-guessable',
  'state/tamper',
  'state/replay-principal',
  'state/replay-request',
  'state/replay-after-completion',
  'state/error-oracle',
  'state/expiry',
  'state/cross-instance',
  'session/cross-principal',
  'transport/origin',
];

/** True when a probe has this id. */
export function isProbeId(id: string): boolean {
  return PROBE_IDS.includes(id);
}
