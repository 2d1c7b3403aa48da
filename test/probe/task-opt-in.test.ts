/**
 * The task probes in the user's-word pass (issue #33, item 4): on a task server whose only task
 * tool runs a job (class `outside`, left alone by default), a default scan skips both task probes
 * naming the call plan and the flag; with `--allow-tool` for that tool the last pass runs them, and
 * the unbound store's flaw is confirmed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerFor } from '../../harness/twins/foreign/caller.js';
import { hostHttp } from '../../harness/twins/foreign/host.js';
import type { RunningTwin } from '../../harness/twins/foreign/twin.js';
import { quietLog } from '../../src/fixture/log.js';
import { taskBook } from '../../harness/twins/tasks/book.js';
import { taskServerFactory } from '../../harness/twins/tasks/server.js';
import { PROBES } from '../../src/probe/runner/registry.js';
import { runScan } from '../../src/probe/runner/scan.js';
import type { RunReport } from '../../src/probe/model/report.js';

const TOOL = 'run_report_job';
let twin: RunningTwin;
let byDefault: RunReport;
let optedIn: RunReport;

beforeAll(async () => {
  twin = await hostHttp({
    factory: taskServerFactory({
      book: taskBook('unbound', quietLog),
      callerOf: callerFor('http', { kind: 'bearer' }),
      tasks: true,
      taskTool: {
        name: TOOL,
        description: 'Runs a report job on the cluster. Answered with a task to poll.',
      },
    }),
    carrier: { kind: 'bearer' },
    path: '/mcp',
  });
  const scan = (allowTools: string[]) =>
    runScan({
      target: { kind: 'http', url: twin.url },
      probes: PROBES.filter((p) => p.id.startsWith('handle/task-')),
      timeoutMs: 30_000,
      deadlineMs: 120_000,
      allowTools,
    });
  byDefault = await scan([]);
  optedIn = await scan([TOOL]);
}, 240_000);
afterAll(async () => twin?.close());

const result = (r: RunReport, id: string) => r.probes.find((p) => p.id === id);

describe('the task probes and the call plan', () => {
  it('leave a task tool that runs a job alone by default, and say what would call it', () => {
    expect(byDefault.plan?.entries.find((e) => e.name === TOOL)).toMatchObject({
      class: 'outside',
      reach: `--allow-tool ${TOOL}`,
    });
    const cross = result(byDefault, 'handle/task-cross-principal');
    expect(cross?.verdict).toBe('skipped');
    expect(cross?.reason).toContain('the call plan calls none of its tools');
  });

  it("run in the user's-word pass with --allow-tool, and confirm the unbound store", () => {
    expect(optedIn.plan?.entries.find((e) => e.name === TOOL)?.calledBy).toBe('--allow-tool');
    expect(result(optedIn, 'handle/task-cross-principal')?.verdict).toBe('confirmed');
  });
});
