import { readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, normalize, sep } from 'node:path';
import type { StaticFile } from '../../leasehold-server.js';
import { BackgroundDocsBuild, failedBuild, placeholderPage } from './docs-build.js';
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

/** What the loader needs; defaults come from `locateClientDocs()`. */
export interface ClientDocsLoaderOptions {
  /** Checkout whose `scripts/docs.mjs --client` builds a missing reference in the background; `false`: never build. */
  buildIn?: string | false;
}

const NOT_BUILT =
  '<p>The SDK reference has not been built. In the Leasehold checkout, run <code>pnpm run docs</code> ' +
  '(or <code>pnpm docs:client</code>), then reload this page. The <a href="../">API reference</a> is at <code>/docs</code>.</p>';

function placeholder(message: string, refreshSeconds?: number): StaticFile {
  return {
    contentType: CONTENT_TYPES['.html']!,
    body: placeholderPage({ title: 'Leasehold SDK reference', message, specHref: '../../openapi.json', refreshSeconds }),
  };
}

/**
 * The `clientDocs` option of the reference server, for the CLI: files under the first folder that
 * holds a built reference, by path beneath `/docs/client/`. Paths that leave the folder, unknown
 * file types and missing files are `undefined` (404). When no folder holds a reference, its
 * `index.html` is a page instead of a 404: run from the checkout, the first request starts
 * `node scripts/docs.mjs --client` in the background and the page reloads itself until the
 * reference is there (as `/docs` does); elsewhere it says what to run.
 */
export function createClientDocsLoader(
  folders: readonly string[] = locateClientDocs(),
  options: ClientDocsLoaderOptions = {},
): (path: string) => StaticFile | undefined {
  const buildIn = options.buildIn ?? locateDocsHtml().checkout ?? false;
  const build = buildIn === false ? undefined : new BackgroundDocsBuild(buildIn, '--client');
  const built = (folder: string) => {
    try {
      return statSync(join(folder, 'index.html')).isFile();
    } catch {
      return false;
    }
  };
  return (path) => {
    const contentType = CONTENT_TYPES[extname(path)];
    if (contentType === undefined || path.includes('\0')) return undefined;
    const relative = normalize(decodeURIComponent(path));
    if (relative.startsWith('..') || relative.startsWith(sep)) return undefined;
    let anyBuilt = false;
    for (const folder of folders) {
      if (!built(folder)) continue;
      anyBuilt = true;
      try {
        return { contentType, body: readFileSync(join(folder, relative), 'utf8') };
      } catch {
        continue;
      }
    }
    if (anyBuilt || relative !== 'index.html') return undefined;
    if (build === undefined) return placeholder(NOT_BUILT);
    const state = build.ensure();
    if (state.state === 'failed') return placeholder(`${NOT_BUILT}\n${failedBuild(state.reason)}`);
    return placeholder('<p>Building the SDK reference (<code>pnpm docs:client</code>)… this page reloads by itself.</p>', 2);
  };
}
