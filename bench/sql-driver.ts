/**
 * `node --import tsx bench/sql-driver.ts` — pg vs postgres (postgres.js) on the same statements
 * against a throwaway local cluster: a renew-shaped UPDATE ... RETURNING on its own (one round
 * trip) and inside BEGIN/COMMIT (the store's unit of work), sequentially and 16 at a time on a
 * pool of 8. Prints operations per second; the numbers behind the driver choice in docs/storage.md.
 */
import pg from 'pg';
import postgres from 'postgres';
import { startPostgresCluster } from '../tests/support/postgres-cluster.js';

const ROWS = 1000;
const SEQUENTIAL = Number(process.env.BENCH_N ?? 4000);
const CONCURRENT = SEQUENTIAL * 2;
const POOL = 8;
const PARALLEL = 16;

const RENEW = 'UPDATE bench_leases SET expires_at = $2 WHERE id = $1 AND token_hash = $3 RETURNING id, expires_at';

interface Runner {
  name: string;
  renew(id: number): Promise<unknown>;
  renewInTransaction(id: number): Promise<unknown>;
  close(): Promise<void>;
}

function hashOf(id: number): Buffer {
  return Buffer.from(id.toString(16).padStart(64, '0'), 'hex');
}

async function pgRunner(url: string): Promise<Runner> {
  const pool = new pg.Pool({ connectionString: url, max: POOL });
  return {
    name: 'pg',
    renew: (id) => pool.query({ name: 'renew', text: RENEW, values: [id, Date.now(), hashOf(id)] }),
    async renewInTransaction(id) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await client.query({ name: 'renew', text: RENEW, values: [id, Date.now(), hashOf(id)] });
        await client.query('COMMIT');
        return result;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

async function postgresRunner(url: string): Promise<Runner> {
  const sql = postgres(url, { max: POOL, onnotice: () => {} });
  return {
    name: 'postgres',
    renew: (id) => sql.unsafe(RENEW, [id, Date.now(), hashOf(id)], { prepare: true }),
    renewInTransaction: (id) => sql.begin((tx) => tx.unsafe(RENEW, [id, Date.now(), hashOf(id)], { prepare: true })),
    close: () => sql.end(),
  };
}

async function timed(count: number, parallel: number, op: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        const i = next++;
        await op((i % ROWS) + 1);
      }
    }),
  );
  return Math.round((count / (performance.now() - started)) * 1000);
}

const cluster = await startPostgresCluster();
try {
  const setup = new pg.Client({ connectionString: cluster.url });
  await setup.connect();
  await setup.query('CREATE TABLE bench_leases (id int PRIMARY KEY, expires_at bigint, token_hash bytea NOT NULL)');
  for (let id = 1; id <= ROWS; id++) await setup.query('INSERT INTO bench_leases VALUES ($1, 0, $2)', [id, hashOf(id)]);
  await setup.end();
  const rows: string[] = [];
  for (let round = 0; round < 2; round++) {
    for (const make of [pgRunner, postgresRunner]) {
      const runner = await make(cluster.url);
      await timed(500, PARALLEL, (id) => runner.renew(id)); // warm-up: connections and prepared statements
      const seq = await timed(SEQUENTIAL, 1, (id) => runner.renew(id));
      const seqTx = await timed(SEQUENTIAL, 1, (id) => runner.renewInTransaction(id));
      const par = await timed(CONCURRENT, PARALLEL, (id) => runner.renew(id));
      const parTx = await timed(CONCURRENT, PARALLEL, (id) => runner.renewInTransaction(id));
      await runner.close();
      if (round === 1) rows.push(`${runner.name.padEnd(9)} ${String(seq).padStart(8)} ${String(seqTx).padStart(10)} ${String(par).padStart(10)} ${String(parTx).padStart(12)}`);
    }
  }
  process.stdout.write(`ops/s (pool ${POOL}, ${PARALLEL} in flight for the parallel columns)\n`);
  process.stdout.write('driver    1 stmt  1 in tx   16x stmt   16x in tx\n');
  process.stdout.write(`${rows.join('\n')}\n`);
} finally {
  cluster.stop();
}
