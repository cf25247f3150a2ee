/**
 * vitest globalSetup: one throwaway PostgreSQL cluster for the whole run (see
 * `postgres-cluster.ts`), its URL provided to test files as `inject('postgresUrl')`; each file
 * makes its own database in it (`createTestDatabase`). Stopped, and its data deleted, at teardown.
 */
import type { TestProject } from 'vitest/node';
import { startPostgresCluster, type PostgresCluster } from './postgres-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The admin URL of the run's throwaway cluster. */
    postgresUrl: string;
  }
}

let cluster: PostgresCluster | undefined;

/** Start the cluster and provide its URL. */
export default async function setup(project: TestProject): Promise<() => void> {
  cluster = await startPostgresCluster();
  project.provide('postgresUrl', cluster.url);
  return () => {
    cluster?.stop();
    cluster = undefined;
  };
}
