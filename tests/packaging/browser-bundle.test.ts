// The client's browser entry, as a bundler sees the built package: `esbuild --bundle
// --platform=browser` of an app importing '@leasehold/client' picks the `browser` export
// condition and bundles with no error — no undici, no `node:` module, no FileIdempotencyStore —
// and the bundle runs a claim end to end through a fetch handler (the reference server's).
import { mkdtempSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLeaseholdServer } from '../../packages/server/src/index.js';
import { buildIfStale } from '../../scripts/pack-packages.mjs';

const CLIENT = fileURLToPath(new URL('../../packages/client', import.meta.url));
let work = '';

beforeAll(async () => {
  await buildIfStale();
  work = mkdtempSync(join(tmpdir(), 'leasehold-browser-'));
  mkdirSync(join(work, 'node_modules/@leasehold'), { recursive: true });
  symlinkSync(CLIENT, join(work, 'node_modules/@leasehold/client'), 'dir');
  writeFileSync(
    join(work, 'app.js'),
    `import { Leasehold, MemoryIdempotencyStore, VERSION } from '@leasehold/client';
export async function main(fetch) {
  const lh = new Leasehold({ baseUrl: 'https://leasehold.test', apiKey: 'lh_test_admin', fetch, idempotencyStore: new MemoryIdempotencyStore() });
  const lease = await lh.space('6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a').run(crypto.randomUUID(), { holder: 'browser' }).claim('k').acquire();
  const fence = lease.fence;
  await lease.release();
  await lh.close();
  return { fence, version: VERSION };
}
`,
  );
}, 240_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the browser entry of @leasehold/client', () => {
  it('bundles for the browser with esbuild, without undici or node: modules', async () => {
    const result = await build({ entryPoints: [join(work, 'app.js')], bundle: true, platform: 'browser', format: 'esm', write: false, metafile: true, logLevel: 'silent', absWorkingDir: work });
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((path) => path.includes('dist/browser.js'))).toBe(true);
    expect(inputs.filter((path) => /undici|node:|dist\/index\.js/.test(path))).toEqual([]);
    const code = result.outputFiles[0]!.text;
    expect(code).not.toMatch(/from\s*["']node:|require\(["']node:|FileIdempotencyStore/);

    // The bundle itself works: a claim through the reference server's fetch handler.
    writeFileSync(join(work, 'bundle.mjs'), code);
    const server = createLeaseholdServer();
    const { main } = (await import(join(work, 'bundle.mjs'))) as { main: (fetch: typeof globalThis.fetch) => Promise<{ fence: number; version: string }> };
    const outcome = await main((input, init) => server.handle(new Request(input as string, init)));
    expect(outcome.fence).toBeGreaterThan(0);
    expect(server.control.stats().held).toBe(0);
  }, 60_000);

  it('refuses an undici dispatcher with a clear error', async () => {
    const result = await build({ entryPoints: [join(work, 'app.js')], bundle: true, platform: 'browser', format: 'esm', write: false, logLevel: 'silent', absWorkingDir: work });
    writeFileSync(join(work, 'bundle2.mjs'), result.outputFiles[0]!.text.replace('export {', 'export { Leasehold as _Leasehold,'));
    const mod = (await import(join(work, 'bundle2.mjs'))) as { _Leasehold: new (options: object) => unknown };
    expect(() => new mod._Leasehold({ baseUrl: 'https://leasehold.test', apiKey: 'k', dispatcher: { dispatch: () => true } })).toThrow(/browser build sends with fetch only/);
  }, 60_000);
});
