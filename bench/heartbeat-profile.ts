/**
 * Where a heartbeat of 10,000 leases on PostgreSQL spends its time, beat by beat: each message's
 * round trip (the driver's onQuery/onQueryDone), the wall and this process's CPU per beat, beside the
 * hand-written UPDATE of bench/sql-heartbeat.ts on the same cluster. Stands apart from `pnpm bench`
 * (like sql-driver.ts): `node --import tsx bench/heartbeat-profile.ts` (N=leases, BEATS=beats;
 * add --cpu-prof for a profile). docs/storage.md, "Speed: the heartbeat".
 */
import pg from 'pg';
import { SqlStore, createPgDriver } from '../packages/server/src/store/index.js';
import { RUN_ID, SPACE_ID } from './lib/fixtures.js';
import { BENCH_ACCOUNT, BENCH_KEYS, HEARTBEAT_KEY, startBenchCluster } from './lib/sql-backends.js';
import { seedHeldClaims } from './lib/sql-ceilings.js';
import { heartbeatCall } from './lib/sql-ops.js';
import { storeCaller } from './lib/store-calls.js';

const N = Number(process.env.N ?? 10000);
const cluster = await startBenchCluster();
const url = (await cluster.database()).url as string;
const admin = new pg.Client({ connectionString: url });
await admin.connect();
let msgs: { text: string; t0: number; ms?: number }[] = [];
let sent: { text: string; t0: number; ms?: number } | undefined;
const store = await SqlStore.open(createPgDriver({ url, onQuery: (text) => { sent = { text, t0: performance.now() }; msgs.push(sent); }, onQueryDone: (s) => { if (sent) sent.ms = s * 1000; } }), { keys: BENCH_KEYS, sweepIntervalMs: 0 });
await seedHeldClaims({ query: async (t: string, p: readonly unknown[] = []) => (await admin.query(t, [...p])).rows as never }, { accountId: BENCH_ACCOUNT, credentialId: 'cred_bench_heartbeat', spaceId: SPACE_ID, scopeId: RUN_ID, session: 'hb', prefix: 'hb/', count: N, leaseSeconds: 600 });
await store.maintain();
await admin.query(`CREATE TABLE plain_leases (id text PRIMARY KEY, key text NOT NULL UNIQUE, holder_session text NOT NULL, token_hash bytea NOT NULL, fence bigint NOT NULL, expires_at bigint NOT NULL);
  INSERT INTO plain_leases SELECT claim_id, key, holder_session, token_hash, fence, expires_at FROM leasehold.leases WHERE credential_id = 'cred_bench_heartbeat'; ANALYZE plain_leases`);
const ids = (await admin.query(`SELECT array_agg(id ORDER BY id) AS ids FROM plain_leases`)).rows[0].ids;
const direct = new pg.Pool({ connectionString: url, max: 1, options: '-c jit=off' });
const caller = storeCaller(store, HEARTBEAT_KEY);
const beat = async () => { const a = await caller.call(heartbeatCall('hb')); if (((a.body as string).match(/"held"/g) ?? []).length !== N) throw new Error('not all held'); };
const hand = async () => { const r = await direct.query({ name: 'h', text: `UPDATE plain_leases SET expires_at = $2::bigint + $3::bigint * 1000 WHERE id = ANY($1) AND holder_session = $4 AND expires_at > $2 RETURNING id, expires_at`, values: [ids, Date.now(), 600, 'hb'] }); if (r.rowCount !== N) throw new Error('hand'); };
for (let i = 0; i < 3; i++) { await beat(); await hand(); }
const rows: number[][] = []; const walls: number[] = []; const cpus: number[] = []; const hands: number[] = [];
for (let i = 0; i < Number(process.env.BEATS ?? 15); i++) {
  msgs = [];
  const c0 = process.cpuUsage(); const t0 = performance.now();
  await beat();
  walls.push(performance.now() - t0); const c = process.cpuUsage(c0); cpus.push((c.user + c.system) / 1000);
  rows.push(msgs.map((m) => m.ms ?? NaN));
  const h0 = performance.now(); await hand(); hands.push(performance.now() - h0);
}
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
console.log('messages:', msgs.map((m) => m.text.replace(/\s+/g, ' ').slice(0, 40)).join(' | '));
console.log('per message ms (median):', rows[0]!.map((_, k) => med(rows.map((r) => r[k]!)).toFixed(1)).join(' | '));
console.log(`beat wall ${med(walls).toFixed(1)} ms, process CPU ${med(cpus).toFixed(1)} ms; hand-written ${med(hands).toFixed(1)} ms; ratio ${(med(walls) / med(hands)).toFixed(2)}`);
await store.close(); await direct.end(); await admin.end(); cluster.stop();
