/**
 * The console in Debian's Chromium (playwright-core, never a downloaded browser): a server on
 * this project's store, workers through @leasehold/client, and `/console` showing a claim with
 * its holder and countdown within 2 s, a waiter in position, a lost lease in the feed and a
 * queue's depth chart moving — with every request that would leave 127.0.0.1 blocked and
 * failing the test. `LEASEHOLD_SCREENSHOTS=<dir>` keeps screenshots (light and dark). The tasks
 * view and the operator's actions: console-tasks.test.ts; the key check, who holds a queue's
 * messages and session states: console-fleet.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Leasehold } from '../../packages/client/src/index.js';
import { ADMIN, SCOPE, SPACE, startServer, stopServers } from '../support/leasehold-harness.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../support/chromium.js';
import { localPage as openLocalPage, screenshot, CONSOLE_TEST_MS, UI_WAIT_MS } from '../support/console-browser.js';
import { TEST_STORE } from '../support/test-store.js';

let browser: Browser;
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}, 30_000);
afterAll(() => browser?.close());
afterEach(stopServers);

const localPage = () => openLocalPage(browser);

describe(`the console (${TEST_STORE} store)`, () => {
  it('shows claims with holder and countdown, waiters in position, lost leases in the feed and a moving depth chart', async () => {
    const h = await startServer();
    await h.createQueue('billing', 'invoices', 30);
    const { page, offMachine } = await localPage();
    const worker1 = new Leasehold({ baseUrl: h.origin, apiKey: ADMIN });
    const worker2 = new Leasehold({ baseUrl: h.origin, apiKey: ADMIN });
    try {
      await page.goto(`${h.origin}/console`);
      await page.getByLabel('API key').fill(ADMIN);
      await page.getByRole('button', { name: 'Open console' }).click();
      await page.getByRole('heading', { name: 'Spaces and claims' }).waitFor();

      const claims = worker1.space(SPACE).run(SCOPE, { holder: 'worker-1' });
      const held = await claims.claim('reports/2026-11').acquire();
      const row = page.locator(`tr[data-claim="${held.claimId}"]`);
      await row.waitFor({ timeout: UI_WAIT_MS });
      await expect.poll(() => row.locator('.holder').textContent()).toBe('worker-1');
      await expect.poll(() => row.locator('.countdown').textContent()).toMatch(/^(\d+\.\d s|\d+ min \d\d s)$/);

      const waiting = worker2.space(SPACE).run(SCOPE, { holder: 'worker-2' }).claim('reports/2026-11').acquire();
      waiting.catch(() => undefined); // awaited below; a failure before that must not go unhandled
      const waiter = page.locator('tr[data-waiter]', { hasText: 'worker-2' });
      await waiter.waitFor({ timeout: UI_WAIT_MS });
      expect(await waiter.locator('.position').textContent()).toBe('1');

      const queue = worker1.spool('billing').queue('invoices');
      const chart = page.locator('tr[data-queue="billing/invoices"] svg.chart');
      await chart.waitFor({ timeout: UI_WAIT_MS });
      const before = await chart.getAttribute('data-points');
      for (let i = 0; i < 3; i++) await queue.send({ invoice: i });
      await expect.poll(async () => (await chart.getAttribute('data-points'))?.split(',').at(-1), { timeout: UI_WAIT_MS }).toBe('3');
      expect(await chart.getAttribute('data-points')).not.toBe(before);
      await expect.poll(() => page.locator('tr[data-queue="billing/invoices"] .depth').textContent(), { timeout: UI_WAIT_MS }).toBe('3');

      await screenshot(page, 'console');
      await h.control.loseLease(held.claimId);
      await page.locator(`.feed li[data-event="lost"][data-claim="${held.claimId}"]`).waitFor({ timeout: UI_WAIT_MS });
      const granted = await waiting;
      await page.locator(`tr[data-claim="${granted.claimId}"]`).waitFor({ timeout: UI_WAIT_MS });
      await page.locator(`tr[data-lost="${held.claimId}"]`).waitFor({ timeout: UI_WAIT_MS });
      await page.emulateMedia({ colorScheme: 'dark' });
      await screenshot(page, 'console-dark');
      expect(offMachine).toEqual([]);
    } finally {
      await Promise.allSettled([worker1.close(), worker2.close()]);
      await page.context().close();
    }
  }, CONSOLE_TEST_MS);

  it('drives the test levers of a server served with control: the clock, faults (deployment state on every store) and cancelling a run', async () => {
    const h = await startServer();
    const { page, offMachine } = await localPage();
    const worker = new Leasehold({ baseUrl: h.origin, apiKey: ADMIN, maxRetries: 0 });
    try {
      await page.goto(`${h.origin}/console`);
      await page.getByLabel('API key').fill(ADMIN);
      await page.getByRole('button', { name: 'Open console' }).click();
      await page.getByRole('heading', { name: 'Test levers' }).waitFor();
      const notice = page.getByRole('status');

      const before = await h.control.now();
      await page.getByRole('button', { name: 'Advance clock 10 s' }).click();
      await expect.poll(() => notice.textContent()).toBe('Advance 10 s: done');
      expect((await h.control.now()) - before).toBeGreaterThanOrEqual(10_000);

      await page.getByLabel('Fault status').fill('503');
      await page.getByLabel('for the next').fill('2');
      // Aimed at one operation: a rule for any operation is consumed by the console's own polling too.
      await page.getByLabel('to operation').fill('getTask');
      await page.getByRole('button', { name: 'Inject fault' }).click();
      await expect.poll(() => notice.textContent()).toBe('Fault: done');
      expect(await h.control.faults()).toEqual([expect.objectContaining({ remaining: 2, rule: expect.objectContaining({ status: 503, times: 2, operationId: 'getTask' }) })]);
      await expect(worker.tasks.get(1)).rejects.toMatchObject({ status: 503 });
      await page.getByRole('button', { name: 'Clear faults' }).click();
      await expect.poll(() => notice.textContent()).toMatch(/^Clear faults: done/);
      expect(await h.control.faults()).toEqual([]);

      const held = await worker.space(SPACE).run(SCOPE, { holder: 'worker' }).claim('reports/2026-12').acquire();
      const levers = page.getByRole('region', { name: 'Test levers' });
      await levers.getByLabel('Space', { exact: true }).fill(SPACE);
      await levers.getByLabel('Run (scope)').fill(SCOPE);
      await page.getByRole('button', { name: 'Cancel run' }).click();
      await expect.poll(() => notice.textContent()).toBe('Cancel run: done (1 affected)');
      // The run's claim is gone on the server: another run takes the key at once.
      const next = await worker.space(SPACE).run(randomUUID(), { holder: 'next' }).claim('reports/2026-12').tryAcquire();
      expect(next?.fence).toBeGreaterThan(held.fence ?? 0);
      expect(offMachine).toEqual([]);
    } finally {
      await worker.close({ releaseLeases: false });
      await page.context().close();
    }
  }, CONSOLE_TEST_MS);
});
