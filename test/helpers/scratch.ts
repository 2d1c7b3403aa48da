import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './spawn-stdio.js';

/** Where runs keep their builds: gitignored, inside the repository. */
export const SCRATCH = join(REPO_ROOT, '.stateguard-tmp');
const DAY_MS = 24 * 60 * 60 * 1000;

/** Removes the builds under SCRATCH named with this prefix that nobody touched for a day. */
export function removeStale(prefix: string): void {
  let entries: string[];
  try {
    entries = readdirSync(SCRATCH);
  } catch {
    return;
  }
  for (const name of entries) {
    if (!name.startsWith(prefix)) continue;
    const path = join(SCRATCH, name);
    try {
      if (Date.now() - statSync(path).mtimeMs > DAY_MS)
        rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed by another run meanwhile.
    }
  }
}
