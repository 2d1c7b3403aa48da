#!/usr/bin/env node
/**
 * The entry point of the GitHub Action's scan step (action.yml runs `node dist/action/main.js`).
 */
import { runAction } from './run.js';

process.exitCode = await runAction({
  env: process.env,
  cwd: process.cwd(),
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
});
