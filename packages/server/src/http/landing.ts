import { pageAnswer } from './pages.js';
import type { PlainResponse } from './plain.js';

/** One link of the landing page: a path under the mount the request reached. */
export interface LandingLink {
  /** Path beneath the mount (`/docs`). */
  readonly path: string;
  readonly title: string;
  readonly description: string;
  /** Listed only when the server was given this page's content (the option of `createLeaseholdServer`). */
  readonly requires?: 'docsHtml' | 'clientDocs' | 'pythonDocs';
}

/**
 * What `GET /` points at — the one list of the server's pages (add a page here and the landing
 * page links it).
 */
export const LANDING_LINKS: readonly LandingLink[] = [
  { path: '/docs', title: 'API reference', description: 'every HTTP operation, its parameters, answers and error codes (OpenAPI, offline)', requires: 'docsHtml' },
  { path: '/docs/client/', title: 'SDK reference', description: '@leasehold/client and @leasehold/msw: the TypeScript client, its leases, errors and stores, and the test mocks', requires: 'clientDocs' },
  { path: '/docs/python/', title: 'Python SDK reference', description: 'leasehold (Python): Leasehold and AsyncLeasehold, leases and their signals, tasks, queues, errors and idempotency stores', requires: 'pythonDocs' },
  { path: '/console', title: 'Console', description: 'what this server holds right now: claims and their waiters, lost leases, tasks, queues, lease events and heartbeat rates' },
  { path: '/openapi.json', title: 'openapi.json', description: 'the machine-readable spec, naming this server' },
];

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The landing page for a request under `mount` (`''` or `/api`): links to the docs, the SDK
 * reference and the console — those of `links` the server serves.
 */
export function landingPage(mount: string, links: readonly LandingLink[] = LANDING_LINKS): PlainResponse {
  const items = links.map(
    (link) => `<li><a href="${escapeHtml(mount + link.path)}">${escapeHtml(link.title)}</a> — ${escapeHtml(link.description)}</li>`,
  ).join('\n');
  const html = [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<link rel="icon" href="data:,">',
    '<title>Leasehold reference server</title>',
    '<style>body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:4rem auto;padding:0 1rem}code{background:#eee;padding:0 .2em}li{margin:.4rem 0}</style>',
    '</head>',
    '<body>',
    '<h1>Leasehold reference server</h1>',
    `<p>The API is served here under <code>${escapeHtml(mount || '/')}</code> (<code>${escapeHtml(mount)}/v1/…</code>).</p>`,
    '<ul>',
    items,
    '</ul>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
  return pageAnswer('text/html; charset=utf-8', html);
}
