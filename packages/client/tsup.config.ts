import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  dts: true,
  // The published bundle is plain, unminified ESM; no source maps (they would point at sources that do not ship).
  sourcemap: false,
  clean: true,
  target: 'node20',
  // Keep `node:` specifiers: bundlers then never mistake a builtin for an npm polyfill.
  removeNodeProtocol: false,
  // VERSION (src/core/version.ts) becomes a literal; running from source falls back to package.json.
  define: { __LEASEHOLD_VERSION__: JSON.stringify(pkg.version) },
});
