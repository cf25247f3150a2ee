import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/dispatcher.ts'],
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  tsconfig: 'tsconfig.build.json',
  external: ['msw', 'msw/node', 'undici', '@leasehold/server'],
});
