#!/usr/bin/env node
// Builds the documentation outputs. Neither is committed (both are gitignored); rebuild them
// whenever you want them:
//   docs/api/index.html  the offline HTML API reference of spec/dist/openapi.json
//                        (`redocly build-docs --inlineBundle`: the Redoc bundle that ships inside
//                        @redocly/cli is inlined, so the page loads nothing from the network; the
//                        template docs/api-template.hbs adds a Content-Security-Policy that refuses
//                        other origins). The build fails if the page still references a remote
//                        script, style, font or image. Also copied to packages/server/dist/docs/index.html when that package is
//                        built, so a packed @leasehold/server carries it. The reference server
//                        serves it at /docs.
//   docs/client/         the SDK reference (TypeDoc) of @leasehold/client and @leasehold/msw, grouped,
//                        with docs/client-intro.md as its first page (config in docs/typedoc.config.mjs).
//                        Its link to the API reference becomes relative (../../docs from /docs/client/),
//                        every page gets the reference server's Content-Security-Policy, and the site
//                        is copied to packages/server/dist/docs/client/ when that package is built
//                        (the server's build runs this script), so a packed @leasehold/server carries
//                        it. The reference server serves it at /docs/client/.
//   docs/python/         the Python SDK reference (scripts/python-docs.py: read from
//                        packages/python/src with `ast`, run by Debian's /usr/bin/python3 or
//                        LEASEHOLD_PYTHON), copied to packages/server/dist/docs/python/ like the
//                        client's; served at /docs/python/.
// Usage: node scripts/docs.mjs [--api] [--client] [--python] [--strict]   (none of the three: all;
// --strict: any TypeDoc warning fails the build, and so does a missing Python)
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
for (const arg of args) {
  if (arg !== '--api' && arg !== '--client' && arg !== '--python' && arg !== '--strict') {
    console.error(`docs: unknown argument ${arg}\nUsage: node scripts/docs.mjs [--api] [--client] [--python] [--strict]`);
    process.exit(2);
  }
}
const strict = args.includes('--strict');
const all = !args.includes('--api') && !args.includes('--client') && !args.includes('--python');
const wantApi = all || args.includes('--api');
const wantClient = all || args.includes('--client');
const wantPython = all || args.includes('--python');

const SPEC = 'spec/dist/openapi.json';
const API_OUT = 'docs/api/index.html';
const TEMPLATE = 'docs/api-template.hbs';
const SERVER_DIST_COPY = 'packages/server/dist/docs/index.html';
const quietEnv = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

/**
 * Resources the browser would fetch from another host as the page loads: script, style, font,
 * image and module URLs that are absolute (`http:`, `https:`) or protocol-relative (`//host`).
 * Plain `<a href>` links are not loads and are allowed.
 */
function remoteResources(html) {
  const remote = String.raw`(?:https?:)?//`;
  const patterns = [
    new RegExp(String.raw`<(?:script|img|iframe|source|audio|video|embed|track|input)\b[^>]*?\bsrc\s*=\s*["']?${remote}[^"'\s>]*`, 'gi'),
    new RegExp(String.raw`<(?:link|base)\b[^>]*?\bhref\s*=\s*["']?${remote}[^"'\s>]*`, 'gi'),
    new RegExp(String.raw`\burl\(\s*["']?${remote}[^)"']*`, 'gi'),
    new RegExp(String.raw`@import\s+(?:url\()?\s*["']${remote}[^"']*`, 'gi'),
    new RegExp(String.raw`\bimport\s*(?:\(\s*|[\w{},*\s]+\bfrom\s*)["']${remote}[^"']*`, 'g'),
  ];
  return [...new Set(patterns.flatMap((pattern) => html.match(pattern) ?? []))];
}

// Redoc's sidebar footer ("API docs by Redocly") always shows Redocly's logo as an <img> from its
// CDN. The offline page shows the same attribution as a local SVG wordmark instead.
const svgDataUri = (svg) => `data:image/svg+xml,${encodeURIComponent(svg)}`;
const wordmark = (text, width) =>
  svgDataUri(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="16" viewBox="0 0 ${width} 16">` +
      `<text x="0" y="12.5" textLength="${width}" lengthAdjust="spacingAndGlyphs" ` +
      `font-family="system-ui,sans-serif" font-size="13" font-weight="600" fill="#0044d4">${text}</text></svg>`,
  );
const CDN_LOGOS = {
  'https://cdn.redoc.ly/redoc/logo-mini-full.svg': wordmark('Redocly', 50),
  'https://cdn.redoc.ly/redoc/logo-mini.svg': wordmark('R', 9),
};

function localizeLogos(html) {
  let out = html;
  for (const [url, local] of Object.entries(CDN_LOGOS)) out = out.split(url).join(local);
  return out;
}

/** Writes through a temporary file and a rename, so a reader never sees half a page. */
function writeAtomically(file, content) {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, content);
  renameSync(temporary, file);
}

/** A build failure, reported as `docs: <message>` with exit code 1. */
class DocsError extends Error {}

/** Runs a tool quietly; on failure prints everything it said. */
function run(command, commandArgs, what) {
  try {
    return execFileSync(command, commandArgs, { cwd: root, env: quietEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    process.stderr.write(`${error.stdout ?? ''}${error.stderr ?? ''}`);
    throw new DocsError(`${what} failed (${error.status !== null && error.status !== undefined ? `exit ${error.status}` : (error.signal ?? error.message)})`);
  }
}

function buildApiReference() {
  const started = performance.now();
  if (!existsSync(join(root, SPEC))) throw new DocsError(`${SPEC} is missing — run \`pnpm gen\` first`);
  const scratch = mkdtempSync(join(tmpdir(), 'leasehold-docs-'));
  try {
    const out = join(scratch, 'index.html');
    run(join(root, 'node_modules/.bin/redocly'), ['build-docs', SPEC, '--output', out, '--inlineBundle', '--template', TEMPLATE], 'redocly build-docs');
    const html = localizeLogos(readFileSync(out, 'utf8'));
    const remote = remoteResources(html);
    if (remote.length > 0) throw new DocsError(`${API_OUT} would load resources from the network:\n  ${remote.join('\n  ')}`);
    if (!html.includes('<div id="redoc">')) throw new DocsError('redocly build-docs produced no Redoc page');
    writeAtomically(join(root, API_OUT), html);
    const written = [API_OUT];
    if (existsSync(join(root, 'packages/server/dist'))) {
      writeAtomically(join(root, SERVER_DIST_COPY), html);
      written.push(SERVER_DIST_COPY);
    }
    const kib = Math.ceil(Buffer.byteLength(html) / 1024);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`docs: wrote ${written.join(' and ')} (${kib} KiB, self-contained) in ${seconds} s`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const CLIENT_OUT = 'docs/client';
const SERVER_DIST_CLIENT = 'packages/server/dist/docs/client';
/** The URL docs/typedoc.config.mjs and docs/client-intro.md use for the API reference. */
const API_REFERENCE_PLACEHOLDER = 'https://leasehold.invalid/api-reference';
/** The largest page the SDK reference may have (it ships inside @leasehold/server). */
const MAX_PAGE_BYTES = 1024 * 1024;
/** The policy of docs/api-template.hbs (and the reference server's PAGE_CSP header). */
function apiCsp() {
  const policy = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(readFileSync(join(root, TEMPLATE), 'utf8'))?.[1];
  if (policy === undefined) throw new DocsError(`${TEMPLATE} has no Content-Security-Policy`);
  return policy;
}

function htmlFiles(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.html'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Relative API-reference links and the page CSP on every page of the TypeDoc site in `dir`. */
function finishClientReference(dir) {
  const csp = `<meta http-equiv="Content-Security-Policy" content="${apiCsp()}"/>`;
  for (const file of htmlFiles(dir)) {
    const depth = relative(dir, file).split(sep).length - 1;
    // From <mount>/docs/client/<depth dirs>/page.html up to <mount>/, then docs.
    const toApi = `${'../'.repeat(depth + 2)}docs`;
    let html = readFileSync(file, 'utf8').split(API_REFERENCE_PLACEHOLDER).join(toApi);
    if (!html.includes('http-equiv="Content-Security-Policy"')) html = html.replace('<head>', `<head>${csp}`);
    const remote = remoteResources(html);
    if (remote.length > 0) throw new DocsError(`${relative(root, file)} would load resources from the network:\n  ${remote.join('\n  ')}`);
    const bytes = Buffer.byteLength(html);
    if (bytes > MAX_PAGE_BYTES) throw new DocsError(`${relative(root, file)} is ${(bytes / 1048576).toFixed(1)} MiB, over the ${MAX_PAGE_BYTES / 1048576} MiB a reference page may be (summarise the type in docs/typedoc-groups.mjs)`);
    writeFileSync(file, html);
  }
}

function buildClientReference() {
  const started = performance.now();
  const typedocArgs = ['--options', 'docs/typedoc.config.mjs', ...(strict ? ['--treatWarningsAsErrors'] : [])];
  const result = spawnSync(join(root, 'node_modules/.bin/typedoc'), typedocArgs, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new DocsError(`typedoc failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`})`);
  finishClientReference(join(root, CLIENT_OUT));
  const written = [`${CLIENT_OUT}/`];
  if (existsSync(join(root, 'packages/server/dist'))) {
    rmSync(join(root, SERVER_DIST_CLIENT), { recursive: true, force: true });
    cpSync(join(root, CLIENT_OUT), join(root, SERVER_DIST_CLIENT), { recursive: true });
    written.push(`${SERVER_DIST_CLIENT}/`);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`docs: wrote ${written.join(' and ')} in ${seconds} s`);
}

const PYTHON_OUT = 'docs/python';
const SERVER_DIST_PYTHON = 'packages/server/dist/docs/python';
/** Debian's interpreter by default: the generator needs nothing beyond the standard library. */
const PYTHON = process.env.LEASEHOLD_PYTHON ?? '/usr/bin/python3';

function buildPythonReference() {
  if (!existsSync(PYTHON) && process.env.LEASEHOLD_PYTHON === undefined) {
    if (strict) throw new DocsError(`${PYTHON} is missing: the Python SDK reference needs python3 (apt-get install python3, or set LEASEHOLD_PYTHON)`);
    console.log(`docs: skipped ${PYTHON_OUT}/ (no ${PYTHON}; set LEASEHOLD_PYTHON to build it)`);
    return;
  }
  run(PYTHON, ['scripts/python-docs.py', '--out', join(root, PYTHON_OUT, 'index.html')], 'scripts/python-docs.py');
  const written = [`${PYTHON_OUT}/`];
  if (existsSync(join(root, 'packages/server/dist'))) {
    rmSync(join(root, SERVER_DIST_PYTHON), { recursive: true, force: true });
    cpSync(join(root, PYTHON_OUT), join(root, SERVER_DIST_PYTHON), { recursive: true });
    written.push(`${SERVER_DIST_PYTHON}/`);
  }
  console.log(`docs: wrote ${written.join(' and ')}`);
}

try {
  if (wantApi) buildApiReference();
  if (wantClient) buildClientReference();
  if (wantPython) buildPythonReference();
} catch (error) {
  if (!(error instanceof DocsError)) throw error;
  console.error(`docs: ${error.message}`);
  process.exitCode = 1;
}
