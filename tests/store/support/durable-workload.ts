/**
 * The kill -9 workload: lanes of writes against a CLI server (space claims with explicit
 * Idempotency-Keys, tasks with a claim and notes, messages and their leases), every 2xx answer
 * written into a ledger, and the ledger checked against the server after a restart. Each lane's
 * writes touch objects of its own, one at a time, so an answer lost to a kill leaves at most one
 * object per lane "uncertain" (its last write may or may not have committed); everything
 * acknowledged is checked exactly.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';

const ADMIN = 'lh_test_admin';
const SPACE = '6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a';
const SCOPE = '0b7e4c6a-1f2d-4e3b-8a9c-5d6e7f8a9b0c';
/** The spool every lane's queues live in (created by `prepare`). */
const SPOOL = 'durable';

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** One HTTP call; a network error (the server was killed) rejects. */
async function call(origin: string, method: string, path: string, options: { json?: unknown; headers?: Record<string, string>; idem?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${ADMIN}`, ...options.headers };
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  if (options.idem !== undefined) headers['idempotency-key'] = options.idem;
  const response = await fetch(`${origin}${path}`, { method, headers, body: options.json === undefined ? undefined : JSON.stringify(options.json) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
}

interface AckedClaim {
  key: string;
  idem: string;
  request: Record<string, unknown>;
  claimId: string;
  token: string;
  fence: number;
  expiresAt: number;
}

interface AckedTask {
  id: number;
  etag: string;
  notes: string[];
  claimId?: string | undefined;
  fence?: number | undefined;
  /** A write to it was in flight when the server died: its ETag may have moved on. */
  uncertain: boolean;
}

interface AckedQueue {
  queue: string;
  /** Messages sent and not (acknowledged as) received, by their body's marker. */
  waiting: string[];
  /** Leases of received messages: marker → `Spooler-Lease`. */
  leased: Map<string, string>;
  uncertain: boolean;
}

/** Every write the server acknowledged. */
export class Ledger {
  readonly claims: AckedClaim[] = [];
  readonly tasks: AckedTask[] = [];
  readonly queues: AckedQueue[] = [];
  /** Acknowledged 2xx writes, all kinds. */
  acked = 0;
  get maxFence(): number {
    return Math.max(0, ...this.claims.map((c) => c.fence), ...this.tasks.map((t) => t.fence ?? 0));
  }
}

/** Creates the spool the lanes' queues live in (before the first burst). */
export async function prepare(origin: string): Promise<void> {
  const created = await call(origin, 'POST', '/v1/spools', { json: { name: SPOOL }, idem: randomUUID() });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
}

async function claimStep(origin: string, ledger: Ledger): Promise<void> {
  const key = `k-${randomUUID()}`;
  const idem = `idem-${randomUUID()}`;
  const request = { key, scopeId: SCOPE, holder: 'durable', holderSession: 'sess-durable', leaseSeconds: 600 };
  const a = await call(origin, 'POST', `/v1/spaces/${SPACE}/claims`, { json: request, idem });
  expect(a.status, JSON.stringify(a.body)).toBe(201);
  ledger.claims.push({ key, idem, request, claimId: a.body.claimId, token: a.body.token, fence: a.body.fence, expiresAt: a.body.expiresAt });
  ledger.acked++;
}

async function taskSteps(origin: string, ledger: Ledger, random: () => number): Promise<void> {
  const created = await call(origin, 'POST', '/v1/tasks', { json: { title: `durable ${randomUUID()}` }, idem: randomUUID() });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const task: AckedTask = { id: created.body.id, etag: created.headers.get('etag')!, notes: [], uncertain: true };
  ledger.tasks.push(task);
  ledger.acked++;
  const claimed = await call(origin, 'POST', `/v1/tasks/${task.id}/claim`, { headers: { 'if-match': task.etag }, idem: randomUUID() });
  expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
  Object.assign(task, { etag: claimed.headers.get('etag')!, claimId: claimed.body.claimId, fence: claimed.body.fence });
  ledger.acked++;
  const token = claimed.body.token as string;
  for (let n = 0, notes = 1 + Math.floor(random() * 3); n < notes; n++) {
    const text = `note ${n} ${randomUUID()}`;
    const added = await call(origin, 'POST', `/v1/tasks/${task.id}/notes`, {
      json: { text },
      headers: { 'if-match': task.etag, 'x-task-claim': token },
      idem: randomUUID(),
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    task.notes.push(text);
    ledger.acked++;
    const read = await call(origin, 'GET', `/v1/tasks/${task.id}`);
    task.etag = read.headers.get('etag')!;
  }
  task.uncertain = false;
}

async function messageSteps(origin: string, ledger: Ledger, random: () => number): Promise<void> {
  const queue: AckedQueue = { queue: `q-${randomUUID().slice(0, 8)}`, waiting: [], leased: new Map(), uncertain: true };
  const put = await call(origin, 'PUT', `/v1/spools/${SPOOL}/queues/${queue.queue}`, { json: { leaseTimeoutSeconds: 600 } });
  expect(put.status, JSON.stringify(put.body)).toBe(201);
  ledger.queues.push(queue);
  for (let n = 0, messages = 1 + Math.floor(random() * 3); n < messages; n++) {
    const marker = randomUUID();
    const sent = await call(origin, 'POST', `/v1/spools/${SPOOL}/queues/${queue.queue}/messages`, { json: { body: { marker } }, idem: randomUUID() });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    queue.waiting.push(marker);
    ledger.acked++;
    if (random() < 0.6) {
      const got = await call(origin, 'POST', `/v1/spools/${SPOOL}/queues/${queue.queue}/receive`);
      expect(got.status, JSON.stringify(got.body)).toBe(200);
      const gotMarker = got.body.body.marker as string;
      expect(queue.waiting).toContain(gotMarker);
      queue.waiting.splice(queue.waiting.indexOf(gotMarker), 1);
      queue.leased.set(gotMarker, got.headers.get('spooler-lease')!);
      ledger.acked++;
    }
  }
  queue.uncertain = false;
}

/** Lanes of writes until the server stops answering (a lane ends at its first network error). */
export async function burst(origin: string, ledger: Ledger, random: () => number, lanes = 6): Promise<void> {
  const lane = async () => {
    try {
      for (;;) {
        const r = random();
        if (r < 0.45) await claimStep(origin, ledger);
        else if (r < 0.75) await taskSteps(origin, ledger, random);
        else await messageSteps(origin, ledger, random);
      }
    } catch (error) {
      // Only the kill ends a lane: an assertion (a wrong answer) is a failure.
      if (!(error instanceof TypeError)) throw error;
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
}

/**
 * Checks every acknowledged write against the restarted server: claims (id, fence, expiry, the
 * token renews, the Idempotency-Key replays the first answer), tasks (ETag, notes, claim),
 * messages (leases renew; waiting messages are still there), and a new fence above every old one.
 * Renewals move expiries: the ledger learns the new ones.
 */
export async function verify(origin: string, ledger: Ledger): Promise<void> {
  for (const claim of ledger.claims) {
    const path = `/v1/spaces/${SPACE}/claims/${encodeURIComponent(claim.key)}`;
    const read = await call(origin, 'GET', path);
    expect(read.status, `${claim.key}: ${JSON.stringify(read.body)}`).toBe(200);
    expect({ claimId: read.body.claimId, fence: read.body.fence, expiresAt: read.body.expiresAt }).toEqual({
      claimId: claim.claimId,
      fence: claim.fence,
      expiresAt: claim.expiresAt,
    });
    const replay = await call(origin, 'POST', `/v1/spaces/${SPACE}/claims`, { json: claim.request, idem: claim.idem });
    expect([replay.status, replay.headers.get('idempotent-replayed'), replay.body.claimId, replay.body.token]).toEqual([201, 'true', claim.claimId, claim.token]);
    const renewed = await call(origin, 'POST', `${path}/renew`, { json: { token: claim.token } });
    expect(renewed.status, JSON.stringify(renewed.body)).toBe(200);
    claim.expiresAt = renewed.body.expiresAt;
  }
  for (const task of ledger.tasks) {
    const read = await call(origin, 'GET', `/v1/tasks/${task.id}`);
    expect(read.status).toBe(200);
    const notes = (read.body.notes as { text: string }[]).map((n) => n.text);
    if (task.uncertain) {
      expect(notes.slice(0, task.notes.length)).toEqual(task.notes);
      if (task.claimId !== undefined) expect(read.body.claim?.claimId).toBe(task.claimId);
      // Settled now: what the server shows is what later rounds compare against.
      Object.assign(task, { etag: read.headers.get('etag')!, notes, claimId: read.body.claim?.claimId, uncertain: false });
    } else {
      expect({ etag: read.headers.get('etag'), notes, claimId: read.body.claim?.claimId }).toEqual({ etag: task.etag, notes: task.notes, claimId: task.claimId });
    }
  }
  for (const queue of ledger.queues) {
    for (const lease of queue.leased.values()) {
      const renewed = await call(origin, 'POST', `/v1/spools/${SPOOL}/renew`, { headers: { 'spooler-lease': lease } });
      expect(renewed.status, `lease of ${queue.queue}: ${JSON.stringify(renewed.body)}`).toBe(204);
    }
  }
  const fresh = await call(origin, 'POST', `/v1/spaces/${SPACE}/claims`, {
    json: { key: `fence-${randomUUID()}`, scopeId: SCOPE, holder: 'durable', holderSession: 'sess-durable' },
    idem: randomUUID(),
  });
  expect(fresh.status).toBe(201);
  expect(fresh.body.fence, 'a new fence is above every acknowledged one').toBeGreaterThan(ledger.maxFence);
}

/** The last check: every waiting message is still in its queue (each receive takes one). */
export async function drainQueues(origin: string, ledger: Ledger): Promise<number> {
  let found = 0;
  for (const queue of ledger.queues) {
    const markers: string[] = [];
    for (;;) {
      const got = await call(origin, 'POST', `/v1/spools/${SPOOL}/queues/${queue.queue}/receive`);
      if (got.status === 204) break;
      expect(got.status).toBe(200);
      markers.push(got.body.body.marker as string);
    }
    // An uncertain queue's last write lost its answer: a send may have added one message, or a
    // receive leased one away (for 600 s); every other acknowledged message is there, once.
    const missing = queue.waiting.filter((m) => !markers.includes(m));
    const extra = markers.filter((m) => !queue.waiting.includes(m));
    expect({ missing: missing.length, extra: extra.length }, `queue ${queue.queue}`).toEqual(
      queue.uncertain && missing.length + extra.length === 1 ? { missing: missing.length, extra: extra.length } : { missing: 0, extra: 0 },
    );
    found += markers.length - extra.length;
  }
  return found;
}
