import { defineConfig } from 'tsup';

/** Where the bundled workspace packages' sources are (the portable part of the server only). */
const PORTABLE_SOURCES = {
  '@leasehold/protocol': ['../protocol/src/index.ts'],
  '@leasehold/server/portable': ['../server/src/portable.ts'],
};

export default defineConfig({
  entry: ['src/index.ts', 'src/dispatcher.ts'],
  format: ['esm'],
  // The mock carries its own copy of the portable reference server (app, engine, memory store: Web
  // APIs only; `@leasehold/server/portable` in the sources names packages/server/src/portable.ts,
  // a workspace specifier that never reaches the bundle) instead of depending on `@leasehold/server`,
  // whose SQL stores, CLI, metrics and logs (PostgreSQL drivers, PGlite, pino, prom-client) a test
  // suite never runs. @leasehold/protocol is private (never published) and bundled in the same way.
  // Both resolve to their sources, not through node_modules (which the declaration bundler would keep external).
  dts: { compilerOptions: { paths: PORTABLE_SOURCES } },
  esbuildOptions(options) {
    options.alias = { ...options.alias, '@leasehold/server/portable': '../server/src/portable.ts' };
  },
  // zod and @noble/hashes are bundled too (build-time dependencies only): one module to load instead
  // of ~100 (zod alone is 95), which `import('@leasehold/msw')`, paid by every test file, resolves
  // and compiles. So is sorted-btree (its one CommonJS file is ~12 ms through Node's CommonJS bridge,
  // ~4 ms bundled); it stays a dependency for its types, which the declarations name.
  noExternal: ['@leasehold/protocol', '@leasehold/server/portable', 'zod', '@noble/hashes', 'sorted-btree'],
  // The published bundle is plain, unminified ESM; no source maps (they would point at sources that do not ship).
  sourcemap: false,
  clean: true,
  target: 'node20',
  tsconfig: 'tsconfig.build.json',
  // Keep `node:` specifiers: bundlers then never mistake a builtin for an npm polyfill.
  removeNodeProtocol: false,
  // msw and undici are peers: never bundle them.
  external: ['msw', 'msw/node', 'undici'],
});
