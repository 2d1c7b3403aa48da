/**
 * A structural check of a SARIF 2.1.0 log: the fields the spec requires, their enums, and the
 * cross-references between them (a result's rule, a notification's rule, kind and level). It is
 * not the full JSON schema, but every rule here is one a consumer relies on.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- it walks an untyped, parsed log */

const KINDS = ['notApplicable', 'pass', 'fail', 'review', 'open', 'informational'];
const LEVELS = ['none', 'note', 'warning', 'error'];
const BASELINE_STATES = ['new', 'unchanged', 'updated', 'absent'];
const SUPPRESSION_KINDS = ['inSource', 'external'];
const SUPPRESSION_STATUSES = ['accepted', 'underReview', 'rejected'];

/** Every problem found in `log`, as `path: what`; empty when the log is sound. */
export function sarifProblems(log: any): string[] {
  const out: string[] = [];
  const need = (ok: boolean, what: string): void => {
    if (!ok) out.push(what);
  };
  need(log?.version === '2.1.0', 'version must be "2.1.0"');
  need(
    typeof log?.$schema === 'string' && log.$schema.endsWith('sarif-schema-2.1.0.json'),
    '$schema must name the 2.1.0 schema',
  );
  need(Array.isArray(log?.runs) && log.runs.length > 0, 'runs must be a non-empty array');
  (log?.runs ?? []).forEach((run: any, i: number) => {
    const at = `runs[${i}]`;
    const driver = run?.tool?.driver;
    need(
      typeof driver?.name === 'string' && driver.name.length > 0,
      `${at}.tool.driver.name is required`,
    );
    const rules: any[] = driver?.rules ?? [];
    const ids = rules.map((r) => r?.id);
    need(
      ids.every((id) => typeof id === 'string' && id.length > 0),
      `${at}: every rule needs an id`,
    );
    need(new Set(ids).size === ids.length, `${at}: rule ids must be unique`);
    const ruleRef = (path: string, id: unknown, index: unknown): void => {
      if (index === undefined || index === -1) return;
      need(
        Number.isInteger(index) && rules[index as number] !== undefined,
        `${path} ${String(index)} names no rule`,
      );
      const named = rules[index as number]?.id;
      if (named !== undefined && id !== undefined)
        need(named === id, `${path} ${String(index)} names rule ${named}, not ${String(id)}`);
    };
    (run?.results ?? []).forEach((r: any, j: number) => {
      const rp = `${at}.results[${j}]`;
      need(
        typeof r?.message?.text === 'string' && r.message.text.length > 0,
        `${rp}.message.text is required`,
      );
      need(
        r?.ruleId === undefined || ids.includes(r.ruleId),
        `${rp}.ruleId ${r?.ruleId} is not a rule`,
      );
      ruleRef(`${rp}.ruleIndex`, r?.ruleId, r?.ruleIndex);
      const kind = r?.kind ?? 'fail';
      need(KINDS.includes(kind), `${rp}.kind ${kind} is not a SARIF kind`);
      need(
        r?.level === undefined || LEVELS.includes(r.level),
        `${rp}.level ${r?.level} is not a SARIF level`,
      );
      if (kind !== 'fail' && r?.level !== undefined)
        need(r.level === 'none', `${rp}: level ${r.level} with kind ${kind} (must be none)`);
      need(
        r?.locations === undefined || Array.isArray(r.locations),
        `${rp}.locations must be an array`,
      );
      need(
        r?.baselineState === undefined || BASELINE_STATES.includes(r.baselineState),
        `${rp}.baselineState ${r?.baselineState} is not a SARIF baseline state`,
      );
      if (r?.suppressions !== undefined && r.suppressions !== null) {
        need(Array.isArray(r.suppressions), `${rp}.suppressions must be an array`);
        (Array.isArray(r.suppressions) ? r.suppressions : []).forEach((s: any, k: number) => {
          need(SUPPRESSION_KINDS.includes(s?.kind), `${rp}.suppressions[${k}].kind is required`);
          need(
            s?.status === undefined || SUPPRESSION_STATUSES.includes(s.status),
            `${rp}.suppressions[${k}].status ${s?.status} is not a SARIF status`,
          );
        });
      }
    });
    // SARIF 2.1.0: baselineState on every result of a run or on none; suppressions all null or
    // all non-null, so a consumer can tell from one result whether the run was compared at all.
    const results: any[] = run?.results ?? [];
    const withState = results.filter((r) => r?.baselineState !== undefined).length;
    need(
      withState === 0 || withState === results.length,
      `${at}: baselineState on ${withState} of ${results.length} results (all or none)`,
    );
    const withSuppressions = results.filter(
      (r) => r?.suppressions !== undefined && r.suppressions !== null,
    ).length;
    need(
      withSuppressions === 0 || withSuppressions === results.length,
      `${at}: suppressions on ${withSuppressions} of ${results.length} results (all or none)`,
    );
    (run?.invocations ?? []).forEach((inv: any, j: number) => {
      const ip = `${at}.invocations[${j}]`;
      need(
        typeof inv?.executionSuccessful === 'boolean',
        `${ip}.executionSuccessful must be a boolean`,
      );
      (inv?.toolExecutionNotifications ?? []).forEach((n: any, k: number) => {
        const np = `${ip}.toolExecutionNotifications[${k}]`;
        need(typeof n?.message?.text === 'string', `${np}.message.text is required`);
        need(
          n?.level === undefined || LEVELS.includes(n.level),
          `${np}.level is not a SARIF level`,
        );
        if (n?.associatedRule)
          ruleRef(`${np}.associatedRule.index`, n.associatedRule.id, n.associatedRule.index);
      });
    });
  });
  return out;
}
