/**
 * Base paths and base URLs: where the API is mounted. One owner for trimming trailing slashes,
 * normalizing a base URL, and finding the API path beneath a mount.
 */

/** `path` without trailing slashes (`/api/` → `/api`, `/` → `''`). */
export function trimTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 47 /* / */) end--;
  return end === path.length ? path : path.slice(0, end);
}

/**
 * A mount prefix as the server keeps it: starts with `/`, no trailing slash (`''` for the root).
 * Throws a `TypeError` for a path that does not start with `/`.
 */
export function normalizeBasePath(basePath: string): string {
  if (!basePath.startsWith('/')) throw new TypeError(`A base path starts with "/", got ${JSON.stringify(basePath)}`);
  return trimTrailingSlashes(basePath);
}

/** The mount points a server answers under by default: the root and `/api`, so each seed page's literal paths work. */
export const DEFAULT_BASE_PATHS: readonly string[] = Object.freeze(['/', '/api']);

/** A request path matched to one mount point: the API path beneath it and the mount's prefix. */
export interface MountMatch {
  /** The mount's prefix without a trailing `/` (`''` for the root, `/api`). */
  mount: string;
  /** The path beneath it (`/v1/...`; the mount itself is `/`). */
  path: string;
}

/** The path beneath `prefix` (`''` or `/api`), on a path-segment boundary, or `undefined`. */
export function pathBeneath(prefix: string, path: string): string | undefined {
  if (prefix === '') return path;
  if (path === prefix) return '/';
  if (path.startsWith(prefix) && path.charCodeAt(prefix.length) === 47 /* / */) return path.slice(prefix.length);
  return undefined;
}

/**
 * The prefixes one server serves the whole API under (`--base-path`, repeatable). A request
 * goes to the longest prefix it lies beneath on a path-segment boundary, so with `/` and `/api`
 * mounted, `/api/v1/tasks` is `/v1/tasks` under `/api` and `/v1/tasks` is itself under `/`.
 * @example
 * new Mounts(['/', '/api']).match('/api/v1/tasks'); // { mount: '/api', path: '/v1/tasks' }
 */
export class Mounts {
  /** Prefixes without a trailing `/`, longest first (`''` is the root). */
  readonly prefixes: readonly string[];

  /** Mounts at `basePaths` (default `/` and `/api`); each must start with `/`. */
  constructor(basePaths: readonly string[] = DEFAULT_BASE_PATHS) {
    const prefixes = new Set(basePaths.map(normalizeBasePath));
    if (prefixes.size === 0) throw new TypeError('At least one base path is needed');
    this.prefixes = [...prefixes].sort((a, b) => b.length - a.length);
  }

  /** The mount `path` lies under (the longest), or `undefined` when it lies under none. */
  match(path: string): MountMatch | undefined {
    for (const mount of this.prefixes) {
      const beneath = pathBeneath(mount, path);
      if (beneath !== undefined) return { mount, path: beneath };
    }
    return undefined;
  }
}

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
  const pathPrefix = trimTrailingSlashes(url.pathname);
  return { href: url.origin + pathPrefix, origin: url.origin, pathPrefix };
}

/**
 * True when `url` is the base itself or lies beneath it, on a path-segment boundary:
 * base `https://api.test/api` takes `/api` and `/api/v1/...`, never `/api2/...`.
 */
export function isUnderBase(base: BaseUrl, url: URL): boolean {
  return url.origin === base.origin && pathBeneath(base.pathPrefix, url.pathname) !== undefined;
}

/**
 * The path and query of `url` relative to the base: `/api/v1/x?y=1` → `/v1/x?y=1`
 * (the base itself → `/`). `undefined` when `url` is not under the base.
 */
export function pathUnderBase(base: BaseUrl, url: URL): string | undefined {
  if (url.origin !== base.origin) return undefined;
  const beneath = pathBeneath(base.pathPrefix, url.pathname);
  return beneath === undefined ? undefined : beneath + url.search;
}
