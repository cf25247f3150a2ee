import { createRequire } from 'node:module';
import { join } from 'node:path';

/** `node:child_process`, loaded when a build starts (never, mostly): ~4 ms of every cold start otherwise. */
const nodeRequire = createRequire(import.meta.url);
const childProcess = () => nodeRequire('node:child_process') as typeof import('node:child_process');

/** Where a background build stands: running, or failed with the reason (none: not started, or done). */
export type DocsBuildState = { readonly state: 'running' } | { readonly state: 'failed'; readonly reason: string };

/**
 * One of the checkout's references (`node scripts/docs.mjs --api`, `--client` or `--python`), built in the
 * background the first time a page finds it missing: the one owner of that build for `/docs`
 * (docs-html.ts), `/docs/client/` and `/docs/python/` (sdk-docs.ts). A build that succeeded leaves nothing:
 * the page then finds its files.
 */
export class BackgroundDocsBuild {
  #state: DocsBuildState | undefined;

  /** A build in `root` (a Leasehold checkout) of the reference `flag` names. */
  constructor(
    private readonly root: string,
    private readonly flag: '--api' | '--client' | '--python',
  ) {}

  /** Starts the build unless it is running or has failed; answers where it stands. */
  ensure(): DocsBuildState {
    this.#state ??= this.#start();
    return this.#state;
  }

  #start(): DocsBuildState {
    let stderr = '';
    try {
      const child = childProcess().spawn(process.execPath, [join(this.root, 'scripts', 'docs.mjs'), this.flag], {
        cwd: this.root,
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString('utf8')).slice(-2000);
      });
      child.on('error', (error) => {
        this.#state = { state: 'failed', reason: error.message };
      });
      child.on('close', (code) => {
        this.#state = code === 0 ? undefined : { state: 'failed', reason: stderr.trim() || `exit ${code}` };
      });
      return { state: 'running' };
    } catch (error) {
      return { state: 'failed', reason: (error as Error).message };
    }
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** What a placeholder page says. */
export interface PlaceholderPage {
  /** The reference it stands in for (`Leasehold API reference`). */
  readonly title: string;
  /** Its message, HTML. */
  readonly message: string;
  /** Where the spec is, relative to the page (`openapi.json`). */
  readonly specHref: string;
  /** Reload the page after this many seconds (while a build runs). */
  readonly refreshSeconds?: number | undefined;
}

/** A reference's stand-in page: not built yet (and how to build it), building, or its build failed. */
export function placeholderPage(page: PlaceholderPage): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<title>${escapeHtml(page.title)}</title>`,
    page.refreshSeconds === undefined ? '' : `<meta http-equiv="refresh" content="${page.refreshSeconds}">`,
    '<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem}code{background:#eee;padding:0 .2em}</style>',
    '</head>',
    '<body>',
    `<h1>${escapeHtml(page.title)}</h1>`,
    page.message,
    `<p>The machine-readable spec is at <a href="${page.specHref}">openapi.json</a>.</p>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** A failed build's reason, for a placeholder page. */
export function failedBuild(reason: string): string {
  return `<p>Building it here failed:</p>\n<pre>${escapeHtml(reason)}</pre>`;
}
