/**
 * GitHub code scanning's documented constraints on an uploaded SARIF file, as a check. Sources:
 * - "SARIF support for code scanning" (docs.github.com/en/code-security/reference/code-scanning/
 *   sarif-files/sarif-support): the supported properties and which are required ("The empty
 *   string is not supported for required properties"), rule name ≤ 255 and descriptions ≤ 1024
 *   characters, `security-severity` in (0.0, 10.0], `precision` and level vocabularies, at least
 *   one location per result with `physicalLocation.artifactLocation.uri` and `region.startLine`,
 *   relative paths from the repository root ("Specifying the root for source files"), and
 *   `partialFingerprints` (of which code scanning reads `primaryLocationLineHash`);
 * - its upload limits (same page, from data/reusables/code-scanning/sarif-limits): 10 MB gzipped,
 *   20 runs per file, 25,000 results and 25,000 rules per run, 1,000 locations per result (and at
 *   most 10 in `locations`, per the result table), 20 tags per rule;
 * - the changelog "Code scanning will stop combining multiple SARIF runs uploaded in the same SARIF
 *   file" (github.blog, 2025-07-21; announced 2024-05-06): two runs of one tool and category in
 *   one file fail the upload.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- it walks an untyped, parsed log */
import { gzipSync } from 'node:zlib';

const MAX_GZIP_BYTES = 10 * 1024 * 1024;
const MAX_RUNS = 20;
const MAX_RESULTS = 25_000;
const MAX_RULES = 25_000;
const MAX_RESULT_LOCATIONS = 10;
const MAX_TAGS = 20;
const LEVELS = ['none', 'note', 'warning', 'error'];
const RULE_LEVELS = ['note', 'warning', 'error'];
const PRECISIONS = ['very-high', 'high', 'medium', 'low'];

const text = (v: any): v is string => typeof v === 'string' && v.length > 0;

/**
 * Why `uri` is not a repository-relative path GitHub can match, or undefined when it is one: no
 * scheme, not absolute, no `..`, `/` separators, and a valid URI reference (percent-encoded).
 */
export function uriProblem(uri: unknown): string | undefined {
  if (!text(uri)) return 'is empty';
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(uri)) return 'has a URL scheme';
  if (uri.startsWith('/') || uri.startsWith('\\')) return 'is absolute';
  if (uri.includes('\\')) return 'uses a backslash';
  if (uri.split('/').some((s) => s === '..' || s === '.' || s === '')) return 'has . , .. or //';
  if (/[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]/.test(uri) || /%(?![0-9A-Fa-f]{2})/.test(uri))
    return 'is not a percent-encoded URI reference';
  return undefined;
}

/** Every departure of `log` (and its serialized `bytes`) from GitHub's constraints. */
export function githubProblems(log: any, serialized: string): string[] {
  const out: string[] = [];
  const need = (ok: boolean, what: string): void => {
    if (!ok) out.push(what);
  };
  need(gzipSync(serialized).length <= MAX_GZIP_BYTES, 'over 10 MB gzipped');
  need(text(log?.$schema), '$schema is required');
  need(log?.version === '2.1.0', 'version must be 2.1.0');
  const runs: any[] = Array.isArray(log?.runs) ? log.runs : [];
  need(runs.length >= 1 && runs.length <= MAX_RUNS, `runs: ${runs.length} (1 to ${MAX_RUNS})`);
  const categories = runs.map((run) => {
    const id: string = run?.automationDetails?.id ?? '';
    return `${run?.tool?.driver?.name}\0${id.includes('/') ? id.slice(0, id.lastIndexOf('/')) : ''}`;
  });
  need(new Set(categories).size === categories.length, 'two runs of one tool and category');
  runs.forEach((run, i) => {
    const at = `runs[${i}]`;
    const driver = run?.tool?.driver;
    need(text(driver?.name), `${at}.tool.driver.name is required`);
    const rules: any[] = driver?.rules;
    need(Array.isArray(rules), `${at}.tool.driver.rules is required`);
    need((rules ?? []).length <= MAX_RULES, `${at}: over ${MAX_RULES} rules`);
    (rules ?? []).forEach((rule, j) => {
      const rp = `${at}.tool.driver.rules[${j}]`;
      need(text(rule?.id), `${rp}.id is required`);
      need(rule?.name === undefined || (text(rule.name) && rule.name.length <= 255), `${rp}.name`);
      for (const field of ['shortDescription', 'fullDescription'])
        need(
          text(rule?.[field]?.text) && rule[field].text.length <= 1024,
          `${rp}.${field}.text is required, at most 1024 characters`,
        );
      need(text(rule?.help?.text), `${rp}.help.text is required`);
      const level = rule?.defaultConfiguration?.level;
      need(level === undefined || RULE_LEVELS.includes(level), `${rp}: default level ${level}`);
      const props = rule?.properties ?? {};
      need(
        props.precision === undefined || PRECISIONS.includes(props.precision),
        `${rp}: precision ${props.precision}`,
      );
      need((props.tags ?? []).length <= MAX_TAGS, `${rp}: over ${MAX_TAGS} tags`);
      const severity = props['security-severity'];
      if (severity !== undefined) {
        const n = Number(severity);
        need(
          typeof severity === 'string' && n > 0 && n <= 10,
          `${rp}: security-severity ${severity} is not a string in (0, 10]`,
        );
        need((props.tags ?? []).includes('security'), `${rp}: security-severity without tag`);
      }
    });
    const ids = (rules ?? []).map((r) => r?.id);
    const results: any[] = Array.isArray(run?.results) ? run.results : [];
    need(Array.isArray(run?.results), `${at}.results is required`);
    need(results.length <= MAX_RESULTS, `${at}: over ${MAX_RESULTS} results`);
    results.forEach((r, j) => {
      const rp = `${at}.results[${j}]`;
      need(text(r?.message?.text), `${rp}.message.text is required`);
      need(text(r?.ruleId) && ids.includes(r.ruleId), `${rp}.ruleId names no rule`);
      if (r?.ruleIndex !== undefined)
        need(ids[r.ruleIndex] === r.ruleId, `${rp}.ruleIndex names another rule`);
      need(r?.level === undefined || LEVELS.includes(r.level), `${rp}.level ${r?.level}`);
      const locations: any[] = Array.isArray(r?.locations) ? r.locations : [];
      need(
        locations.length >= 1 && locations.length <= MAX_RESULT_LOCATIONS,
        `${rp}: ${locations.length} locations (1 to ${MAX_RESULT_LOCATIONS}; "expected at least one location")`,
      );
      locations.forEach((l, k) => {
        const lp = `${rp}.locations[${k}].physicalLocation`;
        const problem = uriProblem(l?.physicalLocation?.artifactLocation?.uri);
        need(problem === undefined, `${lp}.artifactLocation.uri ${problem}`);
        const line = l?.physicalLocation?.region?.startLine;
        need(Number.isInteger(line) && line >= 1, `${lp}.region.startLine is required (≥ 1)`);
      });
      const fingerprints = r?.partialFingerprints ?? {};
      need(
        Object.keys(fingerprints).length > 0 && Object.values(fingerprints).every((v) => text(v)),
        `${rp}.partialFingerprints is required`,
      );
      need(
        /^[0-9a-f]+:\d+$/.test(fingerprints.primaryLocationLineHash ?? ''),
        `${rp}.partialFingerprints.primaryLocationLineHash must be <hex>:<n>`,
      );
    });
  });
  return out;
}
