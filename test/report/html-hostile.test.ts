/**
 * Issue 11: the HTML report of a target whose every string (server name, tool names, descriptions,
 * answers, error messages) carries markup and script is inert (`markup` in servers/hostile-target.ts). A real scan of a real server (HTTP
 * and stdio) is rendered, then:
 * - parsed with parse5 (the WHATWG parsing algorithm): no parse error, no script, no event-handler
 *   attribute, no `javascript:` URL, no element or attribute that could load anything, one style
 *   sheet and it is ours, and the hostile text present as text;
 * - opened in a real headless Chromium (one launch for every check): no dialog, no request but the
 *   page's own, no console error, no CSP violation, and the verdict table and a fold work. Two
 *   control pages, with the same markup left raw, show these checks catch an injection.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBES } from '../../src/probe/runner/registry.js';
import { runScan } from '../../src/probe/runner/scan.js';
import type { CallPlan } from '../../src/probe/model/tools.js';
import type { CombinedReport, RunReport } from '../../src/probe/model/report.js';
import { html } from '../../src/report/html.js';
import { clipRaw, shellWord } from '../../src/report/plan.js';
import { escapeJsonText, visible } from '../../src/report/visible.js';
import { CHROMIUM_SKIP_REASON, startChromium, type Browser } from '../helpers/chromium.js';
import { MARKUP, NAME_MARKUP } from '../servers/hostile-target.js';
import { startHttpServer, type TestHttpServer } from '../servers/http-server.js';
import { stdioTarget } from '../probe/engine/helpers.js';
import { elements, parseStrict, textOf } from './html-dom.js';
import { report as sample } from './sample-report.js';

const options = { color: false, evidence: 'summary' } as const;

/** A call plan whose every name and piece of evidence is the markup: one entry called, two not. */
const hostilePlan: CallPlan = {
  allowTools: [],
  includeDestructive: false,
  entries: [
    {
      kind: 'tool',
      name: `list${NAME_MARKUP}`,
      class: 'read',
      evidence: [MARKUP],
      calledBy: 'default',
    },
    {
      kind: 'tool',
      name: `wipe${MARKUP}`,
      class: 'destroy',
      evidence: [`its description says ${MARKUP}`, MARKUP],
      reach: `--allow-tool wipe${MARKUP}`,
    },
    {
      kind: 'resource-template',
      name: `mail://${MARKUP}/{to}`,
      class: 'outside',
      evidence: [MARKUP],
      reach: '--include-destructive',
    },
  ],
};

/** What the test reads inside the page (the test is compiled without the DOM's types). */
interface InPage {
  violations: string[];
  getComputedStyle(e: unknown): { backgroundColor: string };
  document: {
    addEventListener(
      type: 'securitypolicyviolation',
      listener: (e: { violatedDirective: string; blockedURI: string }) => void,
    ): void;
  };
}

/** Elements that load, embed, run or submit something; none may come from the target. */
const ACTIVE = new Set([
  'script',
  'iframe',
  'frame',
  'object',
  'embed',
  'img',
  'link',
  'base',
  'form',
  'svg',
  'math',
  'video',
  'audio',
  'source',
  'input',
  'button',
  'textarea',
]);
/** Every attribute the reporter writes; anything else came from somewhere it should not have. */
const ATTRIBUTES = new Set([
  'lang',
  'charset',
  'http-equiv',
  'name',
  'content',
  'class',
  'id',
  'href',
  'scope',
  'open',
  'aria-hidden',
  'aria-labelledby',
]);

/** Checks `page` structurally and returns its text; `ours` is the style sheet of a benign page. */
function checkStructure(page: string, ours: string): string {
  const doc = parseStrict(page);
  const all = elements(doc);
  for (const e of all) {
    expect(ACTIVE.has(e.nodeName), `<${e.nodeName}>`).toBe(false);
    for (const a of e.attrs) {
      expect(ATTRIBUTES.has(a.name), `attribute ${a.name} on <${e.nodeName}>`).toBe(true);
      expect(a.name.startsWith('on'), a.name).toBe(false);
      expect(a.value, `${a.name} on <${e.nodeName}>`).not.toMatch(/javascript:|url\(|:\/\//i);
      if (a.name === 'href') expect(a.value).toMatch(/^#[a-z0-9-]+$/);
    }
    if (e.nodeName === 'meta') {
      const equiv = e.attrs.find((a) => a.name === 'http-equiv')?.value;
      expect(equiv === undefined || equiv === 'Content-Security-Policy', equiv).toBe(true);
    }
  }
  const styles = all.filter((e) => e.nodeName === 'style');
  expect(styles).toHaveLength(1);
  expect(textOf(styles[0] as (typeof all)[number])).toBe(ours);
  return textOf(doc);
}

describe('the HTML report of a target that answers with markup and script', () => {
  let server: TestHttpServer;
  let reports: RunReport[];
  let ours: string;
  const pages: Record<string, string> = {};

  beforeAll(async () => {
    server = await startHttpServer('markup');
    reports = await Promise.all([
      runScan({ target: { kind: 'http', url: server.url }, probes: PROBES }),
      runScan({ target: stdioTarget('markup'), probes: PROBES }),
    ]);
    const combined: CombinedReport = {
      schemaVersion: 1,
      kind: 'combined',
      tool: reports[0]?.tool ?? { name: 'stateguard', version: '0' },
      configs: [`mcp${MARKUP}.json`],
      startedAt: '2026-01-01T00:00:00.000Z',
      ms: 1,
      servers: reports.map((r, i) => ({
        ...r,
        server: { name: `${MARKUP}${i}`, file: `mcp${MARKUP}.json`, line: 2, format: 'vscode' },
      })),
    };
    pages.http = html.render(reports[0] as RunReport, options);
    pages.stdio = html.render(reports[1] as RunReport, { ...options, evidence: 'full' });
    pages.combined = html.renderCombined?.(combined, options) ?? '';
    // The lead's scan does not fill the plan yet: the real report of the markup target, with one.
    pages.plan = html.render({ ...(reports[0] as RunReport), plan: hostilePlan }, options);
    // The style sheet of a page whose every string is ours (the sample report).
    const benign = elements(parseStrict(html.render(sample, options)));
    ours = textOf(benign.find((e) => e.nodeName === 'style') as (typeof benign)[number]);
  }, 60_000);

  afterAll(async () => {
    await server?.close();
  });

  it('reached the hostile strings: server name, tool names, results and a JSON-RPC error', () => {
    for (const r of reports) {
      expect(r.protocol.serverInfo?.name).toContain(NAME_MARKUP);
      expect(r.protocol.toolNames.every((t) => t.endsWith(NAME_MARKUP))).toBe(true);
      expect(
        r.probes.filter((p) =>
          p.evidence.some((e) => e.kind === r.target.kind || e.kind === 'jsonrpc'),
        ).length,
      ).toBeGreaterThan(2);
      const evidence = JSON.stringify([r.surface?.evidence, r.probes.map((p) => p.evidence)]);
      expect(evidence).toContain(JSON.stringify(`unknown workspace`).slice(1, -1));
      expect(evidence).toContain(JSON.stringify(MARKUP).slice(1, -1));
    }
  });

  it.each(['http', 'stdio', 'combined', 'plan'])(
    'the %s page parses cleanly, holds nothing active, and shows the markup as text',
    (name) => {
      const text = checkStructure(pages[name] ?? '', ours);
      // The whole hostile string, as text: tags, quotes, the entity undecoded, the bidi override visible.
      expect(text).toContain(escapeJsonText(JSON.stringify(MARKUP)).slice(1, -1));
      expect(text).toContain(NAME_MARKUP);
      expect(text).toContain('&lt;script&gt;');
      expect(text).toContain('\\u202egnp.exe');
      expect(text).not.toContain('\u202e');
    },
  );

  describe.skipIf(CHROMIUM_SKIP_REASON !== undefined)('in a real headless Chromium', () => {
    let browser: Browser;
    let dir: string;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'stateguard-html-'));
      browser = await startChromium();
    }, 30_000);
    afterAll(async () => {
      await browser?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    /** Opens `content` as a file and records everything the page did. */
    async function open(name: string, content: string) {
      const file = join(dir, `${name}.html`);
      writeFileSync(file, content);
      const url = pathToFileURL(file).href;
      const page = await browser.context.newPage();
      const seen = { dialogs: [] as string[], requests: [] as string[], errors: [] as string[] };
      page.on('dialog', (d) => {
        seen.dialogs.push(d.message());
        // The control page may close (or the dialog go) before the dismissal lands: it was seen.
        d.dismiss().catch(() => undefined);
      });
      page.on('request', (r) => seen.requests.push(r.url()));
      page.on('console', (m) => {
        if (m.type() === 'error') seen.errors.push(m.text());
      });
      page.on('pageerror', (e) => seen.errors.push(e.message));
      // Injected by the browser's debugging protocol, outside the page's CSP: counts violations.
      await page.addInitScript(() => {
        const g = globalThis as unknown as InPage;
        g.violations = [];
        g.document.addEventListener('securitypolicyviolation', (e) =>
          g.violations.push(`${e.violatedDirective} ${e.blockedURI}`),
        );
      });
      await page.goto(url, { waitUntil: 'load' });
      const violations = await page.evaluate(() => (globalThis as unknown as InPage).violations);
      return { page, url, seen: { ...seen, violations } };
    }

    it('runs nothing, loads nothing, violates nothing; the table reads and a fold opens', async () => {
      for (const name of ['http', 'stdio', 'combined']) {
        const { page, url, seen } = await open(name, pages[name] ?? '');
        expect(seen, name).toEqual({ dialogs: [], requests: [url], errors: [], violations: [] });
        const rows = page.locator(
          `table.${name === 'combined' ? 'servers' : 'matrix'} > tbody > tr`,
        );
        if (name === 'combined') {
          expect(await rows.count()).toBe(2);
          expect(await rows.first().locator('th').textContent()).toBe(visible(`${MARKUP}0`));
        } else {
          const report = reports[name === 'http' ? 0 : 1] as RunReport;
          expect(await rows.count()).toBe(report.probes.length);
          // What needs action first: confirmed, errored, then the undecided skips, refuted, skipped.
          const rank = (p: RunReport['probes'][number]): number =>
            p.verdict === 'confirmed'
              ? 0
              : p.verdict === 'errored'
                ? 2
                : p.verdict === 'skipped' && (p.decideWith?.length ?? 0) > 0
                  ? 3
                  : p.verdict === 'refuted'
                    ? 4
                    : 5;
          const shown = [...report.probes].sort((a, b) => rank(a) - rank(b));
          for (const [i, p] of shown.entries())
            expect(await rows.nth(i).innerText()).toContain(p.verdict);
          // The top of the page counts the confirmed findings and links to the first card.
          const confirmed = report.probes.filter((p) => p.verdict === 'confirmed').length;
          const lead = page.locator('p.lead a');
          if (confirmed === 0) expect(await lead.count()).toBe(0);
          else {
            expect(await lead.innerText()).toContain(`${confirmed} confirmed finding`);
            const first = page.locator('section.probe').first();
            expect(await lead.getAttribute('href')).toBe(`#${await first.getAttribute('id')}`);
            expect(await first.getAttribute('class')).toBe('probe v-confirmed');
          }
        }
        const fold = page.locator('.probe details').first();
        const pre = fold.locator('pre');
        const unfolded = name === 'stdio'; // --evidence full
        expect(await fold.evaluate((d) => (d as unknown as { open: boolean }).open)).toBe(unfolded);
        if (!unfolded) {
          expect(await pre.isVisible()).toBe(false);
          await fold.locator('summary').click();
        }
        expect(await fold.evaluate((d) => (d as unknown as { open: boolean }).open)).toBe(true);
        expect(await pre.isVisible()).toBe(true);
        expect(await pre.innerText()).toContain('"jsonrpc"');
        await page.close();
      }
    }, 60_000);

    it('shows a hostile call plan as text, each entry left alone marked in words', async () => {
      const { page, url, seen } = await open('plan', pages.plan ?? '');
      expect(seen).toEqual({ dialogs: [], requests: [url], errors: [], violations: [] });
      const rows = page.locator('table.plan > tbody > tr');
      expect(await rows.count()).toBe(3);
      expect(await rows.nth(0).locator('th').textContent()).toBe(visible(`list${NAME_MARKUP}`));
      expect(await page.locator('table.plan > tbody > tr.left').count()).toBe(2);
      for (const i of [1, 2]) {
        const badge = rows.nth(i).locator('.badge.left');
        expect(await badge.isVisible()).toBe(true);
        expect(await badge.innerText()).toBe('left alone');
      }
      // Quoted for the shell, the name cut to 200 code points (a page is no place for a megabyte).
      expect(await rows.nth(1).locator('code.reach').textContent()).toBe(
        visible(`--allow-tool ${shellWord(clipRaw(`wipe${MARKUP}`, 200))}`),
      );
      expect(await rows.nth(2).locator('code.reach').textContent()).toBe('--include-destructive');
      // The left-alone rows look different from the called one, not only in words.
      const background = (i: number) =>
        rows
          .nth(i)
          .locator('th')
          .evaluate((e) => (globalThis as unknown as InPage).getComputedStyle(e).backgroundColor);
      expect(await background(1)).not.toBe(await background(0));
      await page.close();
    }, 60_000);

    it('would catch an injection: the same markup left raw fires a dialog, or with the CSP is blocked', async () => {
      const report = pages.http ?? '';
      const raw = report.replace('<main>', `<main>${MARKUP}`);
      const guarded = await open('raw-with-csp', raw);
      expect(guarded.seen.dialogs).toEqual([]);
      expect(guarded.seen.violations.length).toBeGreaterThan(0);
      await guarded.page.close();
      const bare = await open(
        'raw-without-csp',
        raw.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, ''),
      );
      expect(bare.seen.dialogs.length).toBeGreaterThan(0);
      expect(bare.seen.requests.some((u) => u.startsWith('http://evil.example/'))).toBe(true);
      await bare.page.close();
    }, 60_000);
  });
});
