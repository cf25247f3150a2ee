import type { PlainResponse } from './plain.js';

/**
 * The Content-Security-Policy of every page the server serves (`/`, `/docs`, `/docs/client/`, `/docs/python/`):
 * the one docs/api-template.hbs puts into the API reference. Everything comes from this server
 * (inline scripts and styles included, as Redoc and TypeDoc need), nothing from another origin.
 */
export const PAGE_CSP =
  "default-src 'self' data: blob:; script-src 'self' 'unsafe-inline' blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
  "font-src 'self' data:; connect-src 'self' data: blob:; worker-src 'self' blob:; object-src 'none'; base-uri 'none'; form-action 'none'";

/** A 200 answer of a page or asset, with the page CSP and no sniffing. */
export function pageAnswer(contentType: string, body: string): PlainResponse {
  return {
    status: 200,
    headers: { 'content-type': contentType, 'content-security-policy': PAGE_CSP, 'x-content-type-options': 'nosniff' },
    body,
  };
}

/** A redirect to `location` (relative to the request URL). */
export function redirectAnswer(location: string): PlainResponse {
  return { status: 308, headers: { location, 'content-type': 'text/plain; charset=utf-8' }, body: `See ${location}\n` };
}

/** A 404 for a page or asset that does not exist (not an API route: plain text). */
export function pageNotFound(what: string): PlainResponse {
  return { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' }, body: `${what} not found\n` };
}
