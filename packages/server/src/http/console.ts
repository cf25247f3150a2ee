import { consoleHtml } from '../generated/console-page.js';
import { pageAnswer } from './pages.js';
import type { PlainResponse } from './plain.js';

/**
 * `GET /console`: the console page (packages/console, bundled by `pnpm gen`), with the page CSP
 * of `/docs`. It calls only the public API of the server that served it, with the key its user
 * enters, and the `/_control` levers when the server has them.
 */
export function consoleAnswer(): PlainResponse {
  return pageAnswer('text/html; charset=utf-8', consoleHtml);
}
