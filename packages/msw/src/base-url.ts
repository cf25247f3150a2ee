/**
 * A Leasehold base URL, as the client takes it: an origin plus an optional mount prefix
 * (`https://api.test/api` serves `/api/v1/...`). The prefix never ends with `/`.
 */
export interface BaseUrl {
  /** `https://api.test/api`: origin and prefix, no trailing slash. */
  readonly href: string;
  /** `https://api.test` (lower-case host, default port dropped). */
  readonly origin: string;
  /** `/api`, or `''` when the API sits at the origin's root. */
  readonly pathPrefix: string;
}

/**
 * Parses and normalizes a base URL; throws a `TypeError` for a relative URL, a protocol other
 * than http(s), or a query or fragment.
 * @example
 * parseBaseUrl('https://API.test:443/api/'); // { href: 'https://api.test/api', origin: 'https://api.test', pathPrefix: '/api' }
 */
export function parseBaseUrl(input: string | URL): BaseUrl {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new TypeError(`baseUrl must be an absolute http(s) URL, got ${JSON.stringify(String(input))}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`baseUrl must use http or https, got ${url.protocol}`);
  }
  if (url.search || url.hash) throw new TypeError('baseUrl must not carry a query or a fragment');
  const pathPrefix = url.pathname.replace(/\/+$/, '');
  return { href: url.origin + pathPrefix, origin: url.origin, pathPrefix };
}

/**
 * True when `url` is the base itself or lies beneath it, on a path-segment boundary:
 * base `https://api.test/api` takes `/api` and `/api/v1/...`, never `/api2/...`.
 */
export function isUnderBase(base: BaseUrl, url: URL): boolean {
  if (url.origin !== base.origin) return false;
  const prefix = base.pathPrefix;
  return prefix === '' || url.pathname === prefix || url.pathname.startsWith(`${prefix}/`);
}

/**
 * The path and query of `url` relative to the base: `/api/v1/x?y=1` → `/v1/x?y=1`
 * (the base itself → `/`). `undefined` when `url` is not under the base.
 */
export function pathUnderBase(base: BaseUrl, url: URL): string | undefined {
  if (!isUnderBase(base, url)) return undefined;
  const rest = url.pathname.slice(base.pathPrefix.length);
  return (rest === '' ? '/' : rest) + url.search;
}

/**
 * A RegExp over MSW's clean URL (origin + path, no query) matching exactly what
 * `isUnderBase` takes. MSW tests RegExp paths as given, so nothing in the base is read as a
 * path parameter or a wildcard, and the match is case-sensitive like the server's router.
 */
export function baseUrlPattern(base: BaseUrl): RegExp {
  return new RegExp(`^${escapeRegExp(base.href)}(?:/.*)?$`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
