/**
 * The console in Chromium, over the fleet (issue 24): the key is checked once when the console
 * opens (a refused key gets one line on the key form, no panels); the queues view shows which
 * session holds which leased message; sessions are marked live, idle, silent or dead, with a
 * legend of the thresholds.
 */
import { chromium, type Browser, type Locator } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, READER, expectStatus, startServer, stopServers, type TestServer } from '../support/leasehold-harness.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../support/chromium.js';
import { localPage, openConsole, screenshot, CONSOLE_TEST_MS, UI_WAIT_MS } from '../support/console-browser.js';
import { TEST_STORE } from '../support/test-store.js';

let browser: Browser;
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}, 30_000);
afterAll(() => browser?.close());
afterEach(stopServers);

const text = (locator: Locator) => locator.textContent();
const heartbeat = async (h: TestServer, holderSession: string) =>
  expectStatus(await h.call('heartbeatClaims', { json: { ttl: 30, holderSession } }), 200);

describe(`the console over the fleet (${TEST_STORE} store)`, () => {
  it('checks the key once: a refused key gets one line on the key form and no panels', async () => {
    const h = await startServer();
    const { page, apiCalls } = await localPage(browser);
    try {
      await openConsole(page, h, 'lh_not_a_key');
      const refusal = page.getByRole('alert');
      await refusal.waitFor({ timeout: UI_WAIT_MS });
      expect(await text(refusal)).toMatch(/^This key was refused: 401 invalid_api_key: /);
      expect(await refusal.count()).toBe(1);
      expect(await page.getByRole('heading', { name: 'Spaces and claims' }).count()).toBe(0);
      expect(await page.getByLabel('API key').isVisible()).toBe(true);
      expect(apiCalls).toHaveLength(1);

      // A blocked key is refused the same way (403 with no code); a good key then opens the console.
      await h.control.blockKey(READER);
      await page.getByLabel('API key').fill(READER);
      await page.getByRole('button', { name: 'Open console' }).click();
      await expect.poll(() => text(refusal), { timeout: UI_WAIT_MS }).toMatch(/^This key was refused: 403: /);
      expect(apiCalls).toHaveLength(2);
      await page.getByLabel('API key').fill(ADMIN);
      await page.getByRole('button', { name: 'Open console' }).click();
      await page.getByRole('heading', { name: 'Spaces and claims' }).waitFor({ timeout: UI_WAIT_MS });
      expect(await page.getByRole('alert').count()).toBe(0);

      // A key that stops working while the console is open: back to the form, said once.
      await h.control.expireKey(ADMIN);
      await page.getByLabel('API key').waitFor({ timeout: UI_WAIT_MS });
      await expect.poll(() => text(page.getByRole('alert')), { timeout: UI_WAIT_MS }).toMatch(/^This key was refused: 401 /);
      expect(await page.getByRole('alert').count()).toBe(1);
      expect(await page.getByRole('heading', { name: 'Spaces and claims' }).count()).toBe(0);
    } finally {
      await page.context().close();
    }
  }, CONSOLE_TEST_MS);

  it('shows which session holds which leased message', async () => {
    const h = await startServer();
    await h.createQueue('billing', 'invoices', 30);
    for (let i = 0; i < 3; i++) await h.sendMessage('billing', 'invoices', { invoice: i });
    const a = await h.receive('billing', 'invoices', { 'Leasehold-Session': 'sess-a' });
    const b = await h.receive('billing', 'invoices', { 'Leasehold-Session': 'sess-b' });
    const { page } = await localPage(browser);
    try {
      await openConsole(page, h, READER);
      const held = page.locator('table.leased[data-queue="billing/invoices"]');
      const rowOf = (claimId: string) => held.locator(`tr[data-leased="${claimId}"]`);
      await rowOf(a.answer.body.claimId).waitFor({ timeout: UI_WAIT_MS });
      expect(await text(rowOf(a.answer.body.claimId).locator('.holder'))).toBe('sess-a');
      expect(await text(rowOf(b.answer.body.claimId).locator('.holder'))).toBe('sess-b');
      expect(await text(rowOf(a.answer.body.claimId).locator('.message'))).toBe(a.answer.body.id);
      expect(await text(rowOf(a.answer.body.claimId).locator('.countdown'))).toMatch(/^\d+\.\d s$/);

      expectStatus(await h.call('ackMessage', { path: { spool: 'billing' }, headers: { 'Spooler-Lease': a.lease } }), 204);
      await rowOf(a.answer.body.claimId).waitFor({ state: 'detached', timeout: UI_WAIT_MS });
      expect(await held.locator('tr[data-leased]').count()).toBe(1);
    } finally {
      await page.context().close();
    }
  }, CONSOLE_TEST_MS);

  it('marks sessions live, idle, silent or dead from their last heartbeat or activity, with a legend', async () => {
    const h = await startServer();
    await h.acquire('quiet/1', { holderSession: 'sess-silent', holder: 'quiet', leaseSeconds: 600 });
    await h.acquire('crashed/1', { holderSession: 'sess-dead', holder: 'crashed', leaseSeconds: 10 });
    await heartbeat(h, 'sess-silent');
    await heartbeat(h, 'sess-idle');
    await h.control.advanceClock(60_000);
    await h.acquire('busy/1', { holderSession: 'sess-live', holder: 'busy', leaseSeconds: 30 });
    await heartbeat(h, 'sess-live');
    const { page } = await localPage(browser);
    try {
      await openConsole(page, h, ADMIN);
      const sessions = page.getByRole('region', { name: 'Sessions' });
      const stateOf = (session: string) => sessions.locator(`tr[data-session="${session}"]`).getAttribute('data-state');
      await sessions.locator('tr[data-session="sess-dead"]').waitFor({ timeout: UI_WAIT_MS });
      await expect.poll(() => stateOf('sess-dead'), { timeout: UI_WAIT_MS }).toBe('dead');
      expect(await stateOf('sess-live')).toBe('live');
      expect(await stateOf('sess-silent')).toBe('silent');
      expect(await stateOf('sess-idle')).toBe('idle');
      expect(await text(sessions.locator('tr[data-session="sess-dead"] .badge'))).toBe('dead');
      const legend = sessions.locator('.legend');
      for (const words of ['live', 'idle', 'silent', 'dead', '30 s', '10 min']) expect(await text(legend)).toContain(words);

      // The dead session comes back: heard from again, it is live.
      await heartbeat(h, 'sess-dead');
      await expect.poll(() => stateOf('sess-dead'), { timeout: UI_WAIT_MS }).toBe('live');
      await screenshot(page, 'console-sessions');
    } finally {
      await page.context().close();
    }
  }, CONSOLE_TEST_MS);
});
