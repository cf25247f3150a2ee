// What the console's Chromium suites share: a page that refuses (and records) every request not
// to 127.0.0.1, the console opened with a key, screenshots on request, and the HTTP flows that
// put a server in the states the console shows (a stalled task).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { expectStatus, type TestServer } from './leasehold-harness.js';
import { TEST_STORE } from './test-store.js';

/** A console page in a context of its own, and the requests it tried to send off the machine. */
/**
 * The longest a console test waits for the page to show a change (its panels poll the server):
 * a bound for a machine whose cores are busy, not a claim about how fast the console updates.
 * Before it the waits were 2–5 s, and a CI run beside two CPU hogs missed one.
 */
export const UI_WAIT_MS = 15_000;

/** A console test's own timeout: several UI_WAIT_MS waits in a row fit in it. */
export const CONSOLE_TEST_MS = 120_000;

export interface LocalPage {
  readonly page: Page;
  readonly offMachine: string[];
  /** The API requests (`/v1/…`) the page sent, as `METHOD path`. */
  readonly apiCalls: string[];
}

/** A page that refuses (and records) every request not to 127.0.0.1. */
export async function localPage(browser: Browser): Promise<LocalPage> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const offMachine: string[] = [];
  const apiCalls: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1' || url.protocol === 'data:') {
      if (url.pathname.startsWith('/v1/')) apiCalls.push(`${route.request().method()} ${url.pathname}`);
      return route.continue();
    }
    offMachine.push(url.href);
    return route.abort('blockedbyclient');
  });
  // A step that cannot happen fails within UI_WAIT_MS, naming itself, not at the test's timeout.
  context.setDefaultTimeout(UI_WAIT_MS);
  return { page: await context.newPage(), offMachine, apiCalls };
}

/** Open `/console` of `h` and enter `key` in the key form. */
export async function openConsole(page: Page, h: TestServer, key: string): Promise<void> {
  await page.goto(`${h.origin}/console`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Open console' }).click();
}

/** With `LEASEHOLD_SCREENSHOTS=<dir>`, keep a full-page screenshot named `name`. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.LEASEHOLD_SCREENSHOTS;
  if (dir === undefined || dir === '') return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}-${TEST_STORE}.png`), fullPage: true });
}

/**
 * A task a worker claimed (with `session`), marked `InProgress` and then left: answers its id
 * and claim. Advance the clock past 15 minutes and it is stalled.
 */
export async function abandonedTask(h: TestServer, title: string, session: string): Promise<{ id: number; claimId: string }> {
  const { id, etag } = await h.createTask(title);
  const claimed = await h.claimTask(id, etag, { 'Leasehold-Session': session });
  const started = await h.call('updateTask', { path: { taskId: id }, headers: { 'If-Match': claimed.etag, 'X-Task-Claim': claimed.token }, json: { status: 'InProgress' } });
  expectStatus(started, 200);
  return { id, claimId: (claimed.claim as { claimId: string }).claimId };
}

/** The task as the API reads it now. */
export async function taskNow(h: TestServer, id: number): Promise<Record<string, unknown>> {
  const answer = await h.call('getTask', { path: { taskId: id } });
  expect(answer.status).toBe(200);
  return answer.body as Record<string, unknown>;
}
