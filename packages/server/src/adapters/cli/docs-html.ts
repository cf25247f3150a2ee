import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BackgroundDocsBuild, failedBuild, placeholderPage } from './docs-build.js';

/**
 * Where the CLI finds the offline API reference that `pnpm run docs` builds
 * (`scripts/docs.mjs`, not committed). The first file that exists wins:
 * 1. `<checkout>/docs/api/index.html` when this package runs from the Leasehold checkout;
 * 2. `<package>/dist/docs/index.html`, the copy `scripts/docs.mjs` puts into a built package.
 */
export interface DocsHtmlLocation {
  files: string[];
  /** The checkout root, when there is one: there a missing page can be built. */
  checkout: string | undefined;
}

/** Finds this package's root (its `package.json` is `@leasehold/server`) above `fromDir`. */
function packageRoot(fromDir: string): string | undefined {
  let dir = fromDir;
  for (let depth = 0; depth < 5; depth++) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === '@leasehold/server') return dir;
      } catch {
        // not ours; keep looking
      }
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}

/** The well-defined places of the docs page, resolved from this module's own location. */
export function locateDocsHtml(moduleUrl: string = import.meta.url): DocsHtmlLocation {
  const pkg = packageRoot(dirname(fileURLToPath(moduleUrl)));
  if (pkg === undefined) return { files: [], checkout: undefined };
  const workspace = join(pkg, '..', '..');
  const checkout =
    existsSync(join(workspace, 'pnpm-workspace.yaml')) && existsSync(join(workspace, 'scripts', 'docs.mjs')) ? workspace : undefined;
  const files = [...(checkout ? [join(checkout, 'docs', 'api', 'index.html')] : []), join(pkg, 'dist', 'docs', 'index.html')];
  return { files, checkout };
}

function placeholder(message: string, refreshSeconds?: number): string {
  return placeholderPage({ title: 'Leasehold API reference', message, specHref: 'openapi.json', refreshSeconds });
}

const NOT_BUILT =
  '<p>The API reference has not been built. In the Leasehold checkout, run <code>pnpm run docs</code> ' +
  '(or <code>pnpm docs:api</code>), then reload this page.</p>';

/** What the loader needs; defaults come from `locateDocsHtml()`. */
export interface DocsHtmlLoaderOptions {
  /** Files to try, first existing wins. */
  files?: readonly string[];
  /** Checkout whose `scripts/docs.mjs --api` builds a missing page in the background; `false`: never build. */
  buildIn?: string | false;
}

/**
 * The `docsHtml` option of the reference server, for the CLI: answers the built page (re-read when
 * it changes, so `pnpm run docs` needs no restart). When no page exists and the server runs from
 * the checkout, the first request starts `node scripts/docs.mjs --api` in the background and answers
 * a page that reloads itself until the reference is there; elsewhere it answers how to build it.
 */
export function createDocsHtmlLoader(options: DocsHtmlLoaderOptions = {}): () => string {
  const located = options.files === undefined || options.buildIn === undefined ? locateDocsHtml() : undefined;
  const files = options.files ?? located?.files ?? [];
  const buildIn = options.buildIn ?? located?.checkout ?? false;
  let cache: { file: string; mtimeMs: number; size: number; html: string } | undefined;
  const build = buildIn === false ? undefined : new BackgroundDocsBuild(buildIn, '--api');

  return () => {
    for (const file of files) {
      let stat;
      try {
        stat = statSync(file);
      } catch {
        continue;
      }
      if (!stat.isFile()) continue;
      if (cache?.file !== file || cache.mtimeMs !== stat.mtimeMs || cache.size !== stat.size) {
        cache = { file, mtimeMs: stat.mtimeMs, size: stat.size, html: readFileSync(file, 'utf8') };
      }
      return cache.html;
    }
    if (build === undefined) return placeholder(NOT_BUILT);
    const state = build.ensure();
    if (state.state === 'failed') return placeholder(`${NOT_BUILT}\n${failedBuild(state.reason)}`);
    return placeholder('<p>Building the API reference (<code>pnpm run docs</code>)… this page reloads by itself.</p>', 2);
  };
}
