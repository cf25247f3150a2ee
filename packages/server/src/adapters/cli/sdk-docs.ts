import { readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, normalize, sep } from 'node:path';
import type { StaticFile } from '../../leasehold-server.js';
import { BackgroundDocsBuild, failedBuild, placeholderPage } from './docs-build.js';
import { locateDocsHtml } from './docs-html.js';

/** Content types of the files the references are made of (all text). */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * One of the SDK references the server serves: the TypeScript client's (TypeDoc) or the Python
 * SDK's. Its folder names everything else: `docs/<folder>/`, the route `/docs/<folder>/`, the
 * build `scripts/docs.mjs --<folder>` and the command `pnpm docs:<folder>`.
 */
export interface SdkReference {
  readonly folder: 'client' | 'python';
  /** How its pages name it. */
  readonly title: string;
}

/** `/docs/client/`: `@leasehold/client` and `@leasehold/msw` (TypeDoc). */
export const CLIENT_REFERENCE: SdkReference = { folder: 'client', title: 'SDK reference' };
/** `/docs/python/`: the Python SDK (scripts/python-docs.py). */
export const PYTHON_REFERENCE: SdkReference = { folder: 'python', title: 'Python SDK reference' };

const buildCommand = (reference: SdkReference) => `pnpm docs:${reference.folder}`;

/**
 * Where the CLI finds a reference: the first folder with an `index.html` of
 * `<checkout>/docs/<folder>/` (running from the Leasehold checkout) and
 * `<package>/dist/docs/<folder>/` (the copy the server's build puts into the package).
 */
export function locateSdkDocs(reference: SdkReference, moduleUrl?: string): string[] {
  const { files, checkout } = locateDocsHtml(moduleUrl);
  const packaged = files.at(-1); // <package>/dist/docs/index.html
  return [
    ...(checkout ? [join(checkout, 'docs', reference.folder)] : []),
    ...(packaged ? [join(dirname(packaged), reference.folder)] : []),
  ];
}

/** What the loader needs; defaults come from `locateSdkDocs()`. */
export interface SdkDocsLoaderOptions {
  /** Checkout whose `scripts/docs.mjs <flag>` builds a missing reference in the background; `false`: never build. */
  buildIn?: string | false;
}

function notBuilt(reference: SdkReference): string {
  return (
    `<p>The ${reference.title} has not been built. In the Leasehold checkout, run <code>pnpm run docs</code> ` +
    `(or <code>${buildCommand(reference)}</code>), then reload this page. The <a href="../">API reference</a> is at <code>/docs</code>.</p>`
  );
}

function placeholder(reference: SdkReference, message: string, refreshSeconds?: number): StaticFile {
  return {
    contentType: CONTENT_TYPES['.html']!,
    body: placeholderPage({ title: `Leasehold ${reference.title}`, message, specHref: '../../openapi.json', refreshSeconds }),
  };
}

/**
 * A `clientDocs` / `pythonDocs` option of the reference server, for the CLI: files under the
 * first folder that holds the built reference, by path beneath `/docs/<folder>/`. Paths that
 * leave the folder, unknown file types and missing files are `undefined` (404). When no folder
 * holds a reference, its `index.html` is a page instead of a 404: run from the checkout, the
 * first request starts `node scripts/docs.mjs <flag>` in the background and the page reloads
 * itself until the reference is there (as `/docs` does); elsewhere it says what to run.
 */
export function createSdkDocsLoader(
  reference: SdkReference,
  folders: readonly string[] = locateSdkDocs(reference),
  options: SdkDocsLoaderOptions = {},
): (path: string) => StaticFile | undefined {
  const buildIn = options.buildIn ?? locateDocsHtml().checkout ?? false;
  const build = buildIn === false ? undefined : new BackgroundDocsBuild(buildIn, `--${reference.folder}`);
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
    if (build === undefined) return placeholder(reference, notBuilt(reference));
    const state = build.ensure();
    if (state.state === 'failed') return placeholder(reference, `${notBuilt(reference)}\n${failedBuild(state.reason)}`);
    return placeholder(reference, `<p>Building the ${reference.title} (<code>${buildCommand(reference)}</code>)… this page reloads by itself.</p>`, 2);
  };
}
