import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/dispatcher.ts'],
  format: ['esm'],
  dts: true,
  // The published bundle is plain, unminified ESM; no source maps (they would point at sources that do not ship).
  sourcemap: false,
  clean: true,
  target: 'node20',
  tsconfig: 'tsconfig.build.json',
  // Keep `node:` specifiers: bundlers then never mistake a builtin for an npm polyfill.
  removeNodeProtocol: false,
  // The reference server is a dependency and msw/undici are peers: never bundle them.
  external: ['msw', 'msw/node', 'undici', '@leasehold/server'],
});
