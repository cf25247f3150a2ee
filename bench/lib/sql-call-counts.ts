/**
 * Round trips and statements per API operation, counted on the store's driver while one call
 * runs alone (authentication and rate limit included, as the pipeline runs them), on a fresh
 * PostgreSQL database and on PGlite (one SQL code path: the counts must agree).
 */
import { RUN_ID, SPACE_ID } from './fixtures.js';
import { BENCH_ACCOUNT, BENCH_KEY, HEARTBEAT_KEY, pgliteBackend, type BenchCluster, type SqlBackend } from './sql-backends.js';
import { seedHeldClaims } from './sql-ceilings.js';
import type { QueryCount } from './sql-counter.js';
import {
  ackCall,
  acquireCall,
  acquireHeld,
  createSpoolCall,
  heartbeatCall,
  putQueueCall,
  receiveCall,
  releaseCall,
  renewCall,
  sendCall,
} from './sql-ops.js';
import { storeCaller } from './store-calls.js';
import { single } from './stats.js';
import { finishRow, ratioTarget, valueTarget, type BenchContext, type Row } from './types.js';

type Counts = Map<string, QueryCount>;

async function countOn(backend: SqlBackend, heartbeatLeases: number): Promise<Counts> {
  const { store, counter } = await backend.openStore();
  const db = backend.direct();
  const caller = storeCaller(store, BENCH_KEY);
  const counts: Counts = new Map();
  const count = async (name: string, fn: () => Promise<unknown>) => counts.set(name, await counter.measure(fn));
  const header = `Bearer ${BENCH_KEY}`;

  await count('authenticate, first request of a key', () => Promise.resolve(store.authenticate(header)));
  await count('authenticate, again', () => Promise.resolve(store.authenticate(header)));
  const warm = await acquireHeld(caller, 'count/warm');
  await caller.call(renewCall(warm, true));
  await count('acquire', () => caller.call(acquireCall('count/a')));
  const held = await acquireHeld(caller, 'count/b');
  await count('renew (Idempotency-Key)', () => caller.call(renewCall(held, true)));
  await count('renew (no key)', () => caller.call(renewCall(held, false)));
  await count('release', () => caller.call(releaseCall(held)));

  const ids = { accountId: BENCH_ACCOUNT, credentialId: 'cred_bench_heartbeat', spaceId: SPACE_ID, scopeId: RUN_ID };
  await seedHeldClaims(db, { ...ids, session: 'hb-small', prefix: 'hb-small/', count: 10, leaseSeconds: 600 });
  await seedHeldClaims(db, { ...ids, session: 'hb-big', prefix: 'hb-big/', count: heartbeatLeases, leaseSeconds: 600 });
  await store.maintain();
  const hb = storeCaller(store, HEARTBEAT_KEY);
  await hb.call(heartbeatCall('hb-small'));
  await count('heartbeat of 10 leases', () => hb.call(heartbeatCall('hb-small')));
  await count(`heartbeat of ${heartbeatLeases.toLocaleString('en-US')} leases`, () => hb.call(heartbeatCall('hb-big')));

  await caller.call(createSpoolCall('count'));
  await caller.call(putQueueCall('count', 'q'));
  await count('send', () => caller.call(sendCall('count', 'q', 1)));
  let lease = '';
  await count('receive', async () => {
    lease = (JSON.parse((await caller.call(receiveCall('count', 'q'))).body as string) as { lease: string }).lease;
  });
  await count('ack', () => caller.call(ackCall('count', lease)));
  await count('sweep pass, nothing due', () => store.sweep());
  return counts;
}

/** The count rows (PostgreSQL's numbers; PGlite's must be equal) and notes on what was sent. */
export async function sqlCallCounts(ctx: BenchContext, cluster: BenchCluster, heartbeatLeases: number): Promise<{ rows: Row[]; notes: string[] }> {
  ctx.log('sql: counting round trips and statements per operation');
  const postgres = await cluster.database();
  let pg: Counts;
  try {
    pg = await countOn(postgres, heartbeatLeases);
  } finally {
    await postgres.close();
  }
  const pglite = await pgliteBackend();
  let lite: Counts;
  try {
    lite = await countOn(pglite, heartbeatLeases);
  } finally {
    await pglite.close();
  }
  const rows: Row[] = [];
  const notes: string[] = [];
  const big = `heartbeat of ${heartbeatLeases.toLocaleString('en-US')} leases`;
  for (const [name, c] of pg) {
    const target = name.startsWith('renew') || name === 'authenticate, again' ? valueTarget('<=', 1, 'round trip') : undefined;
    rows.push(finishRow({ bench: 'sql', label: `round trips: ${name}`, unit: 'round trips', value: single(c.roundTrips), target }));
    const other = lite.get(name);
    const same = other !== undefined && other.roundTrips === c.roundTrips && other.statements === c.statements;
    notes.push(`${name}: ${c.roundTrips} round trips, ${c.statements} statements — ${c.shapes.join(', ') || 'none'}${same ? '' : ` (PGlite differs: ${other?.roundTrips} / ${other?.statements})`}`);
  }
  const small = pg.get('heartbeat of 10 leases') as QueryCount;
  const large = pg.get(big) as QueryCount;
  rows.push(
    finishRow({
      bench: 'sql',
      label: `statements: ${big} vs of 10`,
      unit: 'statements',
      value: single(large.statements),
      baseline: { label: '10 leases', value: single(small.statements) },
      ratio: single(large.statements / small.statements),
      target: ratioTarget('<=', 1),
    }),
  );
  notes.unshift('round trips and statements per call, one call alone, authentication and rate limit included (functions the statements call run inside the database and are not counted); PostgreSQL and PGlite agree unless noted');
  return { rows, notes };
}
