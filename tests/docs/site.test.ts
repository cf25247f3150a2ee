// The server's pages, end to end in Debian's Chromium: `GET /` is a landing page linking the API
// reference (/docs), the SDK reference (/docs/client/, TypeDoc, grouped, with an intro page) and
// the console; /docs and /docs/client link to each other; every page carries the same
// Content-Security-Policy; nothing leaves 127.0.0.1. Served by the CLI (`pnpm start`) from the
// checkout's built docs (scripts/docs.mjs; the server build writes docs/client/ too).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_CSP } from '../../packages/server/src/http/pages.js';
import { LANDING_LINKS } from '../../packages/server/src/http/landing.js';
import { spawnCli, type CliProcess } from '../support/cli-process.js';
import { launchChromium, staysOnMachine, type ChromiumSession } from '../support/chromium.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('the landing page, /docs and /docs/client', () => {
  let cli: CliProcess | undefined;
  let origin = '';
  let chromium: ChromiumSession;

  beforeAll(async () => {
    // The API page from the current spec (as tests/docs/docs.test.ts does); the SDK reference as
    // the build left it (the server's build runs scripts/docs.mjs --client), else built here.
    execFileSync(process.execPath, ['scripts/docs.mjs', '--api'], { cwd: root, stdio: 'pipe' });
    if (!existsSync(join(root, 'docs/client/index.html'))) execFileSync(process.execPath, ['scripts/docs.mjs', '--client'], { cwd: root, stdio: 'pipe' });
    // The Python SDK reference from the current source (scripts/python-docs.py, seconds).
    execFileSync(process.execPath, ['scripts/docs.mjs', '--python', '--strict'], { cwd: root, stdio: 'pipe' });
    cli = spawnCli(['--host', '127.0.0.1', '--port', '0']);
    origin = await cli.listening();
    chromium = await launchChromium();
  }, 240_000);

  afterAll(async () => {
    await chromium?.close();
    await cli?.stop();
  });

  it('answers GET / with a page linking /docs, /docs/client/ and /console', async () => {
    const { page } = chromium;
    const response = await page.goto(`${origin}/`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toBe(PAGE_CSP);
    const hrefs = await page.locator('a').evaluateAll((links) => links.map((link) => new URL((link as HTMLAnchorElement).href).pathname));
    expect(hrefs).toEqual(LANDING_LINKS.map((link) => link.path));
    expect(hrefs).toEqual(expect.arrayContaining(['/docs', '/docs/client/', '/console']));
    // The same page under the /api mount links beneath it.
    await page.goto(`${origin}/api`, { waitUntil: 'load' });
    const underApi = await page.locator('a').evaluateAll((links) => links.map((link) => new URL((link as HTMLAnchorElement).href).pathname));
    expect(underApi).toContain('/api/docs/client/');
  }, 60_000);

  it('serves the grouped SDK reference with its intro page, linked both ways with /docs', async () => {
    const { page } = chromium;
    await page.goto(`${origin}/`, { waitUntil: 'load' });
    await page.getByRole('link', { name: 'SDK reference', exact: true }).click();
    await page.waitForURL(`${origin}/docs/client/`);
    expect(await page.title()).toContain('Leasehold SDK');
    await expect.poll(() => page.locator('h1, h2').allInnerTexts()).toEqual(expect.arrayContaining(['Leasehold SDK reference', 'Where to start']));

    // The client module's index reads by purpose: its groups in order, Leasehold before the errors.
    const clientModule = await page.locator('a[href$="modules/_leasehold_client.html"]').first().evaluate((link) => (link as HTMLAnchorElement).href);
    await page.goto(clientModule, { waitUntil: 'load' });
    const groups = (await page.locator('h2').allInnerTexts()).map((text) => text.trim());
    const order = ['Client', 'Handles and leases', 'Errors', 'Stores'].map((group) => groups.findIndex((text) => text.startsWith(group)));
    expect(order.every((index) => index >= 0), `groups on the page: ${groups.join(' | ')}`).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);

    // SDK reference → API reference (a relative link, from a nested page too).
    await page.getByRole('link', { name: 'API reference (HTTP)' }).first().click();
    await page.waitForURL(`${origin}/docs`);
    // API reference → SDK reference.
    const back = page.getByRole('link', { name: /SDK reference/ });
    expect(new URL(await back.evaluate((link) => (link as HTMLAnchorElement).href)).pathname).toBe('/docs/client/');
    await back.click();
    await page.waitForURL(`${origin}/docs/client/`);
  }, 120_000);

  it('redirects /docs/client to /docs/client/, sends the page CSP, 404s what is not there', async () => {
    const redirect = await fetch(`${origin}/docs/client`, { redirect: 'manual' });
    expect(redirect.status).toBe(308);
    expect(redirect.headers.get('location')).toBe('client/');
    for (const path of ['/', '/docs', '/docs/client/', '/docs/client/assets/style.css']) {
      const response = await fetch(`${origin}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-security-policy'), path).toBe(PAGE_CSP);
    }
    expect((await fetch(`${origin}/docs/client/nope.html`)).status).toBe(404);
    expect((await fetch(`${origin}/docs/client/..%2F..%2Fpackage.json`)).status).toBe(404);
  }, 30_000);

  it('serves the Python SDK reference at /docs/python/: every name of leasehold.__all__, linked from the landing page', async () => {
    const init = readFileSync(join(root, 'packages/python/src/leasehold/__init__.py'), 'utf8');
    const names = [...(/__all__ = \[([^\]]*)\]/.exec(init)?.[1] ?? '').matchAll(/"([^"]+)"/g)].map((m) => m[1]!).filter((n) => n !== '__version__');
    expect(names.length).toBeGreaterThan(40);
    const { page } = chromium;
    await page.goto(`${origin}/`, { waitUntil: 'load' });
    await page.getByRole('link', { name: 'Python SDK reference' }).click();
    await page.waitForURL(`${origin}/docs/python/`);
    const ids = await page.locator('section.entry').evaluateAll((sections) => sections.map((s) => s.id));
    expect([...ids].sort()).toEqual([...names].sort());
    // A lease's signals and methods are documented, inherited ones included.
    expect(await page.locator('[id="SpaceLease.raise_if_lost"]').count()).toBe(1);
    expect(await page.locator('[id="SpaceLease.lost"]').innerText()).toContain('can no longer be trusted');
    const redirect = await fetch(`${origin}/docs/python`, { redirect: 'manual' });
    expect([redirect.status, redirect.headers.get('location')]).toEqual([308, 'python/']);
    const index = await fetch(`${origin}/docs/python/`);
    expect(index.headers.get('content-security-policy')).toBe(PAGE_CSP);
    expect(Buffer.byteLength(await index.text())).toBeLessThan(1024 * 1024);
    expect((await fetch(`${origin}/docs/python/..%2F..%2Fpackage.json`)).status).toBe(404);
  }, 60_000);

  it("sends the API reference template's policy as the CSP header (one policy for every page)", () => {
    expect(readFileSync(join(root, 'docs/api-template.hbs'), 'utf8')).toContain(`content="${PAGE_CSP}"`);
  });

  it('loaded nothing from off the machine and raised no page errors', () => {
    expect(chromium.requests.length).toBeGreaterThan(0);
    expect(chromium.requests.filter((url) => !staysOnMachine(url)), 'requests that left the machine').toEqual([]);
    expect(chromium.pageErrors).toEqual([]);
    expect(chromium.consoleErrors).toEqual([]);
  });
});
