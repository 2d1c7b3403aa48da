/**
 * What a stdio server's crash says is its error line, not the tail of its stack: a runtime prints
 * the error first (Node) or last (Python), then frames and a footer that say nothing. The stderr
 * texts here are as the runtimes print them; the CLI test (test/cli/messages.test.ts) runs Node.
 */
import { describe, expect, it } from 'vitest';
import { errorLine, exitFailure } from '../../src/probe/target/stdio-output.js';

const lines = (text: string): string[] => text.split('\n');

describe('errorLine', () => {
  it.each([
    [
      'Node, CommonJS',
      `node:internal/modules/cjs/loader:1228\n  throw err;\n  ^\n\nError: Cannot find module '/nonexistent.js'\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)\n    at node:internal/main/run_main_module:28:49 {\n  code: 'MODULE_NOT_FOUND',\n  requireStack: []\n}\n\nNode.js v20.20.2`,
      "Error: Cannot find module '/nonexistent.js'",
    ],
    [
      'Node, ESM',
      `node:internal/modules/esm/resolve:264\n    throw new ERR_MODULE_NOT_FOUND(\n          ^\n\nError [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /srv/server.js\n    at packageResolve (node:internal/modules/esm/resolve:854:9) {\n  code: 'ERR_MODULE_NOT_FOUND'\n}\n\nNode.js v20.20.2`,
      "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /srv/server.js",
    ],
    [
      'Node, an error with a cause (the cause is indented)',
      `/srv/server.js:4\n  throw new TypeError('no config', { cause });\n  ^\n\nTypeError: no config\n    at /srv/server.js:4:9 {\n  [cause]: Error: ENOENT: no such file\n}`,
      'TypeError: no config',
    ],
    [
      'Python, a chained traceback: the last error ended the process',
      `Traceback (most recent call last):\n  File "/srv/server.py", line 1, in <module>\n    import mcp\nImportError: first\n\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n  File "/srv/server.py", line 3, in <module>\nModuleNotFoundError: No module named 'mcp'`,
      "ModuleNotFoundError: No module named 'mcp'",
    ],
    [
      'Rust',
      `thread 'main' panicked at src/main.rs:3:5:\nno config\nnote: run with \`RUST_BACKTRACE=1\``,
      "thread 'main' panicked at src/main.rs:3:5: no config",
    ],
    [
      'a CLI',
      'Usage: server [options]\nerror: unknown option --stdio',
      'error: unknown option --stdio',
    ],
  ])('%s', (_, text, expected) => {
    expect(errorLine(lines(text))).toBe(expected);
  });

  it('is undefined when no line states an error, and the crash then quotes the last lines', () => {
    const stderr = ['starting', 'listening on stdio', 'bye'];
    expect(errorLine(stderr)).toBeUndefined();
    const ended = exitFailure(1, null, stderr);
    expect(ended).toMatchObject({
      detail:
        'server exited with code 1 before answering; its stderr ends: starting | listening on stdio | bye',
    });
  });
});
