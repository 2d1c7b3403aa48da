/**
 * The reporter contract: a pure function from the canonical {@link RunReport} to text. The CLI does
 * the I/O; reporters never print, never read the environment, never see an unredacted secret.
 */
import type { CombinedReport, RunReport } from '../probe/model/report.js';
import type { SourceRoot } from './sarif-location.js';

/** How much evidence a human-oriented format shows. JSON always carries all of it. */
export const EVIDENCE_MODES = ['full', 'summary', 'none'] as const;
export type EvidenceMode = (typeof EVIDENCE_MODES)[number];

/** Options of a render. */
export interface RenderOptions {
  /** ANSI colour; the CLI enables it only on a TTY with `NO_COLOR` unset. */
  readonly color: boolean;
  readonly evidence: EvidenceMode;
  /**
   * SARIF: also emit `refuted` (kind `pass`) and `skipped` (kind `notApplicable`) results. Off by
   * default, because some consumers ignore `kind` and would show every result as a finding. Text
   * (and each server of a combined Markdown report): every row of the call plan, not only the
   * entries left alone.
   */
  readonly all?: boolean;
  /**
   * SARIF: the file (repository-relative URI) and line results point at when no configuration file
   * declares the target (`--sarif-location`); a pseudo-path otherwise.
   */
  readonly sarifLocation?: { readonly uri: string; readonly line: number };
  /**
   * SARIF: the repository root result paths are relative to, and the working directory relative
   * configuration paths were named from. The CLI sets it (`GITHUB_WORKSPACE`, else the working
   * directory); without it a relative path is taken as relative to the root already.
   */
  readonly sourceRoot?: SourceRoot;
}

/** One output format. */
export interface Reporter {
  readonly id: 'text' | 'json' | 'sarif' | 'junit' | 'markdown' | 'html' | 'cert-x-gen';
  render(report: RunReport, options: RenderOptions): string;
  /**
   * The report of several servers (`--config`). Every format has one but `cert-x-gen`, whose engine
   * runs a template against one target at a time; the CLI refuses `--config` with such a format.
   */
  renderCombined?(report: CombinedReport, options: RenderOptions): string;
}
