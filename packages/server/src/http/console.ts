import { consoleHtml } from '../generated/console-page.js';
import type { PlainResponse } from './plain.js';

/**
 * The Content-Security-Policy of the console: the one docs/api-template.hbs gives the API
 * reference at `/docs` — everything from this server (the page's inline script and styles
 * included), nothing from another origin, no forms posted anywhere.
 */
export const CONSOLE_CSP =
  "default-src 'self' data: blob:; script-src 'self' 'unsafe-inline' blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
  "font-src 'self' data:; connect-src 'self' data: blob:; worker-src 'self' blob:; object-src 'none'; base-uri 'none'; form-action 'none'";

/**
 * `GET /console`: the console page (packages/console, bundled by `pnpm gen`). It calls only the
 * public API of the server that served it, with the key its user enters, and the `/_control`
 * levers when the server has them.
 */
export function consoleAnswer(): PlainResponse {
  return {
    status: 200,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': CONSOLE_CSP,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-cache',
    },
    body: consoleHtml,
  };
}
