/**
 * Security. Every production operation × every way a credential can be wrong — no key,
 * malformed, unknown, expired, blocked, suspended, missing permission, another account's (or
 * another credential scope's) resource — answers exactly the status and code the brief requires,
 * as a contract-valid envelope; a heartbeat never touches another credential's or another
 * session's leases; no token or API key ever shows in client logs, error messages, thrown errors
 * or server answers; and token comparison is constant-time (the same refusal whatever the wrong
 * token's length, and the engine compares in constant time: `safeEqual`/`bytesEqual`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { Leasehold, type Logger } from '../../packages/client/src/index.js';
import { DEFAULT_KEYS, listen, type KeyConfig, type LeaseholdServer, type NodeListener, type Store } from '../../packages/server/src/index.js';
import { FAKE_TIMERS, uuid } from '../client/harness.js';
import { createMatrixServer, disposeMatrixServer, disposeMatrixServers } from '../support/matrix-server.js';
import { contractProblems } from '../support/response-contract.js';
import { envelopeProblems } from './support/envelope.js';
import { observedListener } from './support/observed-listener.js';
import { SuiteReport } from './support/report.js';
import { settle, tickSettled } from './support/settled-time.js';
import { buildWorld, callJson, OPERATIONS, requestOf, snapshot, validCalls, type OperationInfo, type PlainCall, type World } from './support/world.js';

const ADMIN = 'lh_test_admin';
const READER = 'lh_test_reader';
const OTHER = 'lh_test_other';
/** The keys config of the suite: the demo keys plus one key per way a credential can be wrong. */
const KEY = {
  second: 'lh_sec_second_4Kq9Zt',
  writeOnly: 'lh_sec_writeonly_8Zt2Qm',
  expired: 'lh_sec_expired_2Hn7Wd',
  expiredAt: 'lh_sec_expiredat_6Rb1Xc',
  blocked: 'lh_sec_blocked_5Wc3Lp',
  suspended: 'lh_sec_suspended_9Lp4Vb',
  oneSpace: 'lh_sec_onespace_1Vx6Kd',
};
const ONE_SPACE_ID = '0f0f0f0f-1111-4222-8333-444455556666';
const START = Date.UTC(2026, 0, 1);
const KEYS: KeyConfig[] = [
  ...DEFAULT_KEYS,
  { apiKey: KEY.second, credentialId: 'cred_sec_second', accountId: 'acct_demo' },
  { apiKey: KEY.writeOnly, credentialId: 'cred_sec_writeonly', accountId: 'acct_demo', permissions: ['coordination_write', 'tasks:update', 'spools:write'] },
  { apiKey: KEY.expired, accountId: 'acct_demo', expired: true },
  { apiKey: KEY.expiredAt, accountId: 'acct_demo', expiresAt: START - 1 },
  { apiKey: KEY.blocked, accountId: 'acct_demo', blocked: true },
  { apiKey: KEY.suspended, accountId: 'acct_suspended' },
  { apiKey: KEY.oneSpace, accountId: 'acct_demo', spaces: [ONE_SPACE_ID] },
];
/** A key no server knows, handed to a client too: it must not leak either. */
const UNKNOWN_KEY = 'lh_test_not_a_key_7Yq';
const ALL_API_KEYS = [...KEYS.map((k) => k.apiKey), UNKNOWN_KEY];

const report = new SuiteReport('reliability: security');
afterAll(() => report.print());

/** Servers thrown away (their stores closed) after the test that made them. */
const testServers: Array<LeaseholdServer<Store>> = [];
afterEach(async () => {
  for (const server of testServers.splice(0)) await disposeMatrixServer(server);
});
afterAll(() => disposeMatrixServers());

/** A manual-clock server of the suite's keys on this project's store, thrown away after the test (`'test'`) or by its owner (`'owned'`). */
async function newServer(lifetime: 'test' | 'owned' = 'test'): Promise<LeaseholdServer<Store>> {
  const server = await createMatrixServer({ clock: 'manual', startTime: START, keys: KEYS });
  if (lifetime === 'test') testServers.push(server);
  await server.control.suspendAccount('acct_suspended');
  return server;
}

interface Answer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** Sends a call in process (with a fresh Idempotency-Key when it carries one, so no two sends share one). */
async function send(server: LeaseholdServer<Store>, call: PlainCall): Promise<Answer> {
  const headers = call.headers['idempotency-key'] === undefined ? call.headers : { ...call.headers, 'idempotency-key': `sec-${randomUUID()}` };
  const response = await server.handle(requestOf('http://security.test', { ...call, headers }));
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text && !(response.headers.get('content-type') ?? '').startsWith('text/event-stream') ? JSON.parse(text) : text || undefined, text };
}

const withAuth = (call: PlainCall, value: string | undefined): PlainCall => {
  const headers = { ...call.headers };
  if (value === undefined) delete headers.authorization;
  else headers.authorization = value;
  return { ...call, headers };
};

/** Asserts an error answer: status, code (`null`: none), the operation's contract and the envelope. */
function expectRefusal(op: OperationInfo, answer: Answer, status: number, code: string | null, where: string): void {
  const what = `${op.operationId} ${where} → ${answer.status} ${answer.text.slice(0, 300)}`;
  expect(answer.status, what).toBe(status);
  if (code === null) expect(answer.body, what).not.toHaveProperty('code');
  else expect(answer.body?.code, what).toBe(code);
  expect(envelopeProblems(answer), what).toEqual([]);
  if (status !== 404 || op.operationId !== 'createTask') expect(contractProblems(op.operationId, answer), what).toEqual([]);
}

/** The matrix as it was observed: operation → row → "status code". */
const matrix = new Map<string, Record<string, string>>();
const note = (op: string, row: string, answer: Answer) => {
  const rows = matrix.get(op) ?? {};
  rows[row] = `${answer.status}${answer.body?.code ? ` ${answer.body.code}` : ''}`;
  matrix.set(op, rows);
};

/** Two accounts' worlds on one fresh server: ours (admin) and theirs (other), named apart. */
async function twoWorlds(lifetime: 'test' | 'owned' = 'test'): Promise<{ server: LeaseholdServer<Store>; ours: World; theirs: World }> {
  const server = await newServer(lifetime);
  const ours = await buildWorld(server, ADMIN, { spool: 'billing' });
  const theirs = await buildWorld(server, OTHER, { spool: 'ledger', key: 'their/key', extraTasks: 8 });
  return { server, ours, theirs };
}

/**
 * For each operation: the request that reaches another account's resource (or, for space
 * operations, where any UUID is a space of the caller's own account, a space outside the
 * credential's scope), and what must answer. Everything here must be a 404 — never a 403 — or,
 * where the path names the caller's own resources, an answer that shows nothing of theirs.
 */
async function crossAccount(op: OperationInfo, server: LeaseholdServer<Store>, ours: World, theirs: World): Promise<void> {
  const base = validCalls(ours)[op.operationId] as PlainCall;
  const mine = validCalls(theirs)[op.operationId] as PlainCall;
  // Their request, sent with our key.
  const theirsWithOurKey = withAuth(mine, `Bearer ${ADMIN}`);
  const outOfScope = (call: PlainCall) => withAuth(call, `Bearer ${KEY.oneSpace}`);
  // Their reads (engine-wide counts left out: our own account may legitimately change).
  const before = await snapshot(theirs, { counts: false });
  switch (op.operationId) {
    case 'heartbeatClaims': {
      for (const claimId of [theirs.heldClaimId, theirs.claimed.claimId]) {
        const answer = await send(server, { ...base, headers: { ...base.headers, 'idempotency-key': randomUUID() }, body: JSON.stringify({ ttl: 30, claimId }) });
        note(op.operationId, 'their resource', answer);
        expectRefusal(op, answer, 404, 'claim_not_found', `their claim ${claimId}`);
      }
      break;
    }
    case 'listSpaceClaims': {
      const answer = await send(server, theirsWithOurKey);
      note(op.operationId, 'their resource', answer);
      expect(answer.status).toBe(200);
      expect(answer.body.data, 'their claims never show in our listing of the same space id').toEqual([]);
      expectRefusal(op, await send(server, outOfScope(base)), 404, 'space_not_found', 'a space outside the key');
      break;
    }
    case 'getSpaceClaim':
    case 'renewSpaceClaim':
    case 'releaseSpaceClaim': {
      const answer = await send(server, theirsWithOurKey);
      note(op.operationId, 'their resource', answer);
      if (op.operationId === 'getSpaceClaim') expectRefusal(op, answer, 404, 'claim_not_found', 'their key');
      else {
        // Their token on their key, from our account: the same answer as a token never issued.
        const unissued = await send(server, { ...theirsWithOurKey, body: JSON.stringify({ token: `lht_${'A'.repeat(16)}_${'B'.repeat(32)}` }) });
        expect(answer.status, answer.text).not.toBe(403);
        expect({ status: answer.status, code: answer.body?.code, message: answer.body?.message }).toEqual({
          status: unissued.status,
          code: unissued.body?.code,
          message: unissued.body?.message,
        });
        expectRefusal(op, answer, unissued.status, unissued.body?.code ?? null, 'their token');
      }
      expectRefusal(op, await send(server, outOfScope(base)), 404, 'space_not_found', 'a space outside the key');
      break;
    }
    case 'acquireSpaceClaim':
    case 'cancelScope': {
      // Their space id and run from our account: our own (independent) space; theirs is untouched.
      const answer = await send(server, theirsWithOurKey);
      note(op.operationId, 'their resource', answer);
      expect(answer.status, answer.text).toBeLessThan(300);
      if (op.operationId === 'cancelScope') expect(answer.body.claimsLost).toBe(0);
      expectRefusal(op, await send(server, outOfScope(base)), 404, 'space_not_found', 'a space outside the key');
      break;
    }
    case 'getSpaceActivity': {
      const answer = await send(server, theirsWithOurKey);
      note(op.operationId, 'their resource', answer);
      expect(answer.status).toBe(200);
      expect({ claims: answer.body.claims, waiters: answer.body.waiters, lost: answer.body.lost }, 'their activity never shows in ours').toEqual({ claims: [], waiters: [], lost: [] });
      expectRefusal(op, await send(server, outOfScope(base)), 404, 'space_not_found', 'a space outside the key');
      break;
    }
    case 'listSpaces':
    case 'listQueueStats':
    case 'listLeaseEvents':
    case 'streamLeaseEvents':
    case 'listSessions': {
      // The path names no account: each key sees its own account's activity, none of the other's.
      const answer = await send(server, base);
      note(op.operationId, 'their resource', answer);
      expect(answer.status, answer.text).toBe(200);
      for (const secret of [theirs.heldClaimId, theirs.claimed.claimId, theirs.spool]) expect(answer.text).not.toContain(secret);
      if (theirs.spaceId !== ours.spaceId) expect(answer.text).not.toContain(theirs.spaceId);
      break;
    }
    case 'listTasks': {
      // The path names no account: each key lists its own account's tasks, and none of the other's.
      const answer = await send(server, { ...base, query: 'limit=100' });
      note(op.operationId, 'their resource', answer);
      expect(answer.status, answer.text).toBe(200);
      const claimIds = (answer.body.data as Array<{ claim: { claimId: string } | null }>).map((task) => task.claim?.claimId);
      expect(claimIds, 'our claimed task is listed').toContain(ours.claimed.claimId);
      expect(claimIds, 'their claimed task is not').not.toContain(theirs.claimed.claimId);
      expect(answer.body.data.map((task: { id: number }) => task.id)).toEqual([ours.claimed.id, ours.open.id]);
      const theirList = await send(server, { ...mine, query: 'limit=100' });
      expect(theirList.body.data).toHaveLength(theirs.open.id);
      break;
    }
    case 'createTask': {
      // Nothing of theirs to name: our new task is numbered in our account, whatever they hold.
      const answer = await send(server, base);
      note(op.operationId, 'their resource', answer);
      expect(answer.status).toBe(201);
      expect(answer.body.id, 'task ids are per account: ours do not count theirs').toBe(ours.open.id + 1);
      break;
    }
    case 'createSpool': {
      const answer = await send(server, { ...base, body: JSON.stringify({ name: theirs.spool }) });
      note(op.operationId, 'their resource', answer);
      expect(answer.status, `a spool name they use is free for us (no spool_exists leak): ${answer.text}`).toBe(201);
      break;
    }
    default: {
      // Tasks and spools: their id / name / lease / handle, from our account.
      const answer = await send(server, theirsWithOurKey);
      note(op.operationId, 'their resource', answer);
      const code = op.template.startsWith('/v1/tasks') ? 'task_not_found' : 'spool_not_found';
      expectRefusal(op, answer, 404, code, 'their resource');
      if (['renewSpoolLease', 'ackMessage', 'nackMessage', 'discardMessage'].includes(op.operationId)) {
        // Their lease or handle inside our own spool of the same shape: indistinguishable from an unknown one.
        const own = { ...base, headers: { ...base.headers } };
        if (op.operationId === 'discardMessage') own.segments = [...base.segments.slice(0, -1), theirs.queuedHandle];
        else own.headers['spooler-lease'] = theirs.lease;
        const unknown = { ...base, headers: { ...base.headers } };
        if (op.operationId === 'discardMessage') unknown.segments = [...base.segments.slice(0, -1), 'hdl_Zz9Zz9Zz9Zz9Zz9Z'];
        else unknown.headers['spooler-lease'] = `sl_${'Q'.repeat(24)}`;
        const [a, b] = [await send(server, own), await send(server, unknown)];
        expect(a.status, a.text).not.toBe(403);
        expect({ status: a.status, code: a.body?.code }).toEqual({ status: b.status, code: b.body?.code });
      }
    }
  }
  expect(await snapshot(theirs, { counts: false }), 'their resources are unchanged').toEqual(before);
}

/**
 * The operations whose cross-account request succeeds in our own account (their space id or
 * spool name is free for us): each changes our world, so each gets worlds of its own.
 */
const CHANGES_OURS = new Set(['acquireSpaceClaim', 'cancelScope', 'createTask', 'createSpool']);

describe('the credential matrix: every production operation × every wrong credential', () => {
  // Every other operation leaves both worlds as they were (checked after each: refused requests
  // and reads only), so they share one pair of worlds — a store and two worlds per operation
  // would cost a SQL store's time for no check more.
  let shared: Promise<{ server: LeaseholdServer<Store>; ours: World; theirs: World }> | undefined;
  afterAll(async () => {
    if (shared !== undefined) await disposeMatrixServer((await shared).server);
  });
  const rows: Array<{ name: string; auth: (op: OperationInfo) => string | undefined; status: number; code: string | null }> = [
    { name: 'no key', auth: () => undefined, status: 401, code: 'missing_api_key' },
    { name: 'malformed (Basic)', auth: () => 'Basic bGhfdGVzdF9hZG1pbjo=', status: 401, code: 'invalid_api_key' },
    { name: 'malformed (two words)', auth: () => `Bearer ${ADMIN} extra`, status: 401, code: 'invalid_api_key' },
    { name: 'unknown', auth: () => 'Bearer lh_test_nobody', status: 401, code: 'invalid_api_key' },
    { name: 'expired', auth: () => `Bearer ${KEY.expired}`, status: 401, code: 'expired_api_key' },
    { name: 'expired (expiresAt passed)', auth: () => `Bearer ${KEY.expiredAt}`, status: 401, code: 'expired_api_key' },
    { name: 'blocked', auth: () => `Bearer ${KEY.blocked}`, status: 403, code: null },
    { name: 'suspended', auth: () => `Bearer ${KEY.suspended}`, status: 402, code: 'account_suspended' },
    { name: 'missing permission', auth: (op) => `Bearer ${op.read ? KEY.writeOnly : READER}`, status: 403, code: 'permission_denied' },
  ];

  afterAll(() => {
    const names = [...rows.map((r) => r.name), 'their resource'];
    report.set('matrix: operations × credential cases', `${matrix.size} × ${names.length}`);
    const summary: Record<string, Record<string, number>> = {};
    for (const cells of matrix.values()) {
      for (const [row, cell] of Object.entries(cells)) {
        summary[row] ??= {};
        summary[row][cell] = (summary[row][cell] ?? 0) + 1;
      }
    }
    report.set('matrix: answers per credential case (status code → operations)', summary);
  });

  // Those with worlds of their own first: on PGlite a store open beside the shared one costs an instance.
  const ordered = [...OPERATIONS.filter((op) => CHANGES_OURS.has(op.operationId)), ...OPERATIONS.filter((op) => !CHANGES_OURS.has(op.operationId))];
  it.each(ordered.map((op) => [op.operationId, op] as const))('%s', async (_name, op) => {
    const { server, ours, theirs } = CHANGES_OURS.has(op.operationId) ? await twoWorlds() : await (shared ??= twoWorlds('owned'));
    const oursBefore = await snapshot(ours);
    const call = validCalls(ours)[op.operationId] as PlainCall;
    for (const row of rows) {
      const answer = await send(server, withAuth(call, row.auth(op)));
      note(op.operationId, row.name, answer);
      expectRefusal(op, answer, row.status, row.code, row.name);
    }
    expect(await snapshot(ours), 'refused requests changed nothing').toEqual(oursBefore);
    await crossAccount(op, server, ours, theirs);
    if (!CHANGES_OURS.has(op.operationId)) expect(await snapshot(ours), 'our world is unchanged too (the next operation shares it)').toEqual(oursBefore);
  }, 60_000); // the operations with worlds of their own open two stores (on PGlite, a second instance)
});

describe('heartbeats touch only the caller\'s credential and session', () => {
  let listener: NodeListener | undefined;
  const clients: Leasehold[] = [];
  afterEach(async () => {
    vi.useRealTimers();
    await Promise.all(clients.splice(0).map((lh) => lh.close({ releaseLeases: false })));
    await listener?.close();
    listener = undefined;
  });

  it('a session-scoped heartbeat renews exactly its own leases; claimIds of others are 404', async () => {
    const server = await newServer();
    const spaceId = randomUUID();
    const acquire = async (apiKey: string, key: string, session: string) => {
      const answer = await callJson(server, 'POST', `/v1/spaces/${spaceId}/claims`, {
        key: apiKey,
        json: { key, scopeId: randomUUID(), holder: key, holderSession: session, leaseSeconds: 30 },
      });
      expect(answer.status).toBe(201);
      return answer.body.claimId as string;
    };
    const ours = { a: await acquire(ADMIN, 'ours/session-a', 'A'), b: await acquire(ADMIN, 'ours/session-b', 'B') };
    const sibling = await acquire(KEY.second, 'sibling/session-a', 'A'); // same account and session name, another credential
    const foreign = await acquire(OTHER, 'foreign/session-a', 'A'); // another account, same session name
    // A task claim and a spool lease of session A, one task claim of session B.
    const task = async (session: string) => {
      const created = await callJson(server, 'POST', '/v1/tasks', { key: ADMIN, json: { title: `task of ${session}` } });
      const claim = await callJson(server, 'POST', `/v1/tasks/${created.body.id}/claim`, { key: ADMIN, headers: { 'if-match': created.headers.get('etag') as string, 'leasehold-session': session } });
      expect(claim.status).toBe(200);
      return { id: created.body.id as number, claimId: claim.body.claimId as string, expiresUtc: claim.body.expiresUtc as string };
    };
    const taskA = await task('A');
    const taskB = await task('B');
    expect((await callJson(server, 'POST', '/v1/spools', { key: ADMIN, json: { name: 'hb' } })).status).toBe(201);
    expect((await callJson(server, 'PUT', '/v1/spools/hb/queues/q', { key: ADMIN, json: { leaseTimeoutSeconds: 30 } })).status).toBe(201);
    expect((await callJson(server, 'POST', '/v1/spools/hb/queues/q/messages', { key: ADMIN, json: { body: 1 } })).status).toBe(201);
    const received = await callJson(server, 'POST', '/v1/spools/hb/queues/q/receive', { key: ADMIN, headers: { 'leasehold-session': 'A' } });
    expect(received.status).toBe(200);

    await server.control.advanceClock(20_000);
    const beat = await callJson(server, 'POST', '/v1/claims/heartbeat', { key: ADMIN, json: { ttl: 60, holderSession: 'A' } });
    expect(beat.status).toBe(200);
    const touched = (beat.body.results as Array<{ claimId: string }>).map((r) => r.claimId);
    expect(touched).toContain(ours.a);
    expect(touched).toContain(taskA.claimId);
    expect(touched).toHaveLength(3); // space claim, task claim and spool lease of session A
    for (const untouched of [ours.b, sibling, foreign, taskB.claimId]) expect(touched).not.toContain(untouched);
    const taskBRead = await callJson(server, 'GET', `/v1/tasks/${taskB.id}`, { key: ADMIN });
    expect(taskBRead.body.claim.expiresUtc, "session B's task claim kept its expiry").toBe(taskB.expiresUtc);

    // Naming a lease of another credential, account or session: 404, never touched.
    for (const [claimId, session] of [[sibling, undefined], [foreign, undefined], [ours.b, 'A']] as const) {
      const answer = await callJson(server, 'POST', '/v1/claims/heartbeat', { key: ADMIN, json: { ttl: 60, claimId, ...(session ? { holderSession: session } : {}) } });
      expect(answer.status, answer.body?.message).toBe(404);
      expect(answer.body.code).toBe('claim_not_found');
    }

    // 15 s later the others' 30 s leases have run out; ours of session A lives on.
    await server.control.advanceClock(15_000);
    const row = async (apiKey: string, key: string) => (await callJson(server, 'GET', `/v1/spaces/${spaceId}/claims/${encodeURIComponent(key)}`, { key: apiKey })).status;
    expect(await row(ADMIN, 'ours/session-a')).toBe(200);
    expect(await row(ADMIN, 'ours/session-b')).toBe(404);
    expect(await row(KEY.second, 'sibling/session-a')).toBe(404);
    expect(await row(OTHER, 'foreign/session-a')).toBe(404);

    // Without a session the heartbeat covers the credential's leases of every session, still never another credential's.
    const all = await callJson(server, 'POST', '/v1/claims/heartbeat', { key: KEY.second, json: { ttl: 30 } });
    expect((all.body.results as Array<{ claimId: string; status: string }>).map((r) => r.claimId)).toEqual([sibling]);
    report.set('heartbeat isolation: leases of other credentials / accounts / sessions touched', 0);
  });

  it('through the SDK: one client\'s heartbeats never keep another session\'s lease alive', async () => {
    // Over real HTTP, the clients on fake timers; time moves only while no attempt is in flight.
    const server = await newServer();
    listener = await listen(server, { port: 0 });
    let attempts = 0;
    const client = () => {
      const hooks = { onAttemptStart: () => void attempts++, onAttemptEnd: () => void attempts-- };
      const lh = new Leasehold({ baseUrl: (listener as NodeListener).url, apiKey: ADMIN, heartbeatTtlSeconds: 5, renewal: { jitter: 0 }, hooks });
      clients.push(lh);
      return lh;
    };
    const settled = () => settle(() => attempts, 'attempts');
    const advance = async (ms: number, stepMs = 1_000) => {
      for (let left = ms; left > 0; left -= stepMs) {
        await settled();
        await server.control.advanceClock(Math.min(stepMs, left));
        await tickSettled(Math.min(stepMs, left), settled);
      }
    };
    vi.useFakeTimers(FAKE_TIMERS);
    const alive = client();
    const crashed = client(); // same API key, its own session
    const spaceId = uuid();
    const kept = await alive.space(spaceId).run(uuid(), { holder: 'alive' }).claim('kept').acquire();
    await crashed.space(spaceId).run(uuid(), { holder: 'crashed' }).claim('orphan').acquire();
    await crashed.close({ releaseLeases: false }); // "crash": stops heartbeating, releases nothing
    await advance(30_000);
    expect(kept.status).toBe('held');
    await expect(alive.space(spaceId).claims.get('orphan')).rejects.toMatchObject({ status: 404 });
    const rival = await alive.space(spaceId).run(uuid(), { holder: 'rival' }).claim('orphan').tryAcquire();
    expect(rival?.status).toBe('held');
  });
});

describe('secrets never leak', () => {
  it('no API key or lease token in client logs, errors, or server answers', async () => {
    const server = await newServer();
    const http = await observedListener(server, {}, true);
    const logs: string[] = [];
    const capture: Logger = {
      debug: (message, fields) => logs.push(`debug ${message} ${JSON.stringify(fields)} ${inspect(fields, { depth: 6 })}`),
      info: (message, fields) => logs.push(`info ${message} ${JSON.stringify(fields)} ${inspect(fields, { depth: 6 })}`),
      warn: (message, fields) => logs.push(`warn ${message} ${JSON.stringify(fields)} ${inspect(fields, { depth: 6 })}`),
      error: (message, fields) => logs.push(`error ${message} ${JSON.stringify(fields)} ${inspect(fields, { depth: 6 })}`),
    };
    const clients: Leasehold[] = [];
    const client = (apiKey: string, baseUrl = http.url) => {
      // Every level (`logLevel: 'debug'`): the secrets check scans every line the client can write.
      const lh = new Leasehold({ baseUrl, apiKey, logger: capture, logLevel: 'debug', maxRetries: 2, heartbeatTtlSeconds: 5, timeoutMs: 5_000 });
      clients.push(lh);
      return lh;
    };
    const errors: unknown[] = [];
    const attempt = async <T>(run: () => Promise<T>): Promise<T | undefined> => {
      try {
        return await run();
      } catch (error) {
        errors.push(error);
        return undefined;
      }
    };
    const tokens = new Set<string>();
    try {
      const admin = client(ADMIN);
      const other = client(OTHER);
      const spaceId = randomUUID();
      const run = admin.space(spaceId).run(randomUUID(), { holder: 'secrets' });

      // Space claims: acquire, renew, heartbeat with details, release; a lease lost under us.
      await server.control.injectFault({ operationId: 'acquireSpaceClaim', status: 503, times: 2 }); // retries get logged
      const held = await run.claim('k1').acquire();
      tokens.add(held.token);
      await held.renew();
      await admin.heartbeat({ ttl: 30, details: { step: 1 } });
      await held.release({ rows: 3 });
      const doomed = await run.claim('k2').acquire();
      tokens.add(doomed.token);
      await server.control.loseLease(doomed.claimId);
      await attempt(() => doomed.renew());
      await attempt(() => admin.heartbeat({ ttl: 'soon' as unknown as number }));
      const theirs = await other.space(spaceId).run(randomUUID(), { holder: 'theirs' }).claim('k3').acquire();
      tokens.add(theirs.token);
      await attempt(() => run.claim('k3').tryAcquire());

      // Tasks: a wrong claim token, their token on our task, completing twice.
      const { task, etag } = await admin.tasks.create({ title: 'secret work' });
      const claimed = await admin.tasks.claim(task.id, { etag });
      tokens.add(claimed.lease.token);
      const theirTask = await other.tasks.create({ title: 'their work' });
      const theirClaim = await other.tasks.claim(theirTask.task.id, { etag: theirTask.etag });
      tokens.add(theirClaim.lease.token);
      await attempt(() => admin.tasks.addNote(task.id, 'x', { etag: claimed.etag, claimToken: theirClaim.lease.token }));
      await attempt(() => admin.tasks.addNote(task.id, 'x', { etag: claimed.etag, claimToken: randomUUID() }));
      await attempt(() => admin.tasks.complete(task.id, {}, { etag: '"stale"', claimToken: claimed.lease.token }));
      const fresh = await admin.tasks.get(task.id);
      await admin.tasks.complete(task.id, { note: 'done' }, { etag: fresh.etag, claimToken: claimed.lease.token });
      await attempt(async () => admin.tasks.complete(task.id, {}, { etag: (await admin.tasks.get(task.id)).etag, claimToken: claimed.lease.token }));
      await attempt(() => claimed.lease.release());

      // Spools: a lease made stale by a primary change, then settled.
      await admin.spool('vault').create();
      await admin.spool('vault').queue('q').put({ leaseTimeoutSeconds: 30 });
      await admin.spool('vault').queue('q').send({ n: 1 });
      await admin.spool('vault').queue('q').send({ n: 2 });
      const message = await admin.spool('vault').queue('q').receive();
      if (message) tokens.add(message.token);
      await server.control.primaryChange();
      await attempt(async () => message?.ack());
      const second = await admin.spool('vault').queue('q').receive();
      if (second) tokens.add(second.token);
      await server.control.discardMessage({ spool: 'vault', handle: second?.message.handle ?? 'x', accountId: 'acct_demo' });
      await attempt(async () => second?.nack());

      // Wrong credentials of every kind, and a server that is not there.
      for (const apiKey of [KEY.expired, KEY.blocked, KEY.suspended, UNKNOWN_KEY, READER]) {
        await attempt(() => client(apiKey).tasks.create({ title: 'nope' }));
        await attempt(() => client(apiKey).space(spaceId).run(randomUUID(), { holder: 'x' }).claim('k9').tryAcquire());
      }
      await attempt(() => client(KEY.second, 'http://127.0.0.1:9').tasks.get(1, { maxRetries: 0 }));
    } finally {
      await Promise.all(clients.map((lh) => lh.close().catch((error: unknown) => errors.push(error))));
      await http.close();
    }

    // Every secret handed out: the API keys of the config and every token granted.
    for (const exchange of http.exchanges) {
      const body = exchange.response.body ? JSON.parse(exchange.response.body) : undefined;
      if (typeof body?.token === 'string') tokens.add(body.token);
      const lease = exchange.response.headers['Spooler-Lease'];
      if (lease) tokens.add(lease);
    }
    const secrets = [...ALL_API_KEYS, ...tokens];
    const findings: string[] = [];
    const scan = (where: string, text: string) => {
      for (const secret of secrets) if (text.includes(secret)) findings.push(`${where} shows ${secret.slice(0, 10)}…: ${text.slice(0, 300)}`);
    };
    logs.forEach((line, i) => scan(`log line ${i}`, line));
    errors.forEach((error, i) => {
      const e = error as Error;
      scan(`error ${i} String()`, String(e));
      scan(`error ${i} message`, e.message ?? '');
      scan(`error ${i} JSON`, JSON.stringify(e) ?? '');
      scan(`error ${i} inspect`, inspect(e, { depth: 6 }));
    });
    // Server answers, except where a token is the point: the acquirer's answer (and its replay) and the receive's lease header.
    let answersScanned = 0;
    for (const exchange of http.exchanges) {
      const grant =
        (exchange.method === 'POST' && /^\/v1\/spaces\/[^/]+\/claims$/.test(exchange.path) && exchange.response.status < 300) ||
        (/^\/v1\/tasks\/\d+\/claim$/.test(exchange.path) && exchange.response.status === 200);
      const headers = { ...exchange.response.headers };
      if (/\/receive$/.test(exchange.path)) delete headers['Spooler-Lease'];
      answersScanned++;
      scan(`answer to ${exchange.method} ${exchange.path} (headers)`, JSON.stringify(headers));
      if (!grant) scan(`answer to ${exchange.method} ${exchange.path} (body)`, exchange.response.body ?? '');
    }
    report.set('secrets handed out (API keys / lease tokens)', `${ALL_API_KEYS.length} / ${tokens.size}`);
    report.set('scanned: client log lines / thrown errors / server answers', `${logs.length} / ${errors.length} / ${answersScanned}`);
    report.set('secrets found in logs, errors or answers', findings.length);
    expect(errors.length, 'the workload provoked errors to scan').toBeGreaterThan(15);
    expect(logs.length, 'the workload produced logs to scan').toBeGreaterThan(20);
    expect(findings).toEqual([]);
  });
});

describe('token comparison is constant-time', () => {
  it('a wrong token is refused the same way whatever its length', async () => {
    const server = await newServer();
    const world = await buildWorld(server, ADMIN);
    const calls = validCalls(world);
    const refusal = async (call: PlainCall) => {
      const answer = await send(server, call);
      return { status: answer.status, code: answer.body?.code, message: answer.body?.message };
    };
    const flip = (token: string) => token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    const cases: Array<[string, string, (token: string) => PlainCall]> = [
      ['space claim token', world.heldToken, (token) => ({ ...(calls.renewSpaceClaim as PlainCall), body: JSON.stringify({ token }) })],
      ['spool lease', world.lease, (token) => ({ ...(calls.renewSpoolLease as PlainCall), headers: { ...(calls.renewSpoolLease as PlainCall).headers, 'spooler-lease': token } })],
      ['API key', ADMIN, (token) => withAuth(calls.getTask as PlainCall, `Bearer ${token}`)],
    ];
    const rows: Record<string, unknown> = {};
    for (const [name, real, call] of cases) {
      const sameLength = await refusal(call(flip(real)));
      const longer = await refusal(call(`${real}x`));
      const shorter = await refusal(call(real.slice(0, -3)));
      const otherSecret = await refusal(call(flip(real).replace(/^(.{6})./, '$1Z')));
      rows[name] = sameLength;
      expect(sameLength.status, name).toBeGreaterThanOrEqual(400);
      expect(longer, `${name}: longer`).toEqual(sameLength);
      expect(shorter, `${name}: shorter`).toEqual(sameLength);
      expect(otherSecret, `${name}: differs early`).toEqual(sameLength);
    }
    // Task claim tokens are UUIDs: any other length fails validation (400 invalid_token) before any comparison.
    const note = calls.addTaskNote as PlainCall;
    const real = world.claimed.token;
    const wrongUuid = await refusal({ ...note, headers: { ...note.headers, 'x-task-claim': real.slice(0, -1) + (real.endsWith('0') ? '1' : '0') } });
    const otherUuid = await refusal({ ...note, headers: { ...note.headers, 'x-task-claim': randomUUID() } });
    expect(wrongUuid).toEqual(otherUuid);
    expect(wrongUuid).toMatchObject({ status: 409, code: 'claim_not_held' });
    rows['task claim token'] = wrongUuid;
    report.set('constant-time: refusal of a wrong token (any length)', rows);
  });

  it('the engine compares every secret in constant time (documented by reading the sources)', () => {
    // Behaviour cannot show timing without flaky measurements, so this reads the engine: every
    // comparison of a token or key goes through `safeEqual` / `bytesEqual` (secrets.ts: every unit
    // XORed into one accumulator, no early exit — Web APIs only, so the engine also runs in a
    // browser), and no token is compared with === or !==.
    const engine = fileURLToPath(new URL('../../packages/server/src/engine/', import.meta.url));
    const sources = readdirSync(engine)
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
      .map((name) => ({ name, text: readFileSync(join(engine, name), 'utf8') }));
    const byName = Object.fromEntries(sources.map((s) => [s.name, s.text]));
    expect(byName['secrets.ts']).toMatch(/for \(let i = 0; i < secret\.length; i\+\+\) diff \|= presented\.charCodeAt\(i\) \^ secret\.charCodeAt\(i\);/);
    expect(byName['secrets.ts']).toMatch(/for \(let i = 0; i < a\.length; i\+\+\) diff \|= \(a\[i\] \?\? 0\) \^ \(b\[i\] \?\? 0\);/);
    expect(byName['credentials.ts'], 'API keys are matched with bytesEqual').toMatch(/bytesEqual\(entry\.hash, hash\)/);
    expect(byName['lease-tokens.ts'], 'lease tokens (space claims, spool leases) go through safeEqual').toMatch(/safeEqual\(presented, token\)/);
    expect(byName['task-guards.ts'], 'task claim tokens go through safeEqual').toMatch(/safeEqual\(token, task\.claim\.token\)/);
    const plain: string[] = [];
    for (const { name, text } of sources) {
      text.split('\n').forEach((line, i) => {
        const code = line.replace(/typeof\s+[\w.]+\s*[!=]==?\s*'\w+'/g, '');
        if (/\.token\s*[!=]==|[!=]==\s*[\w.]*\.token\b|apiKey\s*[!=]==|[!=]==\s*[\w.]*apiKey\b/.test(code)) plain.push(`${name}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(plain, 'secrets compared with ===').toEqual([]);
    report.set('constant-time: engine sources using safeEqual/bytesEqual', sources.filter((s) => /bytesEqual\(|safeEqual\(|tokenMatches\(/.test(s.text)).map((s) => s.name));
  });
});
