/**
 * The GitHub Action's step: scan once (`stateguard scan --format json`), then render the SARIF
 * file for code scanning and the Markdown job summary from that one report, write the step's
 * outputs, and decide the step's exit code by `fail-on`.
 *
 * What a runner provides is all it reads: `INPUT_*` (action.yml passes each input so),
 * `GITHUB_WORKSPACE` (the repository root SARIF paths are relative to), `RUNNER_TEMP` (where the
 * files go), `GITHUB_OUTPUT` and `GITHUB_STEP_SUMMARY` (files it appends to). Identities are
 * masked first (`::add-mask::`), reach the scanner only through its environment, and are cut out
 * of everything the scanner prints, should it ever print one.
 */
import { undecided } from '../probe/runner/decided.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CombinedReport, RunReport } from '../probe/model/report.js';
import { markdown } from '../report/markdown.js';
import { parseSarifLocation, sourceRootOf } from '../report/sarif-location.js';
import { sarif } from '../report/sarif.js';
import type { RenderOptions } from '../report/types.js';
import {
  ActionInputError,
  readInputs,
  scanArgv,
  type ActionInputs,
  type StartInputs,
} from './inputs.js';

/** Where the step writes and what it reads. */
export interface ActionIo {
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

/** A workflow-command message: `%`, CR and LF escaped, so a value cannot start another command. */
const commandText = (s: string): string =>
  s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');

/**
 * A relayed line as the runner shows it, never obeys it: it parses a workflow command from any
 * line of the step's output, stdout or stderr, that starts (after blanks) with `::` (`::error`,
 * `::stop-commands::`, `::add-mask::`, …) or with the older `##[`. The scanner's output quotes
 * config files and servers; such a line gets a visible prefix, so the runner takes it as text.
 */
export function inertLine(line: string): string {
  return /^\s*(?:::|##\[)/.test(line) ? `| ${line}` : line;
}

/** The lines of relayed text, split where the runner splits them (LF, CR LF, and a lone CR). */
const LINE_BREAK = /\r\n|\r|\n/;

/** `::add-mask::` for every line of every secret, before anything else is printed. */
function mask(inputs: { identityA?: string; identityB?: string }, out: ActionIo['out']): void {
  for (const secret of [inputs.identityA, inputs.identityB])
    for (const line of (secret ?? '').split(/\r?\n/))
      if (line.trim() !== '') out(`::add-mask::${commandText(line)}`);
}

/** The scanner's entry point beside this file (source under tsx, or the build). */
function cliMain(): string {
  const here = fileURLToPath(import.meta.url);
  return join(here, '..', '..', 'cli', here.endsWith('.ts') ? 'main.ts' : 'main.js');
}

/** The identities, as they must never appear in the step's log. */
const secretsOf = (inputs: ActionInputs): string[] =>
  [inputs.identityA, inputs.identityB].filter((s): s is string => s !== undefined && s !== '');

/** `text` with every secret cut out, and its trailing newline dropped. */
const cleaner =
  (secrets: readonly string[]) =>
  (text: string): string =>
    secrets.reduce((t, s) => t.split(s).join('***'), text).replace(/\n$/, '');

/**
 * Relays a child's stream to the step's log line by line, so a secret is never split across two
 * chunks, and no line is a command. A CR at a chunk's end may be the first half of CR LF: it waits
 * for the next chunk.
 */
function relay(
  stream: NodeJS.ReadableStream,
  write: (l: string) => void,
  clean: (text: string) => string,
  prefix = '',
): void {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const text = pending + chunk;
    const held = text.endsWith('\r') ? '\r' : '';
    const lines = text.slice(0, text.length - held.length).split(LINE_BREAK);
    pending = (lines.pop() ?? '') + held;
    for (const line of lines) write(inertLine(`${prefix}${clean(line)}`));
  });
  stream.on('end', () => {
    const last = pending.replace(/\r$/, '');
    if (last !== '') write(inertLine(`${prefix}${clean(last)}`));
  });
}

/** The job's environment less the step's inputs and the scanner's identity variables. */
function jobEnv(io: ActionIo): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(io.env).filter(([k]) => !k.startsWith('INPUT_')),
  );
  delete env.STATEGUARD_IDENTITY_A;
  delete env.STATEGUARD_IDENTITY_B;
  return env;
}

/** Runs the scanner; its output goes to this step's log with the secrets cut out. */
function scan(argv: readonly string[], inputs: ActionInputs, io: ActionIo): Promise<number> {
  const clean = cleaner(secretsOf(inputs));
  const env = jobEnv(io);
  if (inputs.identityA !== undefined) env.STATEGUARD_IDENTITY_A = inputs.identityA;
  if (inputs.identityB !== undefined) env.STATEGUARD_IDENTITY_B = inputs.identityB;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...process.execArgv, cliMain(), ...argv], {
      cwd: io.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    relay(child.stdout, io.err, clean);
    relay(child.stderr, io.err, clean);
    child.on('error', () => resolve(2));
    child.on('close', (code) => resolve(code ?? 2));
  });
}

/** A server the step started: stop it (its whole process group), within a bounded time. */
interface StartedServer {
  stop(): Promise<void>;
}

/** Resolves `true` once `child` has exited, or `false` after `ms`. */
function exitedWithin(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** One TCP connection attempt to `host:port`, bounded by `ms`. */
function accepts(host: string, port: number, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(ms, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * `start`: runs the command with `bash -c` in the workspace, in a process group of its own, its
 * output relayed as `[server] …` lines, and waits until `host:port` accepts a TCP connection. The
 * wait ends at `wait-timeout`, or as soon as the command exits; either is an error naming the
 * input to change.
 */
async function startServer(
  start: StartInputs,
  inputs: ActionInputs,
  io: ActionIo,
): Promise<StartedServer | string> {
  const clean = cleaner(secretsOf(inputs));
  const child = spawn('bash', ['-c', start.command], {
    cwd: io.cwd,
    env: jobEnv(io),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  relay(child.stdout!, io.err, clean, '[server] ');
  relay(child.stderr!, io.err, clean, '[server] ');
  let failed: string | undefined;
  child.once('error', (error) => (failed = `start: could not run bash (${error.message})`));
  const signal = (name: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, name);
    } catch {
      // Already gone.
    }
  };
  const server: StartedServer = {
    async stop() {
      signal('SIGTERM');
      if (await exitedWithin(child, 5000)) return signal('SIGKILL'); // what it left behind
      signal('SIGKILL');
      await exitedWithin(child, 2000);
    },
  };
  const where = `${start.host.includes(':') ? `[${start.host}]` : start.host}:${start.port}`;
  io.err(`stateguard: started the server (start), waiting for ${where}`);
  const deadline = Date.now() + start.timeoutMs;
  for (;;) {
    if (failed !== undefined) break;
    if (child.exitCode !== null || child.signalCode !== null) {
      failed = `start: the server exited (${child.exitCode ?? child.signalCode}) before ${where} accepted a connection`;
      break;
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      failed = `start: nothing accepted a connection on ${where} within ${start.timeoutMs / 1000}s (wait-for, wait-timeout)`;
      break;
    }
    if (await accepts(start.host, start.port, Math.min(1000, left))) {
      io.err(`stateguard: ${where} accepts connections; scanning`);
      return server;
    }
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(250, Math.max(0, deadline - Date.now()))),
    );
  }
  await server.stop();
  return failed;
}

/** Appends `name=value` outputs in the delimiter form, so no value can forge another. */
function writeOutputs(file: string | undefined, outputs: Record<string, string | number>): void {
  if (file === undefined || file === '') return;
  const text = Object.entries(outputs)
    .map(([name, value]) => {
      const delimiter = `ghadelimiter_${randomUUID()}`;
      return `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
    })
    .join('');
  appendFileSync(file, text);
}

const servers = (report: RunReport | CombinedReport): RunReport[] =>
  'kind' in report ? report.servers : [report];

/** The step's outputs of counts: every verdict, over every server. */
function counts(report: RunReport | CombinedReport): Record<string, number> {
  const probes = servers(report).flatMap((r) => r.probes);
  const n = (v: string): number => probes.filter((p) => p.verdict === v).length;
  return {
    confirmed: n('confirmed'),
    baselined: probes.filter((p) => p.baselined === true).length,
    refuted: n('refuted'),
    skipped: n('skipped'),
    errored: n('errored'),
    undecided: probes.filter(undecided).length,
  };
}

/** Markdown of a report, of one server or several. */
function summaryOf(report: RunReport | CombinedReport, options: RenderOptions): string {
  return 'kind' in report
    ? markdown.renderCombined(report, options)
    : markdown.render(report, options);
}

/** Scanner exit codes that come with a report: 0, 1, 3, 4 (nothing decided) and 5 (undecided). */
const REPORTED = new Set([0, 1, 3, 4, 5]);

/**
 * The step's exit code for the scanner's, under `fail-on`. A run that decided nothing (4), or left a
 * probe undecided (5), fails under `confirmed` as well: a gate must not pass on a scan that did not
 * try what it could have.
 */
export function gate(failOn: ActionInputs['failOn'], code: number): number {
  if (!REPORTED.has(code)) return code;
  if (failOn === 'never') return 0;
  if (failOn === 'confirmed') return code === 1 || code === 4 || code === 5 ? code : 0;
  return code;
}

/** The step's checked inputs and where SARIF results point, or the exit code of a bad input. */
interface StepInputs {
  readonly inputs: ActionInputs;
  readonly roots: ReturnType<typeof sourceRootOf>;
  readonly sarifLocation: RenderOptions['sarifLocation'];
}

/** The files the step writes, in a fresh folder under the runner's temp. */
interface StepFiles {
  readonly report: string;
  readonly sarif: string;
  readonly markdown: string;
}

/** Runs the step; resolves with its exit code. */
export async function runAction(io: ActionIo): Promise<number> {
  const { env, out } = io;
  const step = readStepInputs(io);
  if (typeof step === 'number') return step;
  const { inputs } = step;
  const dir = join(env.RUNNER_TEMP || tmpdir(), `stateguard-${randomUUID()}`);
  mkdirSync(dir, { recursive: true });
  const files: StepFiles = {
    report: join(dir, 'stateguard.json'),
    sarif: join(dir, 'stateguard.sarif'),
    markdown: join(dir, 'stateguard.md'),
  };
  const code = await startAndScan(inputs, files, io);
  if (code === 'not started') return 2;
  if (!REPORTED.has(code)) {
    out(`::error title=stateguard::the scan ended with exit code ${code} and no report`);
    writeOutputs(env.GITHUB_OUTPUT, { 'exit-code': code });
    return code;
  }
  const report = JSON.parse(readFileSync(files.report, 'utf8')) as RunReport | CombinedReport;
  writeReports(report, step, files, env);
  const tally = counts(report);
  writeOutputs(env.GITHUB_OUTPUT, {
    'exit-code': code,
    'sarif-file': files.sarif,
    'report-file': files.report,
    'markdown-file': files.markdown,
    ...tally,
  });
  const exit = gate(inputs.failOn, code);
  const what = outcomeLine(code, tally);
  if (exit !== 0)
    out(`::error title=stateguard::${commandText(`${what}; fail-on ${inputs.failOn}`)}`);
  else if (code !== 0) out(`::warning title=stateguard::${commandText(what)}`);
  return exit;
}

/** The inputs, masked before they are even checked; a bad one is an error annotation and exit 2. */
function readStepInputs(io: ActionIo): StepInputs | number {
  const { env, out } = io;
  let inputs: ActionInputs;
  try {
    // Masked before the inputs are even checked: an error message must not be the first leak.
    mask({ identityA: env.INPUT_IDENTITY_A, identityB: env.INPUT_IDENTITY_B }, out);
    inputs = readInputs(env);
  } catch (error) {
    if (!(error instanceof ActionInputError)) throw error;
    out(`::error title=stateguard::${commandText(error.message)}`);
    return 2;
  }
  const roots = sourceRootOf(env, io.cwd);
  if (inputs.sarifLocation === undefined) return { inputs, roots, sarifLocation: undefined };
  const place = parseSarifLocation(inputs.sarifLocation, roots);
  if (typeof place === 'string') {
    out(`::error title=stateguard::sarif-location ${commandText(place)}`);
    return 2;
  }
  return { inputs, roots, sarifLocation: place };
}

/** Starts the server if `start` asks, scans, and stops it; `'not started'` when it could not start. */
async function startAndScan(
  inputs: ActionInputs,
  files: StepFiles,
  io: ActionIo,
): Promise<number | 'not started'> {
  let started: StartedServer | undefined;
  if (inputs.start !== undefined) {
    const outcome = await startServer(inputs.start, inputs, io);
    if (typeof outcome === 'string') {
      io.out(`::error title=stateguard::${commandText(outcome)}`);
      return 'not started';
    }
    started = outcome;
  }
  try {
    return await scan(scanArgv(inputs, files.report), inputs, io);
  } finally {
    await started?.stop();
    if (started !== undefined) io.err('stateguard: stopped the server (start)');
  }
}

/** The SARIF file, the Markdown file and the job summary, from the scanner's JSON report. */
function writeReports(
  report: RunReport | CombinedReport,
  step: StepInputs,
  files: StepFiles,
  env: NodeJS.ProcessEnv,
): void {
  const { inputs, sarifLocation } = step;
  const options: RenderOptions = {
    color: false,
    ...inputs.render,
    sourceRoot: step.roots,
    ...(sarifLocation !== undefined ? { sarifLocation } : {}),
  };
  writeFileSync(
    files.sarif,
    'kind' in report ? sarif.renderCombined(report, options) : sarif.render(report, options),
  );
  const summary = withSurface(summaryOf(report, options), inputs);
  writeFileSync(files.markdown, summary);
  if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, `${summary}\n`);
}

/** What the scan was allowed to call, said first (after the title): a full surface is not a plan. */
function withSurface(rendered: string, inputs: ActionInputs): string {
  const surface = inputs.surface.full
    ? `**Surface: full.** Every tool was called (last, only on objects the scan created), because ${inputs.surface.why}.`
    : `**Surface: the call plan's default.** Only read and create tools were called${inputs.allowTools.length > 0 ? `, and ${inputs.allowTools.length} named by allow-tool` : ''} (${inputs.surface.why}; surface: full calls every tool).`;
  const cut = rendered.indexOf('\n');
  return cut < 0
    ? `${rendered}\n\n${surface}\n`
    : `${rendered.slice(0, cut)}\n\n${surface}\n${rendered.slice(cut)}`;
}

/** One line on what the scan found, for the step's annotation. */
function outcomeLine(code: number, tally: Record<string, number>): string {
  return code === 4
    ? `nothing decided: no probe confirmed or refuted anything (${tally.skipped} skipped, ${tally.errored} errored)`
    : code === 5
      ? 'undecided: a probe whose surface the call plan left alone decided nothing (the report names the --allow-tool that would decide it)'
      : `${tally.confirmed} confirmed (${tally.baselined} baselined), ${tally.errored} errored`;
}
