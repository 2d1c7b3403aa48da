/**
 * A real headless Chromium for the HTML report's test: Debian's `chromium` package, driven by
 * `playwright-core` (which never downloads a browser of its own). `.ci/run` installs the package;
 * where it is missing, `CHROMIUM_SKIP_REASON` says so and the browser checks are skipped with it.
 */
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';

/** Where Debian's package puts the browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

function chromiumMissing(): string | undefined {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
    return undefined;
  } catch {
    return `${CHROMIUM_PATH} is not installed (apt-get install -y chromium; .ci/run installs it)`;
  }
}

/** Why the browser checks cannot run here, or `undefined` when Chromium is available. */
export const CHROMIUM_SKIP_REASON: string | undefined = chromiumMissing();

/** A running headless browser with a fresh profile; `close` stops it and removes the profile. */
export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Starts Chromium headless with a new empty profile, and with its own background traffic (updates,
 * sync, field trials, QUIC) turned off: a test that watches every request must see only the page's.
 */
export async function startChromium(): Promise<Browser> {
  // Loaded here, not on import: the skip summary reads CHROMIUM_SKIP_REASON without a browser.
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'stateguard-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
