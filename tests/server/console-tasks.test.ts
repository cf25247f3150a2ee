/**
 * The console's tasks view in Chromium (issue 24, "Stalled tasks come back"): a stalled task is
 * marked with its attempts and how its last claim ended; an operator's key releases a task's
 * claim and requeues it from the console; a key without `tasks:admin` gets the 403 once, as one
 * line, and buttons that no longer offer what they cannot do.
 */
import { chromium, type Browser, type Locator } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, READER, expectStatus, startServer, stopServers } from '../support/leasehold-harness.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../support/chromium.js';
import { abandonedTask, localPage, openConsole, screenshot, taskNow, CONSOLE_TEST_MS, UI_WAIT_MS } from '../support/console-browser.js';
import { TEST_STORE } from '../support/test-store.js';

let browser: Browser;
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}, 30_000);
afterAll(() => browser?.close());
afterEach(stopServers);

const MIN = 60_000;
const text = (locator: Locator) => locator.textContent();

describe(`the console's tasks (${TEST_STORE} store)`, () => {
  it('marks a stalled task, shows its attempts and its last claim, and filters the claimable ones', async () => {
    const h = await startServer();
    const stalled = await abandonedTask(h, 'crashes its worker', 'sess-crashed');
    const fresh = await h.createTask('never claimed');
    const blocked = await h.createTask('waits for a person');
    expectStatus(await h.call('updateTask', { path: { taskId: blocked.id }, headers: { 'If-Match': blocked.etag }, json: { status: 'Blocked' } }), 200);
    await h.control.advanceClock(15 * MIN);
    const { page, offMachine } = await localPage(browser);
    try {
      await openConsole(page, h, ADMIN);
      const row = page.locator(`tr[data-task="${stalled.id}"]`);
      await row.locator('.badge.stalled').waitFor({ timeout: UI_WAIT_MS });
      expect(await text(row.locator('.badge.InProgress'))).toBe('InProgress');
      expect(await text(row.locator('.attempts'))).toBe('1');
      expect(await text(row.locator('.last-claim .badge'))).toBe('expired');
      expect(await text(row.locator('.last-claim'))).toContain('sess-crashed');
      // The retry backoff (5 s after the first attempt) is counted down on the server's clock.
      expect(await text(row.locator('.last-claim'))).toMatch(/retry in \d+\.\d s/);
      const freshRow = page.locator(`tr[data-task="${fresh.id}"]`);
      expect(await freshRow.locator('.badge.stalled').count()).toBe(0);
      expect(await text(freshRow.locator('.attempts'))).toBe('0');
      expect(await text(freshRow.locator('.last-claim'))).toBe('never claimed');

      await h.control.advanceClock(5_000);
      await page.getByRole('region', { name: 'Tasks' }).getByLabel('Status').selectOption('claimable');
      const listed = () => page.locator('tr[data-task]').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-task'))));
      await expect.poll(listed, { timeout: UI_WAIT_MS }).toEqual([stalled.id, fresh.id]);
      await screenshot(page, 'console-tasks');
      expect(offMachine).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, CONSOLE_TEST_MS);

  it("releases a task's claim and requeues it with an operator's key", async () => {
    const h = await startServer();
    const held = await abandonedTask(h, 'stuck on a worker', 'sess-stuck');
    const { page } = await localPage(browser);
    try {
      await openConsole(page, h, ADMIN);
      const notice = page.getByRole('status');
      const row = page.locator(`tr[data-task="${held.id}"]`);
      await row.getByRole('button', { name: 'Release claim' }).click({ timeout: UI_WAIT_MS });
      await expect.poll(() => text(notice), { timeout: UI_WAIT_MS }).toBe(`Task ${held.id}: claim released`);
      expect(await taskNow(h, held.id)).toMatchObject({ status: 'InProgress', claim: null, stalled: true, attempts: 1, lastClaim: { claimId: held.claimId, outcome: 'revoked' } });
      await row.locator('.badge.stalled').waitFor({ timeout: UI_WAIT_MS });
      expect(await row.getByRole('button', { name: 'Release claim' }).count()).toBe(0);

      await row.getByRole('button', { name: 'Requeue' }).click({ timeout: UI_WAIT_MS });
      await expect.poll(() => text(notice), { timeout: UI_WAIT_MS }).toBe(`Task ${held.id}: requeued`);
      expect(await taskNow(h, held.id)).toMatchObject({ status: 'Todo', claim: null, stalled: false, attempts: 0 });
      await expect.poll(() => text(row.locator('.attempts')), { timeout: UI_WAIT_MS }).toBe('0');
      expect(await page.getByRole('alert').count()).toBe(0);
    } finally {
      await page.context().close();
    }
  }, CONSOLE_TEST_MS);

  it('shows the 403 of a key without tasks:admin once, as one line, and disables the actions', async () => {
    const h = await startServer();
    const first = await abandonedTask(h, 'first', 'sess-a');
    const second = await abandonedTask(h, 'second', 'sess-b');
    const { page } = await localPage(browser);
    try {
      await openConsole(page, h, READER);
      const tasks = page.getByRole('region', { name: 'Tasks' });
      await tasks.locator(`tr[data-task="${second.id}"]`).waitFor({ timeout: UI_WAIT_MS });
      await tasks.locator(`tr[data-task="${first.id}"]`).getByRole('button', { name: 'Requeue' }).click({ timeout: UI_WAIT_MS });
      const refusal = page.getByRole('alert');
      await refusal.first().waitFor({ timeout: UI_WAIT_MS });
      expect(await refusal.count()).toBe(1);
      expect(await text(refusal)).toMatch(/^This key may not release or requeue tasks \(it needs the tasks:admin permission\): 403 permission_denied/);
      const actions = tasks.getByRole('button', { name: /^(Requeue|Release claim)$/ });
      expect(await actions.count()).toBe(4);
      for (const button of await actions.all()) expect(await button.isDisabled()).toBe(true);
      // Nothing changed on the server, and the page says nothing was done.
      for (const task of [first, second]) {
        expect(await taskNow(h, task.id)).toMatchObject({ status: 'InProgress', attempts: 1, claim: { claimId: task.claimId } });
      }
      expect(await text(page.locator('.notice'))).toBe('');
      // The reads this key may make keep working, with no error of their own.
      expect(await page.getByRole('region', { name: 'Spools and queues' }).getByRole('alert').count()).toBe(0);
    } finally {
      await page.context().close();
    }
  }, CONSOLE_TEST_MS);
});
