import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLIENT_REFERENCE, createSdkDocsLoader, PYTHON_REFERENCE } from './sdk-docs.js';

const scratch: string[] = [];
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'leasehold-sdk-docs-'));
  scratch.push(dir);
  return dir;
}

/** A checkout whose `scripts/docs.mjs` is `source` (the real one runs TypeDoc or python-docs.py). */
function checkoutWithDocsScript(source: string): string {
  const root = tempDir();
  mkdirSync(join(root, 'scripts'));
  writeFileSync(join(root, 'scripts', 'docs.mjs'), source);
  return root;
}

/** A docs script that, given `flag`, writes `docs/<folder>/index.html` with `html`; any other flag fails. */
function writingReference(flag: string, folder: string, html: string): string {
  return (
    "import { mkdirSync, writeFileSync } from 'node:fs';\n" +
    `if (process.argv[2] !== '${flag}') process.exit(3);\n` +
    `mkdirSync('docs/${folder}', { recursive: true });\n` +
    `writeFileSync('docs/${folder}/index.html', '${html}');\n`
  );
}

describe('the CLI SDK reference loaders (/docs/client/, /docs/python/)', () => {
  it('answers a page saying what to run, not a 404, when no reference is built and none can be', () => {
    const load = createSdkDocsLoader(CLIENT_REFERENCE, [join(tempDir(), 'docs', 'client')], { buildIn: false });
    const page = load('index.html');
    expect(page?.contentType).toBe('text/html; charset=utf-8');
    expect(page?.body).toContain('pnpm docs:client');
    expect(page?.body).toContain('<a href="../../openapi.json">');
    // Only the index stands in: any other file of a missing reference is still a 404.
    expect(load('classes/Leasehold.html')).toBeUndefined();
  });

  it('builds a missing reference in the checkout on the first request, and serves it once built', async () => {
    const root = checkoutWithDocsScript(writingReference('--client', 'client', '<h1>built</h1>'));
    const load = createSdkDocsLoader(CLIENT_REFERENCE, [join(root, 'docs', 'client')], { buildIn: root });
    const first = load('index.html');
    expect(first?.body).toContain('<meta http-equiv="refresh" content="2">');
    expect(first?.body).toContain('Building the SDK reference');
    await expect.poll(() => load('index.html')?.body, { timeout: 15_000, interval: 50 }).toBe('<h1>built</h1>');
  });

  it('says why when the build fails', async () => {
    const root = checkoutWithDocsScript("process.stderr.write('typedoc: no entry points'); process.exit(1);\n");
    const load = createSdkDocsLoader(CLIENT_REFERENCE, [join(root, 'docs', 'client')], { buildIn: root });
    load('index.html');
    await expect.poll(() => load('index.html')?.body ?? '', { timeout: 15_000, interval: 50 }).toContain('typedoc: no entry points');
    expect(load('index.html')?.body).toContain('pnpm docs:client');
  });

  it('serves the Python reference from its own folder, by its own build flag, and refuses paths that leave it', async () => {
    const root = checkoutWithDocsScript(writingReference('--python', 'python', '<h1>python</h1>'));
    writeFileSync(join(root, 'secret.html'), 'outside');
    const load = createSdkDocsLoader(PYTHON_REFERENCE, [join(root, 'docs', 'python')], { buildIn: root });
    expect(load('index.html')?.body).toContain('Building the Python SDK reference (<code>pnpm docs:python</code>)');
    await expect.poll(() => load('index.html')?.body, { timeout: 15_000, interval: 50 }).toBe('<h1>python</h1>');
    expect(load('../../secret.html')).toBeUndefined();
    expect(load('%2e%2e/%2e%2e/secret.html')).toBeUndefined();
    expect(load('missing.html')).toBeUndefined();
  });

  it('says what to run for the Python reference when none is built and none can be', () => {
    const page = createSdkDocsLoader(PYTHON_REFERENCE, [join(tempDir(), 'docs', 'python')], { buildIn: false })('index.html');
    expect(page?.body).toContain('pnpm docs:python');
    expect(page?.body).toContain('Python SDK reference has not been built');
  });
});
