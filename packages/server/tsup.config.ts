import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/browser.ts', 'src/cli.ts'],
  format: ['esm'],
  // Types for the library entry only: the CLI (the `leasehold-server` bin) is not imported.
  // Its declaration types are inlined: resolved to its sources (not through node_modules, which
  // the declaration bundler would keep external).
  dts: { entry: 'src/index.ts', compilerOptions: { paths: { '@leasehold/protocol': ['../protocol/src/index.ts'] } } },
  // @leasehold/protocol is private (never published): its code and types are bundled in. So are
  // zod and @noble/hashes, which no public type names (build-time dependencies only): one module
  // of our own to load instead of ~100 (zod alone is 95 files), which takes a cold start's module
  // resolution down (docs/storage.md "Speed: start-up"). sorted-btree (one CommonJS file, ~12 ms
  // through Node's CommonJS bridge, ~4 ms bundled) too; it stays a dependency for its types, which
  // the engine's declarations name. prom-client stays a dependency: a
  // `ServerMetrics` registry is prom-client's own type, shared with the user's.
  noExternal: ['@leasehold/protocol', 'zod', '@noble/hashes', 'sorted-btree'],
  // The published bundle is plain, unminified ESM; no source maps (they would point at sources that do not ship).
  sourcemap: false,
  clean: true,
  target: 'node20',
  // Keep `node:` specifiers: bundlers then never mistake a builtin for an npm polyfill.
  removeNodeProtocol: false,
});
