/** The mount points a server answers under by default: the root and `/api`, so each seed page's literal paths work. */
export const DEFAULT_BASE_PATHS: readonly string[] = Object.freeze(['/', '/api']);

/** A request path matched to one mount point: the API path beneath it and the mount's prefix. */
export interface MountMatch {
  /** The mount's prefix without a trailing `/` (`''` for the root, `/api`). */
  mount: string;
  /** The path beneath it (`/v1/...`; the mount itself is `/`). */
  path: string;
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
    const prefixes = new Set<string>();
    for (const basePath of basePaths) {
      if (!basePath.startsWith('/')) throw new TypeError(`A base path starts with "/", got ${JSON.stringify(basePath)}`);
      prefixes.add(basePath.replace(/\/+$/, ''));
    }
    if (prefixes.size === 0) throw new TypeError('At least one base path is needed');
    this.prefixes = [...prefixes].sort((a, b) => b.length - a.length);
  }

  /** The mount `path` lies under (the longest), or `undefined` when it lies under none. */
  match(path: string): MountMatch | undefined {
    for (const mount of this.prefixes) {
      if (mount === '') return { mount, path };
      if (path === mount) return { mount, path: '/' };
      if (path.startsWith(mount) && path.charCodeAt(mount.length) === 47 /* / */) return { mount, path: path.slice(mount.length) };
    }
    return undefined;
  }
}
