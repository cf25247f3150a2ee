// The browser half of @leasehold/msw, as a bundler and a browser see the built packages:
// `esbuild --bundle --platform=browser` of an app importing '@leasehold/msw' picks the server's
// `browser` export condition (engine on Web Crypto, no `node:` module, no SQL store) and bundles
// with zero errors; then Debian's Chromium loads that app from 127.0.0.1, `setupWorker` starts
// MSW's service worker, and the browser client acquires, renews (the mock's manual clock moved
// in between) and releases a claim through it — nothing leaves 127.0.0.1.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale } from '../../scripts/pack-packages.mjs';
import { launchChromium, staysOnMachine, type ChromiumSession } from '../support/chromium.js';

const PACKAGES = fileURLToPath(new URL('../../packages/', import.meta.url));
const MSW = realpathSync(join(PACKAGES, 'msw/node_modules/msw'));
const BASE_URL = 'https://leasehold.test';
let work = '';

/** The page's app: MSW's worker with Leasehold's handlers, and the browser client calling through it. */
const APP = `import { setupWorker } from 'msw/browser';
import { createLeaseholdHandlers } from '@leasehold/msw';
import { Leasehold } from '@leasehold/client';

async function main() {
  const leasehold = createLeaseholdHandlers({ baseUrl: '${BASE_URL}' });
  const worker = setupWorker(...leasehold.handlers);
  await worker.start({ serviceWorker: { url: '/mockServiceWorker.js' }, onUnhandledRequest: 'error', quiet: true });
  const lh = new Leasehold({ baseUrl: '${BASE_URL}', apiKey: 'lh_test_admin' });
  try {
    const claim = lh.space('6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a').run(crypto.randomUUID(), { holder: 'browser-page' }).claim('reports/2026-11');
    const lease = await claim.acquire();
    const acquired = { fence: lease.fence, held: leasehold.server.control.stats().held, now: leasehold.server.control.now() };
    leasehold.scenario.advanceClock('20s');
    const renewal = await lease.renew();
    const renewed = { expiresAt: renewal.expiresAt, durationMs: renewal.durationMs, now: leasehold.server.control.now() };
    await lease.release();
    return { acquired, renewed, heldAfterRelease: leasehold.server.control.stats().held, controlled: navigator.serviceWorker.controller !== null };
  } finally {
    await lh.close();
    worker.stop();
  }
}
window.leaseholdMain = main;
`;

/** esbuild options of a browser bundle of the app, resolving the packages as installed. */
function browserBuild(entry: string): BuildOptions & { write: false; metafile: true } {
  // tsconfigRaw: the workspace's tsconfig maps @leasehold/* to sources; a consumer's bundler sees dist.
  return { entryPoints: [join(work, entry)], bundle: true, platform: 'browser', format: 'esm', write: false, metafile: true, logLevel: 'silent', absWorkingDir: work, tsconfigRaw: '{}' };
}

beforeAll(async () => {
  await buildIfStale();
  work = mkdtempSync(join(tmpdir(), 'leasehold-msw-browser-'));
  mkdirSync(join(work, 'node_modules/@leasehold'), { recursive: true });
  symlinkSync(join(PACKAGES, 'msw'), join(work, 'node_modules/@leasehold/msw'), 'dir');
  symlinkSync(join(PACKAGES, 'client'), join(work, 'node_modules/@leasehold/client'), 'dir');
  symlinkSync(MSW, join(work, 'node_modules/msw'), 'dir');
  writeFileSync(join(work, 'app.js'), APP);
  writeFileSync(join(work, 'handlers-only.js'), `export { createLeaseholdHandlers, leaseholdScenario, leaseholdError } from '@leasehold/msw';\n`);
}, 240_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('@leasehold/msw in the browser', () => {
  it('bundles for the browser with esbuild with zero errors, from its own dist (the portable server is bundled in it)', async () => {
    const result = await build(browserBuild('handlers-only.js'));
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((path) => path.includes('msw/dist/'))).toBe(true);
    expect(inputs.filter((path) => /server\/dist\/|node:|\/(pg|kysely|@electric-sql|undici)\//.test(path))).toEqual([]);
    const code = result.outputFiles[0]!.text;
    expect(code).not.toMatch(/from\s*["']node:|require\(["']node:|\bBuffer\b/);
  }, 60_000);

  describe('in Chromium, through setupWorker', () => {
    let site: Server;
    let origin = '';
    let chromium: ChromiumSession;

    beforeAll(async () => {
      const result = await build(browserBuild('app.js'));
      expect(result.errors).toEqual([]);
      const files: Record<string, { type: string; body: string | Buffer }> = {
        '/': { type: 'text/html', body: '<!doctype html><meta charset="utf-8"><title>leasehold msw</title><script type="module" src="/app.js"></script>' },
        '/app.js': { type: 'text/javascript', body: result.outputFiles[0]!.text },
        '/mockServiceWorker.js': { type: 'text/javascript', body: readFileSync(join(MSW, 'lib/mockServiceWorker.js')) },
      };
      site = createServer((request, response) => {
        const file = files[new URL(request.url ?? '/', 'http://127.0.0.1').pathname];
        if (!file) return void response.writeHead(404).end();
        response.writeHead(200, { 'content-type': `${file.type}; charset=utf-8`, 'cache-control': 'no-store' }).end(file.body);
      });
      await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
      origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
      chromium = await launchChromium();
    }, 90_000);

    afterAll(async () => {
      await chromium?.close();
      await new Promise((resolve) => site?.close(resolve));
    });

    it('acquires, renews on the manual clock and releases a claim through the service worker', async () => {
      const { page } = chromium;
      await page.goto(`${origin}/`, { waitUntil: 'load' });
      await page
        .waitForFunction(() => typeof (window as { leaseholdMain?: unknown }).leaseholdMain === 'function', undefined, { timeout: 10_000 })
        .catch((error: unknown) => {
          throw new Error(`the page did not load its app: ${String(error)}\n${[...chromium.pageErrors, ...chromium.consoleErrors].join('\n')}`);
        });
      const outcome = (await page.evaluate(() => (window as unknown as { leaseholdMain: () => Promise<unknown> }).leaseholdMain())) as {
        acquired: { fence: number; held: number; now: number };
        renewed: { expiresAt: number; durationMs: number; now: number };
        heldAfterRelease: number;
        controlled: boolean;
      };
      expect(outcome.controlled).toBe(true);
      expect(outcome.acquired.fence).toBeGreaterThan(0);
      expect(outcome.acquired.held).toBe(1);
      expect(outcome.renewed.now - outcome.acquired.now).toBe(20_000);
      expect(outcome.renewed.expiresAt).toBe(outcome.renewed.now + outcome.renewed.durationMs);
      expect(outcome.heldAfterRelease).toBe(0);

      const api = chromium.requests.filter((url) => url.startsWith(`${BASE_URL}/`));
      expect(api.length).toBeGreaterThanOrEqual(3); // acquire, renew, release
      expect(api.filter((url) => !chromium.answeredByServiceWorker.has(url)), 'API calls not answered by the worker').toEqual([]);
      expect(chromium.requests.filter((url) => !staysOnMachine(url) && !chromium.answeredByServiceWorker.has(url)), 'requests that left the machine').toEqual([]);
      expect(chromium.pageErrors).toEqual([]);
      expect(chromium.consoleErrors).toEqual([]);
    }, 60_000);
  });
});
