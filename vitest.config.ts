import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './tests/support/slow-first-sequencer.js';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The store matrix (docs/architecture.md, "One behaviour, one test suite"): every suite runs on
 * the memory store; the suites that talk to a server through its HTTP app also run on PostgreSQL
 * (a database per server, cloned from a migrated template in the run's throwaway cluster) and on
 * PGlite (instances loaded once per worker from a migrated template and emptied between servers,
 * tests/support/pglite-template.ts); the seed pages' CLI server (tests/seeds) gets `--store` with
 * a fresh database or embedded directory. Left out of the store projects: suites that never open a
 * store of the matrix (tests/server/cli.test.ts spawns the CLI on its default store; `--store`
 * has its own suite, tests/store/cli-store.test.ts), and the reliability suites whose outcome no
 * SQL store decides: tests/reliability/client-bad-input (the client refuses before anything is
 * sent), client-bad-answers (answers the test fabricates) and heap (the heap of the memory
 * store's engine and of the client, each in a process of its own). tests/store has suites of its own for what only a SQL store has (migrations, pools,
 * outages, kill -9 of the CLI on PostgreSQL and on a directory).
 */
const STORE_SUITES = ['tests/server/**/*.test.ts', 'tests/seeds/**/*.test.ts', 'tests/reliability/{bad-input,chaos,crash-recovery,ghost-leases,ghost-restart,hygiene,security}.test.ts'];
const NOT_ON_STORES = ['tests/server/cli.test.ts'];

const EXCLUDE = ['**/node_modules/**', '**/dist/**'];

export default defineConfig({
  resolve: {
    // Tests run the workspace packages from source, so no build is needed first (CI still
    // builds, and tests/packaging checks the packed packages separately).
    alias: [
      { find: /^@leasehold\/client$/, replacement: source('./packages/client/src/index.ts') },
      { find: /^@leasehold\/server$/, replacement: source('./packages/server/src/index.ts') },
      { find: /^@leasehold\/server\/portable$/, replacement: source('./packages/server/src/portable.ts') },
      { find: /^@leasehold\/msw$/, replacement: source('./packages/msw/src/index.ts') },
      { find: /^@leasehold\/msw\/dispatcher$/, replacement: source('./packages/msw/src/dispatcher.ts') },
      { find: /^@leasehold\/protocol$/, replacement: source('./packages/protocol/src/index.ts') },
    ],
  },
  test: {
    exclude: EXCLUDE,
    testTimeout: 20_000,
    // A hook may open an embedded PostgreSQL (PGlite compiles its WebAssembly) or start a CLI
    // child while other workers keep both cores busy.
    hookTimeout: 30_000,
    // Most suites spend their time waiting (on child processes, PostgreSQL, Chromium, sockets),
    // so one more worker than cores keeps the cores busy: on CI's 2 cores 3 workers instead of
    // vitest's default of cores - 1 (a single worker, which ran the suites one file at a time).
    // Suites that share files serialize on a lock (scripts/pack-packages.mjs buildIfStale). At
    // most 8, well inside the test cluster's max_connections (each worker lends a few pools).
    maxWorkers: Math.min(8, availableParallelism() + 1),
    // One throwaway PostgreSQL cluster per run for the store suites (tests/support/postgres-cluster.ts).
    globalSetup: ['tests/support/postgres-global-setup.ts'],
    // CI also writes a JSON report, from which scripts/test.sh prints a 'N passed, N failed' line.
    reporters: process.env.CI ? ['default', ['json', { outputFile: 'tmp/vitest-results.json' }]] : ['default'],
    pool: 'threads',
    // The longest suites start first, whatever their project (tests/support/slow-first-sequencer.ts).
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'memory',
          include: ['packages/*/src/**/*.test.ts', 'tests/**/*.test.ts', 'scripts/**/*.test.ts', 'examples/*/src/**/*.test.ts'],
          env: { LEASEHOLD_TEST_STORE: 'memory' },
        },
      },
      {
        extends: true,
        test: { name: 'postgres', include: [...STORE_SUITES, 'tests/python/**/*.test.ts'], exclude: [...EXCLUDE, ...NOT_ON_STORES], env: { LEASEHOLD_TEST_STORE: 'postgres' } },
      },
      {
        extends: true,
        test: { name: 'pglite', include: STORE_SUITES, exclude: [...EXCLUDE, ...NOT_ON_STORES], env: { LEASEHOLD_TEST_STORE: 'pglite' } },
      },
    ],
  },
});
