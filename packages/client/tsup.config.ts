import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  // The Node entry and the browser entry (the `browser` export condition): one build, so what they
  // share is one chunk, and only the Node entry's own chunk imports undici and `node:` modules.
  entry: { index: 'src/index.ts', browser: 'src/browser.ts' },
  format: ['esm'],
  splitting: true,
  // Declarations for the Node entry (the browser condition shares them). @leasehold/protocol's
  // types are inlined: resolved to its sources (not through node_modules, which the declaration
  // bundler would keep external).
  // `stripInternal`: the constructors the client itself calls (and their collaborator types) stay out of the typings.
  dts: { entry: { index: 'src/index.ts' }, compilerOptions: { stripInternal: true, paths: { '@leasehold/protocol': ['../protocol/src/index.ts'] } } },
  // @leasehold/protocol is private (never published): its code and types are bundled in.
  noExternal: ['@leasehold/protocol'],
  // The published bundle is plain, unminified ESM; no source maps (they would point at sources that do not ship).
  sourcemap: false,
  clean: true,
  target: 'node20',
  // Keep `node:` specifiers: bundlers then never mistake a builtin for an npm polyfill.
  removeNodeProtocol: false,
  // VERSION (src/core/version.ts) becomes a literal; running from source falls back to package.json.
  define: { __LEASEHOLD_VERSION__: JSON.stringify(pkg.version) },
});
