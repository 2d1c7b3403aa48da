/**
 * Which tools the task probes try first: those `tools/list` declares as answering with a task
 * (`execution.taskSupport`), then the rest in the server's order, whatever language names them;
 * and the declaration as `tools/list` carries it, read strictly.
 */
import { describe, expect, it } from 'vitest';
import { makerOrder } from '../../src/probe/experiments/tasks.js';
import { readTools } from '../../src/probe/target/session-lists.js';
import type { ToolInfo } from '../../src/probe/model/tools.js';

describe('makerOrder', () => {
  it('puts declared task tools first (required, then optional), forbidden ones last, else the server order', () => {
    const tools: ToolInfo[] = [
      { name: 'a_forbidden', taskSupport: 'forbidden' },
      { name: 'b_plain' },
      { name: 'c_optional', taskSupport: 'optional' },
      { name: 'd_plain' },
      { name: 'e_required', taskSupport: 'required' },
      { name: 'f_plain' },
    ];
    expect(makerOrder(tools).map((t) => t.name)).toEqual([
      'e_required',
      'c_optional',
      'b_plain',
      'd_plain',
      'f_plain',
      'a_forbidden',
    ]);
  });

  it('reads nothing from names or descriptions: undeclared tools keep the server order', () => {
    const tools: ToolInfo[] = [
      { name: 'consultar', description: 'Consulta.' },
      { name: 'start_background_export_task', description: 'Long-running job, poll it.' },
      { name: '報告を作成', description: 'タスクを返す' },
    ];
    expect(makerOrder(tools).map((t) => t.name)).toEqual([
      'consultar',
      'start_background_export_task',
      '報告を作成',
    ]);
  });
});

describe('readTools and execution.taskSupport', () => {
  it('keeps the three declared values and drops anything else', () => {
    const into: ToolInfo[] = [];
    readTools(
      {
        tools: [
          { name: 'r', execution: { taskSupport: 'required' } },
          { name: 'o', execution: { taskSupport: 'optional' } },
          { name: 'f', execution: { taskSupport: 'forbidden' } },
          { name: 'x', execution: { taskSupport: 'always' } },
          { name: 'y', execution: 'required' },
          { name: 'z', execution: { taskSupport: { toString: 'required' } } },
        ],
      },
      into,
    );
    expect(into.map((t) => [t.name, t.taskSupport])).toEqual([
      ['r', 'required'],
      ['o', 'optional'],
      ['f', 'forbidden'],
      ['x', undefined],
      ['y', undefined],
      ['z', undefined],
    ]);
  });
});
