// The offline API reference, end to end: `scripts/docs.mjs --api` builds docs/api/index.html, the
// reference server's CLI serves it at /docs, and Debian's headless Chromium (driven by
// playwright-core, which never downloads a browser) renders every operation of the bundled spec
// without a single request leaving the machine.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocsHtmlLoader } from '../../packages/server/src/adapters/cli/docs-html.js';
import { spawnCli, type CliProcess } from '../support/cli-process.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** Set to a file path to keep a screenshot of the rendered reference. */
const screenshotPath = process.env.LEASEHOLD_DOCS_SCREENSHOT;

interface SpecOperation {
  operationId: string;
  method: string;
  path: string;
  summary: string;
  tag: string;
}

interface SpecDocument {
  tags?: { name: string }[];
  paths: Record<string, Record<string, { operationId?: string; summary?: string; tags?: string[] }>>;
}

const spec = JSON.parse(readFileSync(join(root, 'spec/dist/openapi.json'), 'utf8')) as SpecDocument;
const operations: SpecOperation[] = Object.entries(spec.paths).flatMap(([path, item]) =>
  Object.entries(item).flatMap(([method, operation]) =>
    operation.operationId === undefined
      ? []
      : [{ operationId: operation.operationId, method, path, summary: operation.summary ?? '', tag: operation.tags?.[0] ?? '' }],
  ),
);
const tags = [...new Set(operations.map((operation) => operation.tag))];

/** Matches an element whose whole text is `text`. */
function exactText(text: string): RegExp {
  return new RegExp(`^\\s*${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`);
}

/** Only loopback and in-page URLs: anything else would have left the machine. */
function staysOnMachine(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === 'data:' || parsed.protocol === 'blob:' || parsed.protocol === 'about:') return true;
  return ['http:', 'https:', 'ws:', 'wss:'].includes(parsed.protocol) && parsed.hostname === '127.0.0.1';
}

describe('offline API reference at /docs', () => {
  let cli: CliProcess | undefined;
  let origin = '';
  let context: BrowserContext | undefined;
  let userDataDir: string | undefined;
  let page: Page;
  const requests: string[] = [];
  const pageErrors: string[] = [];
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `${CHROMIUM} is missing: this test needs Debian's Chromium. Install it with ` +
          '`apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium` ' +
          '(scripts/bootstrap.sh does this on CI).',
      );
    }
    // Build the page from the current bundled spec, exactly as `pnpm run docs` does.
    execFileSync(process.execPath, ['scripts/docs.mjs', '--api'], { cwd: root, stdio: 'pipe' });
    cli = spawnCli(['--host', '127.0.0.1', '--port', '0']);
    origin = await cli.listening();
    userDataDir = mkdtempSync(join(tmpdir(), 'leasehold-docs-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1400, height: 900 },
      timeout: 30_000,
    });
    context.on('request', (request) => requests.push(request.url()));
    // Belt and braces: anything off the machine is recorded above and then refused here.
    await context.route('**/*', (route) => (staysOnMachine(route.request().url()) ? route.continue() : route.abort('blockedbyclient')));
    page = context.pages()[0] ?? (await context.newPage());
    page.on('websocket', (socket) => requests.push(socket.url()));
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
  }, 90_000);

  afterAll(async () => {
    await context?.close();
    await cli?.stop();
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  });

  it('renders every operation of the spec, with no request leaving the machine', async () => {
    expect(operations.length).toBeGreaterThan(0);
    const response = await page.goto(`${origin}/docs`, { waitUntil: 'networkidle' });
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-type']).toMatch(/^text\/html/);
    await expect.poll(() => page.title()).toBe((spec as { info?: { title?: string } }).info?.title);

    const content = page.locator('#api-content');
    const sidebar = page.locator('[data-component-name="Menu/Menu"]').first();
    await sidebar.waitFor({ state: 'visible', timeout: 15_000 });
    const missing: string[] = [];
    for (const tag of tags) {
      // Open the tag from the sidebar (Redoc renders the long page lazily around the current item),
      // then open each of its operations and look for the operation's heading in the content.
      const tagItem = sidebar.locator('[data-component-name="Menu/MenuItem"]').filter({ has: page.locator(`[data-text=${JSON.stringify(tag)}]`) }).first();
      await tagItem.locator('a').first().click();
      for (const operation of operations.filter((candidate) => candidate.tag === tag)) {
        const link = tagItem.locator(`[data-text=${JSON.stringify(operation.summary)}]`).first();
        try {
          await link.click({ timeout: 10_000 });
          await content
            .locator('h2')
            .filter({ hasText: exactText(operation.summary), visible: true })
            .first()
            .waitFor({ state: 'visible', timeout: 10_000 });
        } catch {
          missing.push(`${operation.operationId} (${operation.method.toUpperCase()} ${operation.path}): "${operation.summary}"`);
        }
      }
    }
    expect(missing, 'operations whose summary was not rendered').toEqual([]);

    if (screenshotPath) {
      await page.goto(`${origin}/docs`, { waitUntil: 'networkidle' });
      await page.screenshot({ path: screenshotPath });
    }

    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((url) => !staysOnMachine(url)), 'requests that left the machine').toEqual([]);
    expect(pageErrors, 'uncaught page errors').toEqual([]);
    expect(consoleErrors, 'console errors').toEqual([]);
  }, 120_000);

  it("renders the error-code catalogue: an entry for every code of the spec's ErrorCode, with its status", async () => {
    const schema = (spec as unknown as { components: { schemas: Record<string, { enum: string[]; 'x-error-catalogue': Record<string, { status: number }> }> } })
      .components.schemas.ErrorCode!;
    expect(schema.enum.length).toBeGreaterThan(30);
    await page.goto(`${origin}/docs`, { waitUntil: 'networkidle' });
    await page.locator('[id="section/error-codes"]').waitFor({ state: 'attached', timeout: 15_000 });
    const entries = await page.evaluate(
      (codes) =>
        codes.map((code) => {
          const heading = document.getElementById(`section/${code}`);
          return { code, heading: heading?.textContent?.trim() ?? null, next: heading?.closest('[data-section-id]')?.textContent ?? '' };
        }),
      schema.enum,
    );
    const missing = entries.filter((entry) => entry.heading !== entry.code).map((entry) => entry.code);
    expect(missing, 'codes without a catalogue entry in the rendered reference').toEqual([]);
    for (const entry of entries) expect(entry.next, entry.code).toContain(String(schema['x-error-catalogue'][entry.code]!.status));
  }, 60_000);

  it('opens the catalogue entry a doc_url from a real error answer points at, under every mount', async () => {
    for (const mount of ['', '/api']) {
      const answer = await fetch(`${origin}${mount}/v1/tasks/999999`, { headers: { authorization: 'Bearer lh_test_admin' } });
      const body = (await answer.json()) as { code: string; doc_url: string };
      expect([answer.status, body.code]).toEqual([404, 'task_not_found']);
      expect(body.doc_url).toBe(`${origin}${mount}/docs#section/task_not_found`);
      // A fresh tab, as following the link from an error log would open it.
      const tab = await context!.newPage();
      try {
        const opened = await tab.goto(body.doc_url, { waitUntil: 'networkidle' });
        expect(opened?.status()).toBe(200);
        const anchor = new URL(body.doc_url).hash.slice(1);
        const target = tab.locator(`[id="${anchor}"]`);
        await target.waitFor({ state: 'visible', timeout: 15_000 });
        expect((await target.textContent())?.trim()).toBe('task_not_found');
        // The page scrolled to it: the entry is in the viewport.
        await expect
          .poll(async () => target.evaluate((el) => { const box = el.getBoundingClientRect(); return box.top >= 0 && box.top < window.innerHeight; }))
          .toBe(true);
      } finally {
        await tab.close();
      }
    }
  }, 60_000);

  it('the served page declares a policy that refuses other origins', async () => {
    const html = await (await fetch(`${origin}/docs`)).text();
    expect(html).toContain('<div id="redoc">');
    expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'self' data: blob:;/);
    expect(html).not.toMatch(/<(?:script|img)\b[^>]*\bsrc\s*=\s*["']?(?:https?:)?\/\//i);
    expect(html).not.toMatch(/<link\b[^>]*\bhref\s*=\s*["']?(?:https?:)?\/\//i);
  });
});

describe('the CLI docs loader', () => {
  it('answers a page saying how to build the reference when there is none', () => {
    const missing = join(tmpdir(), 'leasehold-no-such-docs', 'index.html');
    const html = createDocsHtmlLoader({ files: [missing], buildIn: false })();
    expect(html).toContain('pnpm run docs');
    expect(html).toContain('<a href="openapi.json">');
  });

  it('answers the first page that exists, and re-reads it when it changes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'leasehold-docs-loader-'));
    try {
      const built = join(dir, 'index.html');
      writeFileSync(built, '<p>one</p>');
      const load = createDocsHtmlLoader({ files: [join(dir, 'missing.html'), built], buildIn: false });
      expect(load()).toBe('<p>one</p>');
      writeFileSync(built, '<p>two, longer</p>');
      expect(load()).toBe('<p>two, longer</p>');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
