import { readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, normalize, sep } from 'node:path';
import type { StaticFile } from '../../leasehold-server.js';
import { locateDocsHtml } from './docs-html.js';

/** Content types of the files TypeDoc writes (all text). */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Where the CLI finds the SDK reference (TypeDoc, `scripts/docs.mjs --client`): the first folder
 * with an `index.html` of `<checkout>/docs/client/` (running from the Leasehold checkout) and
 * `<package>/dist/docs/client/` (the copy the server's build puts into the package).
 */
export function locateClientDocs(moduleUrl?: string): string[] {
  const { files, checkout } = locateDocsHtml(moduleUrl);
  const packaged = files.at(-1); // <package>/dist/docs/index.html
  return [...(checkout ? [join(checkout, 'docs', 'client')] : []), ...(packaged ? [join(dirname(packaged), 'client')] : [])];
}

/**
 * The `clientDocs` option of the reference server, for the CLI: files under the first folder that
 * holds a built reference, by path beneath `/docs/client/`. Paths that leave the folder, unknown
 * file types and missing files are `undefined` (404).
 */
export function createClientDocsLoader(folders: readonly string[] = locateClientDocs()): (path: string) => StaticFile | undefined {
  return (path) => {
    const contentType = CONTENT_TYPES[extname(path)];
    if (contentType === undefined || path.includes('\0')) return undefined;
    const relative = normalize(decodeURIComponent(path));
    if (relative.startsWith('..') || relative.startsWith(sep)) return undefined;
    for (const folder of folders) {
      try {
        if (!statSync(join(folder, 'index.html')).isFile()) continue;
        return { contentType, body: readFileSync(join(folder, relative), 'utf8') };
      } catch {
        continue;
      }
    }
    return undefined;
  };
}
