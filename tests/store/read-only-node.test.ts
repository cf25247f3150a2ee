/**
 * A failover seen from one server: its database turns read-only under it (as a primary that a
 * failover demoted, or a standby a router sent it to). Simulated on a database of this file's own
 * in the run's throwaway cluster: `default_transaction_read_only` set and the backends cut, so the
 * pool's next connections are read-only. Every write then answers 503 with `Retry-After` (never
 * 500: PostgreSQL's 25006 is an outage, not a bug) and writes nothing; `/readyz` says the server
 * is connected to a read-only database. Once a writable database is back, service resumes without
 * a restart — and without cutting the read-only connections for it: the pool discards each one a
 * write or the readiness check finds read-only, instead of lending it out again.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLeaseholdServer, listen, openStore, type NodeListener, type Store } from '../../packages/server/src/index.js';
import { envelopeProblems } from '../support/leasehold-harness.js';
import { createTestDatabase } from '../support/postgres-database.js';

const ADMIN = 'lh_test_admin';
const POOL_SIZE = 3;
/** Attempts allowed to reach a writable connection again: each read-only one in the pool costs at most one. */
const ATTEMPTS = POOL_SIZE + 3;

let url: string;
let drop: () => Promise<void>;
let store: Store;
let listener: NodeListener;

beforeAll(async () => {
  ({ url, drop } = await createTestDatabase());
  store = await openStore(url, { poolSize: POOL_SIZE, statementTimeoutMs: 2_000, sweepIntervalMs: 0 });
  listener = await listen(createLeaseholdServer({ store }), { port: 0 });
}, 60_000);
afterAll(async () => {
  await listener?.close();
  await store?.close();
  await drop?.();
});

/** Runs `sql` on the test's database as the cluster's superuser, from outside the store's pool. */
async function asOperator(sql: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const client = new pg.Client({ connectionString: url.replace(/\/[^/]*$/, '/postgres') });
  await client.connect();
  try {
    await client.query(sql.replaceAll('$DB', name));
  } finally {
    await client.end();
  }
}

async function createTask(idem: string, title: string) {
  const response = await fetch(`${listener.url}/v1/tasks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json', 'idempotency-key': idem },
    body: JSON.stringify({ title }),
  });
  const body = (await response.json()) as { message?: string; type?: string; title?: string };
  return { status: response.status, headers: response.headers, body };
}

async function readyz() {
  const response = await fetch(`${listener.url}/readyz`);
  return { status: response.status, text: await response.text() };
}

async function titles(): Promise<string[]> {
  const response = await fetch(`${listener.url}/v1/tasks?limit=100`, { headers: { authorization: `Bearer ${ADMIN}` } });
  return ((await response.json()) as { data: { title: string }[] }).data.map((task) => task.title);
}

describe('the database turns read-only under a running server (a demoted primary)', () => {
  it('answers writes 503 + Retry-After, writing nothing, says so on /readyz, and resumes on its own', async () => {
    expect((await createTask(`idem-${randomUUID()}`, 'before')).status).toBe(201);
    expect((await readyz()).status).toBe(200);

    await asOperator('ALTER DATABASE $DB SET default_transaction_read_only = on');
    await asOperator("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '$DB' AND pid <> pg_backend_pid()");

    const refused: { idem: string; title: string }[] = [];
    const messages: string[] = [];
    for (let i = 0; i < 4; i++) {
      const write = { idem: `idem-${randomUUID()}`, title: `refused ${i}` };
      const answer = await createTask(write.idem, write.title);
      expect(answer.status, JSON.stringify(answer.body)).toBe(503);
      expect(envelopeProblems({ status: answer.status, headers: answer.headers, body: answer.body })).toEqual([]);
      expect(Number(answer.headers.get('retry-after')), 'Retry-After').toBeGreaterThan(0);
      refused.push(write);
      messages.push(answer.body.message ?? '');
    }
    // A write that met a cut connection is an outage too; the others say what is wrong.
    expect(messages.some((message) => /read-only/.test(message)), messages.join('\n')).toBe(true);
    const notReady = await readyz();
    expect(notReady.status).toBe(503);
    expect(notReady.text).toMatch(/read-only database/);

    // A writable database again, its read-only sessions left alive: the pool must drop them itself.
    await asOperator('ALTER DATABASE $DB RESET default_transaction_read_only');
    let written: Awaited<ReturnType<typeof createTask>> | undefined;
    for (let i = 0; i < ATTEMPTS && written?.status !== 201; i++) {
      written = await createTask(`idem-${randomUUID()}`, 'after');
      expect([201, 503], JSON.stringify(written.body)).toContain(written.status);
    }
    expect(written?.status, 'a write succeeds again without a restart').toBe(201);
    let ready = await readyz();
    for (let i = 0; i < ATTEMPTS && ready.status !== 200; i++) ready = await readyz();
    expect(ready.status, ready.text).toBe(200);

    // Nothing half-written: no refused write left a task, and each one's retry creates it fresh.
    expect(await titles()).toEqual(['before', 'after']);
    for (const write of refused) {
      const retry = await createTask(write.idem, write.title);
      expect(retry.status, JSON.stringify(retry.body)).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
    }
  }, 60_000);
});
