/**
 * The systems the `alternatives` benchmark drives, each opened inside its own driver child
 * (`alternatives.child.ts`), so that process's CPU is that system's client side alone:
 *   - `leasehold`: `@leasehold/client` as it ships against the reference server — a spool queue
 *     (send, receive, ack) and exclusive leases (`claim(key).tryAcquire()`, `release()`);
 *   - `pg-boss`: pg-boss's documented v10 API — `send`, `fetch` (one job), `complete`;
 *   - `pg`: what a PostgreSQL user writes by hand through `pg` — a lease row (`INSERT … ON CONFLICT
 *     DO NOTHING RETURNING`, then `DELETE … WHERE key AND holder`) and session advisory locks.
 *   - `leasehold-renew` (the `scale-out` benchmark): `lease.renew()` of a claim each worker holds,
 *     through one of several servers of one database (`renew-<n>`: the workers split over the first n).
 * Each operation is one unit of work of one worker; every worker leases a key of its own.
 */
import pg from 'pg';
import PgBoss from 'pg-boss';
import { API_KEY, RUN_ID, SPACE_ID } from './fixtures.js';
import { loadSdk } from './sdk.js';

/** Which system a driver child opens, and how it reaches it. */
export type DriverConfig =
  | { system: 'leasehold'; serverUrl: string }
  | { system: 'leasehold-renew'; serverUrls: string[]; workers: number }
  | { system: 'pg-boss'; databaseUrl: string; poolSize: number }
  | { system: 'pg'; databaseUrl: string; poolSize: number };

/** A system opened in a driver child: its operations by name, and its teardown. */
export interface DriverSystem {
  /** One unit of work (a job, a lease pair) by worker `worker`; it throws when the system refuses it. */
  ops: Readonly<Record<string, (worker: number) => Promise<void>>>;
  /** How often a receive or fetch came back empty so far (it is then asked again). */
  misses(): number;
  close(): Promise<void>;
}

/** The spool and queue (Leasehold), the queue (pg-boss). */
const SPOOL = 'alternatives';
const QUEUE = 'jobs';

/** The hand-written lease table of the `pg` system. */
const LEASE_TABLE = 'CREATE TABLE IF NOT EXISTS lease (key text PRIMARY KEY, holder text NOT NULL, expires_at timestamptz NOT NULL)';
const LEASE_INSERT = `INSERT INTO lease(key, holder, expires_at) VALUES ($1, $2, now() + interval '30 seconds') ON CONFLICT DO NOTHING RETURNING key`;
const LEASE_DELETE = 'DELETE FROM lease WHERE key = $1 AND holder = $2';

async function leasehold(serverUrl: string): Promise<DriverSystem> {
  const { Leasehold } = await loadSdk();
  // As a user writes it: the client's own keep-alive Agent (no dispatcher given).
  const lh = new Leasehold({ baseUrl: serverUrl, apiKey: API_KEY });
  await lh.spool(SPOOL).create();
  const queue = lh.spool(SPOOL).queue<{ n: number }>(QUEUE);
  await queue.put({ leaseTimeoutSeconds: 60 });
  const run = lh.space(SPACE_ID).run(RUN_ID, { holder: 'bench' });
  let sent = 0;
  let misses = 0;
  return {
    ops: {
      async queue() {
        await queue.send({ n: sent++ });
        for (;;) {
          const lease = await queue.receive();
          if (lease !== null) return lease.ack();
          misses++;
        }
      },
      async lease(worker) {
        const lease = await run.claim(`alternatives/${worker}`).tryAcquire();
        if (lease === null) throw new Error(`alternatives/${worker} is held by someone else`);
        await lease.release();
      },
    },
    misses: () => misses,
    close: () => lh.close(),
  };
}

/**
 * One `Leasehold` client per server; for every n ≤ servers, worker w holds a claim of its own
 * (acquired once, 600 s) through client w mod n, which `renew-<n>` renews.
 */
async function leaseholdRenew(serverUrls: readonly string[], workers: number): Promise<DriverSystem> {
  const { Leasehold } = await loadSdk();
  // A 600 s heartbeat ttl: the claims' lease, and no batch heartbeat inside a window.
  const clients = serverUrls.map((baseUrl) => new Leasehold({ baseUrl, apiKey: API_KEY, heartbeatTtlSeconds: 600 }));
  const ops: Record<string, (worker: number) => Promise<void>> = {};
  for (let n = 1; n <= clients.length; n++) {
    const leases = await Promise.all(
      Array.from({ length: workers }, (_, w) => {
        const lh = clients[w % n] as (typeof clients)[number];
        return lh.space(SPACE_ID).run(RUN_ID, { holder: `worker-${w}` }).claim(`scale-out/${n}/${w}`).acquire();
      }),
    );
    ops[`renew-${n}`] = async (worker) => {
      const lease = leases[worker];
      if (lease === undefined) throw new Error(`no worker ${worker}`);
      await lease.renew();
    };
  }
  return { ops, misses: () => 0, close: async () => void (await Promise.all(clients.map((lh) => lh.close()))) };
}

async function pgBoss(databaseUrl: string, poolSize: number): Promise<DriverSystem> {
  // pg-boss's defaults otherwise (maintenance and scheduling on, a standard queue), as a user starts it.
  const boss = new PgBoss({ connectionString: databaseUrl, max: poolSize });
  boss.on('error', (error: unknown) => process.stderr.write(`[bench] pg-boss: ${String(error)}\n`));
  await boss.start();
  await boss.createQueue(QUEUE);
  let sent = 0;
  let misses = 0;
  return {
    ops: {
      async queue() {
        await boss.send(QUEUE, { n: sent++ });
        for (;;) {
          const [job] = await boss.fetch<{ n: number }>(QUEUE);
          if (job !== undefined) return boss.complete(QUEUE, job.id);
          misses++;
        }
      },
    },
    misses: () => misses,
    close: () => boss.stop({ graceful: false, wait: true }),
  };
}

async function plainPg(databaseUrl: string, poolSize: number): Promise<DriverSystem> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
  await pool.query(LEASE_TABLE);
  return {
    ops: {
      async 'lease-row'(worker) {
        const key = `alternatives/${worker}`;
        const holder = `worker-${worker}`;
        const taken = await pool.query(LEASE_INSERT, [key, holder]);
        if (taken.rowCount !== 1) throw new Error(`${key} is held by someone else`);
        await pool.query(LEASE_DELETE, [key, holder]);
      },
      // A session lock: taken and given back on the same connection, checked out for the pair.
      async advisory(worker) {
        const client = await pool.connect();
        try {
          await client.query('SELECT pg_advisory_lock($1)', [worker + 1]);
          await client.query('SELECT pg_advisory_unlock($1)', [worker + 1]);
        } finally {
          client.release();
        }
      },
    },
    misses: () => 0,
    close: () => pool.end(),
  };
}

/** Opens the system `config` names (creating its spool and queue, its held claims, its queue, or its lease table). */
export function openSystem(config: DriverConfig): Promise<DriverSystem> {
  switch (config.system) {
    case 'leasehold':
      return leasehold(config.serverUrl);
    case 'leasehold-renew':
      return leaseholdRenew(config.serverUrls, config.workers);
    case 'pg-boss':
      return pgBoss(config.databaseUrl, config.poolSize);
    case 'pg':
      return plainPg(config.databaseUrl, config.poolSize);
  }
}
