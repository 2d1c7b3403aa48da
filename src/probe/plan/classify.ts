/**
 * One class for a tool, from everything it declares, read in the safe direction
 * (docs/scanner.md, "What a scan calls"):
 *
 * 1. **Signs of harm** win over everything: `destructiveHint: true`; `openWorldHint: true` on a tool
 *    that is not read-only; a verb that writes, reaches outside or destroys where the name or the
 *    description puts its verb; a slot that takes a command, code or a database query; a URL or a
 *    file path the tool may open (unless it declares itself read-only in a closed world); a
 *    description that says the effect cannot be undone.
 * 2. A word that mixes alphabets (`dеlete` with a Cyrillic `е`), or is a look-alike spelling of a
 *    known verb, is **unknown**, and blocks every claim of safety.
 * 3. **Evidence of safety** comes only from words: the name's verb and the description's main
 *    verb. An annotation adds to a word that agrees with it (`readOnlyHint: true` beside `get_…`);
 *    on a tool named only by what it returns it counts when its description explains the name
 *    and opens with no verb (`agreement.ts`); alone it is a claim. Among the safe classes the less
 *    safe one holds (a `create_…` tool that declares read-only creates; `readOnlyHint: false`
 *    rules out a reader).
 * 4. With no evidence of either, the tool is **unknown**: the unknown is not called.
 *
 * Words are read as words: only where a verb stands (a name's first and last word and the word
 * after a conjunction; a clause's first word after its subject, and the word after `is`, `will`,
 * `to`, `and`), never a noun after a determiner (`its charges`), never a value a schema offers
 * (`enum`, `const`, `default`, `examples`). `name.ts` reads a name or a title, `description.ts` a
 * description, both word by word through `verbs.ts`; this module decides.
 */
import { fold, clausesOf, wordsOf } from './words.js';
import { dangerousSlots, paramsOf, roleOfDescription, stripIdentifiers } from './slots.js';
import type { CallClass, ToolInfo } from '../model/tools.js';
import { readOnlyAgreed } from './agreement.js';
import { EXISTING, NEW_OBJECT, STORING_VERBS } from './lexicon.js';
import { compile, matches, once } from './match.js';
import { readDescription, verbPlaces } from './description.js';
import { readName } from './name.js';
import { SEVERITY, emptyReading, type Harm } from './verbs.js';
import { isRecord } from '../model/json.js';

/** A class and the evidence for it, the deciding phrase first. */
export interface Classified {
  readonly class: CallClass;
  readonly evidence: string[];
}

const ROLE_TEXT = {
  command: 'a command',
  code: 'code',
  query: 'a database query',
  url: 'a URL',
  path: 'a file path',
} as const;

// Verbs that put what a tool has into a file or at a URL: beside an optional path or URL slot they
// say the tool writes or sends, set or not.
const SLOT_ACT = new RegExp(
  String.raw`\b(sav(e|es|ed|ing)|writ(e|es|ing|ten)|stor(e|es|ed|ing)|persist(s|ed)?|export(s|ed|ing)?|dump(s|ed)?|download(s|ed)?|post(s|ed|ing)?|upload(s|ed|ing)?|send(s|ing)?|sent|push(es|ed)?|forward(s|ed)?|deliver(s|ed)?|publish(es|ed)?|submit(s|ted)?|speicher\w*|schreib\w*|sende\w*|hochlad\w*|enregistr\w*|sauvegard\w*|ecri\w*|envo\w*|guard(a|ar|an)|escrib\w*|envi(a|ar|an)|salv(a|ar|an)|grav(a|ar)|subir|sube)\b`,
  'u',
);

/** The verb of a description that writes or sends what the tool has, if any. */
function slotAct(description: string): string | undefined {
  const found = SLOT_ACT.exec(fold(stripIdentifiers(description)));
  return found === null ? undefined : `"${found[0]}"`;
}

const ROLE_NOUN = {
  command: 'command',
  code: 'code',
  query: 'database query',
  url: 'URL',
  path: 'path',
} as const;

// Parameters that name a source repository (`repo`, `repository_name`, GitLab's `project_id`); a
// bare `project` may be a folder of the host, so it is not one.
const REPOSITORY = new Set(
  'repo repos repository repositories reponame repositoryname repoid repositoryid projectid'.split(
    ' ',
  ),
);

type Harms = { kind: Harm; why: string }[];
type Safe = { kind: 'read' | 'create'; why: string }[];

/** What a tool's declaration says, gathered before any decision. */
interface Declared {
  readonly tool: ToolInfo;
  readonly ann: Record<string, unknown> | undefined;
  readonly title: string;
  readonly description: string;
  readonly readOnly: boolean;
}

/** Classifies a tool (see the module's comment). */
export function classifyTool(tool: ToolInfo): Classified {
  const ann = isRecord(tool.annotations) ? tool.annotations : undefined;
  const d: Declared = {
    tool,
    ann,
    title: typeof ann?.['title'] === 'string' ? ann['title'] : (tool.title ?? ''),
    description: typeof tool.description === 'string' ? tool.description : '',
    readOnly: ann?.['readOnlyHint'] === true,
  };
  const harms: Harms = annotationHarms(d);
  const { unknowns, safe } = readWords(d, harms);
  const unset = slotHarms(d, safe, harms);
  storesNew(d, harms, safe);
  const judged = decide(d, harms, unknowns, safe);
  return { class: judged.class, evidence: [...judged.evidence, ...unset] };
}

const storingList = once(() => compile(STORING_VERBS));

/**
 * A name whose verb keeps what it is given, first or last where a name puts its verb
 * (`save_snippet`, `notiz_speichern`), whose description gives that verb a new object (`Save a
 * text snippet.`) and says nothing of an existing one, creates: its verb's reading as a change is
 * dropped, and a required path, URL or command slot still counts.
 */
function storesNew({ tool, description }: Declared, harms: Harms, safe: Safe): void {
  const words = wordsOf(tool.name);
  const main = clausesOf(stripIdentifiers(description))[0];
  const ends = [words[0], words[words.length - 1]];
  if (main === undefined || !ends.some((w) => w !== undefined && matches(storingList(), w))) return;
  const at = verbPlaces(main)[0];
  if (at === undefined || !matches(storingList(), main[at] as string)) return;
  if (!NEW_OBJECT.has(main[at + 1] ?? '')) return;
  if (clausesOf(description).some((c) => c.some((w) => EXISTING.has(w)))) return;
  const stored = (h: Harms[number]): boolean =>
    h.kind === 'write' && matches(storingList(), /"([^"]+)"/.exec(h.why)?.[1] ?? '');
  for (let i = harms.length - 1; i >= 0; i--) if (stored(harms[i]!)) harms.splice(i, 1);
  safe.push({
    kind: 'create',
    why: `its description says "${main[at] as string}" and gives it a new object`,
  });
}

/** Harm an annotation declares: it counts alone (a hint of harm is believed, one of safety is not). */
function annotationHarms({ ann, readOnly }: Declared): Harms {
  const harms: Harms = [];
  if (ann?.['destructiveHint'] === true)
    harms.push({ kind: 'destroy', why: 'declares destructiveHint: true' });
  if (!readOnly && ann?.['openWorldHint'] === true)
    harms.push({ kind: 'outside', why: 'declares openWorldHint: true and is not read-only' });
  return harms;
}

/** The words of the name, the title and the description: harm into `harms`, the rest returned. */
function readWords(d: Declared, harms: Harms): { unknowns: string[]; safe: Safe } {
  const unknowns: string[] = [];
  const safe: Safe = [];
  for (const [where, reading] of [
    ['name', readName(d.tool.name)],
    ['title', d.title ? readName(d.title) : emptyReading()],
    ['description', d.description ? readDescription(d.description) : emptyReading()],
  ] as const) {
    if (reading.harm !== undefined)
      harms.push({ kind: reading.harm.kind, why: `its ${where} says ${reading.harm.word}` });
    if (reading.unknown !== undefined)
      unknowns.push(`its ${where} has ${reading.unknown}, a word it cannot read`);
    if (reading.lead !== undefined)
      safe.push({ kind: reading.lead.kind, why: `its ${where} says ${reading.lead.word}` });
  }
  return { unknowns, safe };
}

/**
 * Slots: what a parameter takes (only a parameter that can hold text can hold a command or a URL).
 * A required dangerous slot is a sign of harm; an optional one the scanner never fills (the call
 * gate strips it before a request is sent), so it is no sign: it is returned as evidence, and the
 * tool is judged on the rest.
 */
function slotHarms(
  { tool, ann, description, readOnly }: Declared,
  safe: Safe,
  harms: Harms,
): string[] {
  const describedRole = description ? roleOfDescription(stripIdentifiers(description)) : undefined;
  if (describedRole !== undefined && describedRole !== 'url' && describedRole !== 'path')
    harms.push({
      kind: 'outside',
      why: `its description says it runs ${ROLE_TEXT[describedRole]}`,
    });
  const harmless = readOnly && ann?.['openWorldHint'] === false;
  const params = paramsOf(tool.inputSchema);
  // A path beside a repository's coordinates (`owner`, `repo`, `path`) names a file in that
  // repository, not on the server's host: a tool that only reads opens nothing there.
  const inRepository =
    params.some(
      (p) => p.path.length === 1 && REPOSITORY.has(wordsOf(p.path[0] as string).join('')),
    ) &&
    safe.length > 0 &&
    safe.every((s) => s.kind === 'read') &&
    ann?.['readOnlyHint'] !== false;
  const unset: string[] = [];
  for (const { path, role, optional } of dangerousSlots(tool)) {
    // A read-only tool in a closed world only ever gets a placeholder that reaches nowhere.
    if ((role === 'url' || role === 'path') && harmless) continue;
    if (role === 'path' && inRepository) continue;
    if (optional) {
      // Words that say what the tool does with the slot's file or URL still win: it may do so
      // with a default of its own when the slot is unset (`saves it to the given file`).
      const act = (role === 'path' || role === 'url') && slotAct(description);
      if (act) {
        harms.push({
          kind: 'outside',
          why: `its description says ${act}, and it takes ${ROLE_TEXT[role]} in "${path.join('.')}"`,
        });
        break;
      }
      unset.push(`optional ${ROLE_NOUN[role]} \`${path.join('.')}\` left unset`);
      continue;
    }
    harms.push({ kind: 'outside', why: `it takes ${ROLE_TEXT[role]} in "${path.join('.')}"` });
    break;
  }
  return unset;
}

/** The class: the worst harm, else unknown, else the less safe of the safe evidence. */
function decide(d: Declared, harms: Harms, unknowns: string[], safe: Safe): Classified {
  const { ann, readOnly } = d;
  if (harms.length > 0) {
    const worst = harms.reduce((a, b) => (SEVERITY[b.kind] > SEVERITY[a.kind] ? b : a));
    return {
      class: worst.kind,
      evidence: [worst.why, ...harms.filter((h) => h !== worst).map((h) => h.why)],
    };
  }
  if (unknowns.length > 0) return { class: 'unknown', evidence: unknowns };

  // An annotation counts only beside a word that agrees: a hint alone is a claim, not evidence
  // (a false `readOnlyHint: true` on a tool named in a language the lists do not know).
  if (safe.length > 0 && readOnly) safe.push({ kind: 'read', why: 'declares readOnlyHint: true' });
  // A tool named by what it returns has no verb to agree with its hint: its words may still do.
  const agreed = safe.length === 0 ? readOnlyAgreed({ ...d, name: d.tool.name }) : undefined;
  if (agreed !== undefined) return { class: 'read', evidence: [agreed] };
  if (safe.length === 0) {
    // Say so when a hint claimed safety: the reader sees why it did not count.
    const claim = readOnly
      ? 'readOnlyHint: true'
      : ann?.['destructiveHint'] === false
        ? 'destructiveHint: false'
        : undefined;
    return {
      class: 'unknown',
      evidence: [
        claim === undefined
          ? 'no verb it knows in its name or description, and no annotation that says read-only or additive'
          : `no verb it knows in its name or description; it declares ${claim}, a claim no word of it agrees with`,
      ],
    };
  }
  // Among the safe classes the less safe holds: a `create_…` tool declaring read-only creates;
  // `readOnlyHint: false` rules out a reader.
  const creates = safe.filter((s) => s.kind === 'create');
  if (creates.length > 0 || ann?.['readOnlyHint'] === false) {
    const why =
      creates.length > 0
        ? creates.map((s) => s.why)
        : [...safe.map((s) => s.why), 'declares readOnlyHint: false'];
    return { class: 'create', evidence: why };
  }
  return { class: 'read', evidence: safe.map((s) => s.why) };
}

/**
 * Classifies a prompt or a resource template: a read by the protocol (`prompts/get`,
 * `resources/read`), unless its name or description says it destroys.
 */
export function classifyReadable(
  name: string,
  description: string | undefined,
  what: 'prompts/get' | 'resources/read',
): Classified {
  const readings = [readName(name), description ? readDescription(description) : emptyReading()];
  // A prompt's or a template's name is mostly its topic (`order_help`, `deploy_checklist`): only a
  // word that destroys holds one back.
  const harm = readings.find((r) => r.harm?.kind === 'destroy')?.harm;
  if (harm !== undefined) return { class: harm.kind, evidence: [`it says ${harm.word}`] };
  const unknown = readings.find((r) => r.unknown !== undefined)?.unknown;
  if (unknown !== undefined)
    return { class: 'unknown', evidence: [`it has ${unknown}, a word it cannot read`] };
  return { class: 'read', evidence: [`${what} reads, by the protocol`] };
}
