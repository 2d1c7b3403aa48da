/**
 * Judgements from traffic alone: a pure function from the lines of a capture to findings, each
 * pointing at the lines that show it. The live proxy and `stateguard check` both call it on the
 * same lines, so a capture judged later gives the findings the live run gave.
 *
 * "Accepted" means the server answered with a result that is not a tool error (`isError`): a
 * JSON-RPC error or an `isError` result is a refusal. A flow "completed" when an accepted answer to
 * a request carrying a state has `resultType` `complete` (or none).
 */
import { alphabetSize, MIN_ID_BITS, predictNext } from '../probe/experiments/task-ids.js';
import type { CaptureLine, CapturedState } from './capture.js';
import { JUDGEMENTS, MISSING, type JudgementId, type Material } from './judgements.js';
import { isRecord } from '../probe/model/json.js';

/** One thing the traffic shows, and where. */
export interface Finding {
  readonly id: JudgementId;
  /** Capture line numbers, in order: the first is the one that shows it best. */
  readonly lines: readonly number[];
  /** One sentence, secret-free: digests, field names, line numbers. */
  readonly reason: string;
}

/** Options of a judgement. */
export interface JudgeOptions {
  /** `--max-age`: a state or handle accepted later than this after it was issued is a finding. */
  readonly maxAgeMs?: number;
}

/** The findings, and for each judgement with none, whether the traffic could have shown one. */
export interface Judged {
  readonly findings: Finding[];
  /** Judgements the traffic had no material for, with why (never a pass). */
  readonly skipped: Partial<Record<JudgementId, string>>;
}

/** Most findings of one judgement: a long capture repeating one flaw says it once per value. */
const MAX_PER_JUDGEMENT = 20;
/** Most ids kept per key for the guessable-id judgement. */
const MAX_IDS_PER_KEY = 1000;
/** Key names that hold a handle or id a client passes back. */
const ID_KEY = /(^|_|-)(id|handle)$|[a-z](Id|Handle|ID)$/;

interface Request {
  readonly line: CaptureLine;
  readonly method: string;
  readonly name: string;
  readonly params: Record<string, unknown>;
  readonly state?: CapturedState;
  answer?: CaptureLine;
}

const resultOf = (line: CaptureLine | undefined): Record<string, unknown> | undefined => {
  const msg = line?.msg;
  return isRecord(msg) && isRecord(msg['result']) ? msg['result'] : undefined;
};

/** The server went on with the request: a result that is not a tool error. */
export const accepted = (answer: CaptureLine | undefined): boolean => {
  const result = resultOf(answer);
  return result !== undefined && result['isError'] !== true;
};

const completed = (answer: CaptureLine | undefined): boolean => {
  const result = resultOf(answer);
  if (result === undefined || result['isError'] === true) return false;
  const kind = result['resultType'];
  return kind === undefined || kind === 'complete';
};

const time = (line: CaptureLine): number => Date.parse(line.t);

/** Strings under id-like keys in a value, with their key, bounded in depth and count. */
function idsIn(value: unknown, out: { key: string; id: string }[], depth = 0): void {
  if (depth > 8 || out.length > 100) return;
  if (Array.isArray(value)) {
    for (const item of value.slice(0, 100)) idsIn(item, out, depth + 1);
    return;
  }
  if (!isRecord(value)) return;
  for (const [key, item] of Object.entries(value)) {
    if (typeof item === 'string' && ID_KEY.test(key) && item.length > 0 && item.length <= 1024)
      out.push({ key, id: item });
    else if (typeof item === 'object') idsIn(item, out, depth + 1);
  }
}

/** The handles an answer hands out: in `structuredContent`, JSON text content, or a task. */
function mintedIds(result: Record<string, unknown>): { key: string; id: string }[] {
  const out: { key: string; id: string }[] = [];
  idsIn(result['structuredContent'], out);
  idsIn(result['task'], out);
  if (typeof result['taskId'] === 'string') out.push({ key: 'taskId', id: result['taskId'] });
  const content = result['content'];
  if (Array.isArray(content)) {
    for (const c of content.slice(0, 20)) {
      if (!isRecord(c) || typeof c['text'] !== 'string' || !c['text'].trimStart().startsWith('{'))
        continue;
      try {
        idsIn(JSON.parse(c['text']), out);
      } catch {
        // Text that only looks like JSON.
      }
    }
  }
  const seen = new Set<string>();
  return out.filter((x) => !seen.has(x.id) && seen.add(x.id));
}

/** Every string a request passes as an argument (the places a handle travels). */
function passedStrings(params: Record<string, unknown>): string[] {
  const out: string[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (depth > 8 || out.length > 200) return;
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) for (const item of v.slice(0, 100)) walk(item, depth + 1);
    else if (isRecord(v)) for (const item of Object.values(v)) walk(item, depth + 1);
  };
  walk(params['arguments'], 0);
  for (const key of ['uri', 'taskId', 'cursor']) walk(params[key], 0);
  return out;
}

/** Bits one id can hold: its length times the bits of the smallest alphabet spelling it. */
function idBits(id: string): number {
  return Math.floor(id.length * Math.log2(alphabetSize(new Set(id))));
}

/** A state an answer issued: the request it answered, the answer, and the state. */
interface Issued {
  readonly request: Request;
  readonly answer: CaptureLine;
  readonly state: CapturedState;
}

/** Requests paired with their answers, in order, and every principal seen. */
function pairRequests(lines: readonly CaptureLine[]): {
  ordered: Request[];
  principals: Set<string>;
} {
  const requests = new Map<number, Request>();
  const ordered: Request[] = [];
  const principals = new Set<string>();
  for (const line of lines) {
    if (line.principal !== undefined) principals.add(line.principal);
    const msg = line.msg;
    if (!isRecord(msg)) continue;
    if (line.dir === 'c2s' && typeof msg['method'] === 'string' && 'id' in msg) {
      const params = isRecord(msg['params']) ? msg['params'] : {};
      const name =
        typeof params['name'] === 'string' ? params['name'] : String(params['uri'] ?? '');
      const state = line.states?.find((s) => s.at === 'params');
      const r: Request = { line, method: msg['method'], name, params, ...(state ? { state } : {}) };
      requests.set(line.n, r);
      ordered.push(r);
    } else if (line.dir === 's2c' && line.re !== undefined) {
      const r = requests.get(line.re);
      if (r !== undefined && r.answer === undefined) r.answer = line;
    }
  }
  return { ordered, principals };
}

const flowKey = (r: Request): string => `${r.line.principal ?? ''}\0${r.method}\0${r.name}`;

/** The judgements' running state over one capture, one phase per method. */
class Judging {
  readonly findings: Finding[] = [];
  readonly counts = new Map<JudgementId, number>();
  readonly #keys = new Set<string>();
  readonly issued = new Map<string, Issued>();
  /** The last state issued per principal and call, and whether a retry took it up. */
  readonly #open = new Map<string, Issued>();
  readonly #acceptedBy = new Map<string, Map<string, number>>();
  readonly completedAt = new Map<string, number>();
  readonly minted = new Map<string, { principal?: string; line: CaptureLine }>();
  readonly idsByKey = new Map<string, { id: string; line: number }[]>();
  /** Requests still unanswered, by the state they carry. */
  readonly #inFlight = new Map<string, Request>();

  readonly options: JudgeOptions;

  constructor(options: JudgeOptions) {
    this.options = options;
  }

  add(id: JudgementId, key: string, lines: number[], reason: string): void {
    if (this.#keys.has(`${id}\0${key}`)) return;
    this.#keys.add(`${id}\0${key}`);
    const n = this.counts.get(id) ?? 0;
    if (n >= MAX_PER_JUDGEMENT) return;
    this.counts.set(id, n + 1);
    this.findings.push({ id, lines: [...new Set(lines)].sort((a, b) => a - b), reason });
  }

  /** Client: a state sent back that was altered, invented, used in parallel, or dropped. */
  clientState(r: Request): void {
    const n = r.line.n;
    for (const [digest, other] of this.#inFlight)
      if (other.answer === undefined || other.answer.n < n) this.#inFlight.delete(digest);
    const st = r.state;
    const pending = this.#open.get(flowKey(r));
    if (st === undefined) {
      if (isRecord(r.params['inputResponses']) && pending !== undefined)
        this.add(
          'client/state-dropped',
          `${n}`,
          [pending.answer.n, n],
          `the retry on line ${n} answered the input request of line ${pending.answer.n} without its requestState`,
        );
      return;
    }
    const earlier = this.issued.get(st.digest);
    if (earlier === undefined || earlier.answer.n > n) {
      if (pending !== undefined && pending.state.digest !== st.digest)
        this.add(
          'client/state-altered',
          `${n}`,
          [pending.answer.n, n],
          `the retry on line ${n} sent requestState <state:${st.digest}>, not <state:${pending.state.digest}> issued on line ${pending.answer.n}`,
        );
      else
        this.add(
          'client/state-invented',
          `${n}`,
          [n],
          `line ${n} sent requestState <state:${st.digest}>, which no answer before it issued`,
        );
    }
    const parallel = this.#inFlight.get(st.digest);
    if (parallel !== undefined)
      this.add(
        'client/state-parallel',
        st.digest,
        [parallel.line.n, n],
        `lines ${parallel.line.n} and ${n} carried the same requestState <state:${st.digest}> before the first was answered`,
      );
    this.#inFlight.set(st.digest, r);
    if (pending?.state.digest === st.digest) this.#open.delete(flowKey(r));
  }

  /** Server: what it did with a state it was handed and accepted. */
  serverState(r: Request, st: CapturedState, answer: CaptureLine): void {
    const n = r.line.n;
    const origin = this.issued.get(st.digest);
    const who = r.line.principal ?? '';
    const by = this.#acceptedBy.get(st.digest) ?? new Map<string, number>();
    this.#acceptedBy.set(st.digest, by);
    for (const [other, line] of by)
      if (other !== who && r.line.principal !== undefined)
        this.add(
          'server/state-cross-principal',
          st.digest,
          [origin?.answer.n ?? line, line, n, answer.n],
          `requestState <state:${st.digest}> was accepted for one principal on line ${line} and for another on line ${n}`,
        );
    if (!by.has(who)) by.set(who, n);
    const done = this.completedAt.get(st.digest);
    if (done !== undefined)
      this.add(
        'server/state-after-completion',
        st.digest,
        [done, n, answer.n],
        `requestState <state:${st.digest}> completed its flow on line ${done} and was accepted again on line ${n}`,
      );
    if (completed(answer) && done === undefined) this.completedAt.set(st.digest, answer.n);
    const maxAgeMs = this.options.maxAgeMs;
    if (maxAgeMs !== undefined && origin !== undefined) {
      const age = time(r.line) - time(origin.answer);
      if (age > maxAgeMs)
        this.add(
          'server/accepted-after-max-age',
          `state ${st.digest}`,
          [origin.answer.n, n, answer.n],
          `requestState issued on line ${origin.answer.n} was accepted ${Math.round(age / 1000)} s later on line ${n} (--max-age ${Math.round(maxAgeMs / 1000)} s)`,
        );
    }
  }

  /** Server: handles an accepted request passed back from another principal, or too old. */
  handles(r: Request, answer: CaptureLine): void {
    const n = r.line.n;
    const maxAgeMs = this.options.maxAgeMs;
    for (const value of passedStrings(r.params)) {
      const m = this.minted.get(value);
      if (m === undefined || m.line.n > n) continue;
      if (
        m.principal !== undefined &&
        r.line.principal !== undefined &&
        m.principal !== r.line.principal
      )
        this.add(
          'server/handle-cross-principal',
          `${m.line.n}\0${r.line.principal}`,
          [m.line.n, n, answer.n],
          `a handle minted on line ${m.line.n} for one principal was accepted from another on line ${n}`,
        );
      if (maxAgeMs === undefined) continue;
      const age = time(r.line) - time(m.line);
      if (age > maxAgeMs)
        this.add(
          'server/accepted-after-max-age',
          `handle ${m.line.n}`,
          [m.line.n, n, answer.n],
          `a handle minted on line ${m.line.n} was accepted ${Math.round(age / 1000)} s later on line ${n} (--max-age ${Math.round(maxAgeMs / 1000)} s)`,
        );
    }
  }

  /** What an answer hands out: a state (judged for its shape) and handles. */
  handedOut(r: Request, answer: CaptureLine, result: Record<string, unknown>): void {
    const st2 = answer.states?.find((s) => s.at === 'result');
    if (st2 !== undefined) {
      const entry = { request: r, answer, state: st2 };
      if (!this.issued.has(st2.digest)) this.issued.set(st2.digest, entry);
      if (result['resultType'] === 'input_required') this.#open.set(flowKey(r), entry);
      if (st2.reading !== 'opaque' && !st2.tagged)
        this.add(
          'server/state-readable',
          st2.reading,
          [answer.n],
          `line ${answer.n} issued a requestState that reads as ${st2.reading} with nothing that could be an integrity tag`,
        );
      if (st2.reading !== 'opaque' && st2.identity.length > 0)
        this.add(
          'server/state-identity-clear',
          st2.identity.join(','),
          [answer.n],
          `line ${answer.n} issued a requestState that carries ${st2.identity.join(', ')} in the clear (${st2.reading})`,
        );
    }
    if (result['isError'] === true) return;
    for (const { key, id } of mintedIds(result)) {
      if (passedStrings(r.params).includes(id)) continue;
      if (!this.minted.has(id))
        this.minted.set(id, {
          ...(r.line.principal === undefined ? {} : { principal: r.line.principal }),
          line: answer,
        });
      const list = this.idsByKey.get(key) ?? [];
      if (list.length < MAX_IDS_PER_KEY && !list.some((x) => x.id === id))
        list.push({ id, line: answer.n });
      this.idsByKey.set(key, list);
    }
  }

  /** Every judgement of one request and its answer, in the order the traffic showed them. */
  request(r: Request): void {
    this.clientState(r);
    const answer = r.answer;
    if (answer === undefined) return;
    if (accepted(answer)) {
      if (r.state !== undefined) this.serverState(r, r.state, answer);
      this.handles(r, answer);
    }
    const result = resultOf(answer);
    if (result !== undefined) this.handedOut(r, answer, result);
  }

  /** Session ids the proxy saw count on from the two handed out before: the first such, once. */
  #countingSessions(sessions: readonly CaptureLine[]): void {
    const firstLines: number[] = [];
    const seen = new Set<string>();
    for (const l of sessions) {
      const digest = l.http?.session as string;
      if (seen.has(digest)) continue;
      seen.add(digest);
      firstLines.push(l.n);
      if (l.http?.sessionCounts !== true || firstLines.length < 3) continue;
      const window = firstLines.slice(-3);
      this.add(
        'server/guessable-ids',
        'sequential session',
        window,
        `lines ${window.join(', ')} handed out Mcp-Session-Id values that count up`,
      );
      return;
    }
  }

  /** Guessable ids: short, or three in a row that count; session ids short or counting. */
  guessable(sessions: readonly CaptureLine[]): void {
    for (const [key, list] of this.idsByKey) {
      const short = list.find((x) => idBits(x.id) < MIN_ID_BITS);
      if (short !== undefined)
        this.add(
          'server/guessable-ids',
          `short ${key}`,
          [short.line],
          `line ${short.line} handed out ${key} '${short.id.slice(0, 40)}', at most ${idBits(short.id)} bits (fewer than ${MIN_ID_BITS})`,
        );
      for (let i = 2; i < list.length; i++) {
        const window = list.slice(i - 2, i + 1);
        if (predictNext(window.map((x) => x.id)) === undefined) continue;
        this.add(
          'server/guessable-ids',
          `sequential ${key}`,
          window.map((x) => x.line),
          `lines ${window.map((x) => x.line).join(', ')} handed out ${key} values that count up (${window.map((x) => `'${x.id.slice(0, 40)}'`).join(', ')})`,
        );
        break;
      }
    }
    this.#countingSessions(sessions);
    const weak = sessions.find((l) => (l.http?.sessionBits ?? Infinity) < MIN_ID_BITS);
    if (weak !== undefined)
      this.add(
        'server/guessable-ids',
        'session',
        [weak.n],
        `line ${weak.n} handed out an Mcp-Session-Id of at most ${weak.http?.sessionBits} bits`,
      );
  }
}

/** Judgements the traffic had no material for, with why. */
function skippedOf(
  j: Judging,
  ordered: readonly Request[],
  principals: ReadonlySet<string>,
  sessions: number,
): Partial<Record<JudgementId, string>> {
  const material: Record<Material, boolean> = {
    state: j.issued.size > 0 || ordered.some((r) => r.state !== undefined),
    issued: j.issued.size > 0,
    retried: ordered.some((r) => r.state !== undefined),
    'two-principals': principals.size >= 2,
    completed: j.completedAt.size > 0,
    ids: j.idsByKey.size > 0 || sessions > 0,
    'state-or-ids': j.issued.size > 0 || j.minted.size > 0,
    'max-age': j.options.maxAgeMs !== undefined,
  };
  const skipped: Partial<Record<JudgementId, string>> = {};
  for (const x of JUDGEMENTS) {
    if (j.counts.has(x.id)) continue;
    const missing = x.needs.find((need) => !material[need]);
    if (missing !== undefined) skipped[x.id] = MISSING[missing];
  }
  return skipped;
}

/** Runs every judgement over `lines` (in file order). */
export function judge(lines: readonly CaptureLine[], options: JudgeOptions = {}): Judged {
  const { ordered, principals } = pairRequests(lines);
  const j = new Judging(options);
  for (const r of ordered) j.request(r);
  const sessions = lines.filter((l) => l.http?.session !== undefined);
  j.guessable(sessions);
  return { findings: j.findings, skipped: skippedOf(j, ordered, principals, sessions.length) };
}
