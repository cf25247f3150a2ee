import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run the workspace packages from source, so no build is needed first (CI still
    // builds, and tests/packaging checks the packed packages separately).
    alias: [
      { find: /^@leasehold\/client$/, replacement: source('./packages/client/src/index.ts') },
      { find: /^@leasehold\/server$/, replacement: source('./packages/server/src/index.ts') },
      { find: /^@leasehold\/msw$/, replacement: source('./packages/msw/src/index.ts') },
      { find: /^@leasehold\/msw\/dispatcher$/, replacement: source('./packages/msw/src/dispatcher.ts') },
      { find: /^@leasehold\/protocol$/, replacement: source('./packages/protocol/src/index.ts') },
    ],
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'tests/**/*.test.ts', 'scripts/**/*.test.ts', 'examples/*/src/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 20_000,
    // One throwaway PostgreSQL cluster per run for the store suites (tests/support/postgres-cluster.ts).
    globalSetup: ['tests/support/postgres-global-setup.ts'],
    // CI also writes a JSON report, from which scripts/test.sh prints a 'N passed, N failed' line.
    reporters: process.env.CI ? ['default', ['json', { outputFile: 'tmp/vitest-results.json' }]] : ['default'],
    pool: 'threads',
  },
});
