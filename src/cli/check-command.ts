/**
 * `stateguard check <capture.jsonl>`: the judgements of `stateguard watch`, offline, over a capture
 * file. Report formats and exit codes are `scan`'s: 1 on a finding, 4 when no judgement decided
 * anything (unless `--allow-undecided`), 2 on bad usage or an unreadable capture.
 */
import { argsOrExit, stderrLine } from './subcommand.js';
import { readFileSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ProbeUsageError } from '../errors.js';
import { parseArgsMessage } from '../parse-args-message.js';
import {
  EVIDENCE_MODES,
  isReportFormat,
  REPORT_FORMATS,
  REPORTERS,
  type EvidenceMode,
  type ReportFormat,
} from '../report/index.js';
import { sourceRootOf } from '../report/sarif-location.js';
import { summaryLine } from '../report/text.js';
import { parseDuration } from './duration.js';
import { checkWritable } from './files.js';
import { deliver, exitCodeOf } from './scan-common.js';

/** Largest capture read (a bigger one is refused: split it, or keep `watch` runs shorter). */
export const MAX_CAPTURE_BYTES = 512 * 1024 * 1024;

export const CHECK_HELP = `Usage: stateguard check <capture.jsonl> [options]

Judges a capture recorded by 'stateguard watch' (no server needed): a client that edits, drops,
invents or shares requestState; a server that issues readable or unprotected state, accepts one
state from two users or after its flow completed, accepts one user's handle from another, hands
out short or sequential ids, or accepts state or handles older than --max-age. Each finding points
at the capture lines that show it.

Options:
  --format <f>        ${REPORT_FORMATS.join(', ')} (default text); SARIF results point at capture lines
  --output <file>     write the report there (a summary line goes to stderr)
  --evidence <m>      ${EVIDENCE_MODES.join(', ')} (default summary)
  --max-age <d>       a state or handle accepted this long after it was issued is a finding (e.g. 10m)
  --all               SARIF: also the judgements that found nothing or were skipped
  --allow-undecided   exit 0 rather than 4 when the capture held nothing to judge
  -h, --help          this help

Exit codes: 0 nothing found, 1 a finding, 2 usage or unreadable capture, 4 nothing decided.
`;

interface CheckArgs {
  readonly capture: string;
  readonly format: ReportFormat;
  readonly output?: string;
  readonly evidence: EvidenceMode;
  readonly maxAgeMs?: number;
  readonly all: boolean;
  readonly allowUndecided: boolean;
}

function parseCheckArgs(argv: readonly string[]): CheckArgs | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: true,
      options: {
        format: { type: 'string' },
        output: { type: 'string' },
        evidence: { type: 'string' },
        'max-age': { type: 'string' },
        all: { type: 'boolean' },
        'allow-undecided': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new ProbeUsageError(parseArgsMessage(error));
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (positionals.length !== 1) throw new ProbeUsageError('give one capture file');
  const format = values.format ?? 'text';
  if (!isReportFormat(format))
    throw new ProbeUsageError(`unknown --format '${format}' (${REPORT_FORMATS.join(', ')})`);
  const evidence = values.evidence ?? 'summary';
  if (!(EVIDENCE_MODES as readonly string[]).includes(evidence))
    throw new ProbeUsageError(`unknown --evidence '${evidence}' (${EVIDENCE_MODES.join(', ')})`);
  if (values.output !== undefined) checkWritable('output', values.output);
  return {
    capture: positionals[0] as string,
    format,
    ...(values.output === undefined ? {} : { output: values.output }),
    evidence: evidence as EvidenceMode,
    ...(values['max-age'] === undefined
      ? {}
      : { maxAgeMs: parseDuration('max-age', values['max-age']) }),
    all: values.all ?? false,
    allowUndecided: values['allow-undecided'] ?? false,
  };
}

/** Runs `stateguard check`; resolves with the exit code. */
export async function runCheckCommand(argv: readonly string[]): Promise<number> {
  const err = stderrLine;
  const read = await argsOrExit('check', CHECK_HELP, () => parseCheckArgs(argv));
  if ('exit' in read) return read.exit;
  const { args } = read;
  const started = Date.now();
  let text: string;
  try {
    if (statSync(args.capture).size > MAX_CAPTURE_BYTES)
      throw Object.assign(new Error('too large'), { code: 'EFBIG' });
    text = readFileSync(args.capture, 'utf8');
  } catch (error) {
    err(
      `stateguard check: cannot read '${args.capture}': ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
    return 2;
  }
  // The capture's reader and judge load once there is a capture to judge, not for --help.
  const [{ parseCapture }, { judge }, { captureReport }] = await Promise.all([
    import('../watch/capture.js'),
    import('../watch/judge.js'),
    import('../watch/report.js'),
  ]);
  const capture = parseCapture(text);
  if ('problem' in capture) {
    err(`stateguard check: '${args.capture}': ${capture.problem}`);
    return 2;
  }
  const judged = judge(
    capture.lines,
    args.maxAgeMs === undefined ? {} : { maxAgeMs: args.maxAgeMs },
  );
  const report = captureReport(judged, capture.lines, {
    file: args.capture,
    transport: capture.header.transport === 'http' ? 'http' : 'stdio',
    target: String(capture.header.target),
    startedAt: new Date(started).toISOString(),
    ms: Date.now() - started,
  });
  const rendered = REPORTERS[args.format].render(report, {
    color: false,
    evidence: args.evidence,
    all: args.all,
    sourceRoot: sourceRootOf(process.env, process.cwd()),
  });
  if (!deliver(rendered, args.output, summaryLine(report), err)) return 2;
  return exitCodeOf(report, args.allowUndecided);
}
