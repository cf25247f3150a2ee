import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/dispatcher.ts'],
  format: ['esm'],
  // @leasehold/protocol is private (never published): its code and declaration types are bundled in.
  // (resolved to its sources, not through node_modules, which the declaration bundler would keep external).
  dts: { compilerOptions: { paths: { '@leasehold/protocol': ['../protocol/src/index.ts'] } } },
  noExternal: ['@leasehold/protocol'],
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
