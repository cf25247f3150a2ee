// Debian's headless Chromium through playwright-core (which never downloads a browser), set up
// so that nothing leaves the machine: background networking off, every host but 127.0.0.1
// unresolvable, every request recorded and any request off 127.0.0.1 refused.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium. */
export const CHROMIUM = '/usr/bin/chromium';

/** The flags every Chromium test launches with. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // No name but 127.0.0.1 resolves: even a request no route sees could not leave.
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
];

/** Only loopback and in-page URLs: anything else would have left the machine. */
export function staysOnMachine(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (['data:', 'blob:', 'about:'].includes(parsed.protocol)) return true;
  return ['http:', 'https:', 'ws:', 'wss:'].includes(parsed.protocol) && parsed.hostname === '127.0.0.1';
}

/** A launched Chromium: its page, what it requested, what went wrong, and how to close it. */
export interface ChromiumSession {
  context: BrowserContext;
  page: Page;
  /** Every URL the browser asked for (page, workers, web sockets). */
  requests: string[];
  /** The URLs a service worker answered (they never reached the network). */
  answeredByServiceWorker: Set<string>;
  pageErrors: string[];
  consoleErrors: string[];
  close(): Promise<void>;
}

/** Launches Chromium in a throwaway profile, recording requests and refusing those off 127.0.0.1. */
export async function launchChromium(): Promise<ChromiumSession> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: this test needs Debian's Chromium. Install it with ` +
        '`apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium`.',
    );
  }
  const userDataDir = mkdtempSync(join(tmpdir(), 'leasehold-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 30_000 });
  const requests: string[] = [];
  const pageErrors: string[] = [];
  const consoleErrors: string[] = [];
  const answeredByServiceWorker = new Set<string>();
  context.on('request', (request) => requests.push(request.url()));
  context.on('response', (response) => {
    if (response.fromServiceWorker()) answeredByServiceWorker.add(response.url());
  });
  await context.route('**/*', (route) => (staysOnMachine(route.request().url()) ? route.continue() : route.abort('blockedbyclient')));
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('websocket', (socket) => requests.push(socket.url()));
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  return {
    context,
    page,
    requests,
    answeredByServiceWorker,
    pageErrors,
    consoleErrors,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
