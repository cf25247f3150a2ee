/**
 * ONE scripted sequence over the whole API — space claims with a waiter, the batch heartbeat,
 * clock-driven expiry, a task claim, a spool round trip and a 410 after discard — run against
 * any transport. Each run records a transcript of what came back.
 */

/** Sends one request; `path` is relative to the base URL (`/v1/...`). */
export type Send = (request: { method: string; path: string; headers: Record<string, string>; body?: string }) => Promise<{
  status: number;
  headers: Record<string, string>;
  body: string;
}>;

/** The in-process levers the sequence pulls between requests. */
export interface SequenceControl {
  advanceClock(ms: number): number;
}

/** One recorded answer. */
export interface Step {
  step: string;
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export const SPACE = '6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a';
export const SCOPE = '0b7e4c6a-1f2d-4e3b-8a9c-5d6e7f8a9b0c';
const KEY = 'reports/2026-11';

/** Headers worth comparing (transport-specific ones such as `connection` are left out). */
const KEPT_HEADERS = [
  'content-type',
  'request-id',
  'date',
  'etag',
  'retry-after',
  'idempotent-replayed',
  'spooler-lease',
  'spooler-lease-expires-at',
  'spooler-lease-timeout',
];

/**
 * Runs the sequence and returns its transcript. `base` is the base URL the transport was called
 * with: error bodies link their `doc_url` beneath it, recorded as `<base>/...` so transcripts of
 * transports with different base URLs compare (a `doc_url` elsewhere stays as it is, and differs).
 */
export async function runScriptedSequence(send: Send, control: SequenceControl, base: string): Promise<Step[]> {
  const steps: Step[] = [];
  const call = async (step: string, method: string, path: string, options: { key?: string; headers?: Record<string, string>; body?: unknown } = {}) => {
    const headers: Record<string, string> = { authorization: `Bearer ${options.key ?? 'lh_test_admin'}`, ...options.headers };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const answer = await send({ method, path, headers, ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) });
    const kept: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = answer.headers[name];
      if (value !== undefined) kept[name] = value;
    }
    const parsed = answer.body === '' ? undefined : (JSON.parse(answer.body) as any);
    const recorded = typeof parsed?.doc_url === 'string' && parsed.doc_url.startsWith(`${base}/`) ? { ...parsed, doc_url: `<base>${parsed.doc_url.slice(base.length)}` } : parsed;
    steps.push({ step, status: answer.status, headers: kept, body: recorded });
    return { ...answer, json: parsed, header: (name: string) => answer.headers[name] ?? '' };
  };
  const claims = `/v1/spaces/${SPACE}/claims`;
  const claimOf = `${claims}/${encodeURIComponent(KEY)}`;
  const acquire = (step: string, holder: string, session: string, idempotencyKey: string, wait?: boolean) =>
    call(step, 'POST', claims, {
      headers: { 'idempotency-key': idempotencyKey },
      body: { key: KEY, scopeId: SCOPE, holder, holderSession: session, leaseSeconds: 30, ...(wait === undefined ? {} : { wait }) },
    });
  const heartbeat = (step: string, session: string, ttl: number) =>
    call(step, 'POST', '/v1/claims/heartbeat', { body: { ttl, holderSession: session } });

  // Space claims: a holder, a conflict, a waiter, heartbeats, expiry hands the key on.
  await acquire('acquire', 'worker-a', 'sess_a', 'idem-a');
  await acquire('conflicting acquire', 'worker-b', 'sess_b', 'idem-b1');
  const waiter = await acquire('wait in queue', 'worker-b', 'sess_b', 'idem-b2', true);
  await acquire('replayed acquire', 'worker-a', 'sess_a', 'idem-a');
  await heartbeat('heartbeat holder', 'sess_a', 30);
  await heartbeat('heartbeat waiter', 'sess_b', 120);
  await call('read holder', 'GET', claimOf);
  const now = control.advanceClock(31_000);
  steps.push({ step: 'advance clock 31 s', status: 0, headers: {}, body: { now } });
  await heartbeat('waiter granted', 'sess_b', 30);
  await heartbeat('holder lost', 'sess_a', 30);
  await call('read new holder', 'GET', claimOf);
  await call('release', 'POST', `${claimOf}/release`, { body: { token: waiter.json.token, observation: { done: true } } });
  await call('read free key', 'GET', claimOf);
  await call('list', 'GET', `${claims}?prefix=reports%2F`);

  // Task claim and completion under If-Match.
  const task = await call('create task', 'POST', '/v1/tasks', { headers: { 'idempotency-key': 'idem-t1' }, body: { title: 'Rebuild the report' } });
  const claim = await call('claim task', 'POST', `/v1/tasks/${task.json.id}/claim`, {
    headers: { 'if-match': task.header('etag'), 'idempotency-key': 'idem-t2', 'leasehold-session': 'sess_t' },
  });
  // A claim keeps the ETag: the same If-Match meets the live claim (409), a stale one is 412.
  await call('claimed again', 'POST', `/v1/tasks/${task.json.id}/claim`, {
    headers: { 'if-match': task.header('etag'), 'idempotency-key': 'idem-t3' },
  });
  await call('stale claim', 'POST', `/v1/tasks/${task.json.id}/claim`, {
    headers: { 'if-match': `"task-${task.json.id}-v0"`, 'idempotency-key': 'idem-t4' },
  });
  await call('complete task', 'POST', `/v1/tasks/${task.json.id}/complete`, {
    headers: { 'if-match': claim.header('etag'), 'x-task-claim': claim.json.token },
    body: { result: { pages: 12 } },
  });

  // Spool: send, receive, ack; then a discard makes the lease stale (410).
  await call('create spool', 'POST', '/v1/spools', { headers: { 'idempotency-key': 'idem-s1' }, body: { name: 'billing' } });
  await call('put queue', 'PUT', '/v1/spools/billing/queues/invoices', { body: { leaseTimeoutSeconds: 30 } });
  const send1 = { headers: { 'idempotency-key': 'idem-m1' }, body: { body: { invoiceId: 'inv_1' } } };
  await call('send', 'POST', '/v1/spools/billing/queues/invoices/messages', send1);
  const first = await call('receive', 'POST', '/v1/spools/billing/queues/invoices/receive', { headers: { 'leasehold-session': 'sess_s' } });
  await call('ack', 'POST', '/v1/spools/billing/ack', { headers: { 'spooler-lease': first.header('spooler-lease') } });
  await call('send again', 'POST', '/v1/spools/billing/queues/invoices/messages', { headers: { 'idempotency-key': 'idem-m2' }, body: { body: { invoiceId: 'inv_2' } } });
  const second = await call('receive again', 'POST', '/v1/spools/billing/queues/invoices/receive');
  await call('discard', 'DELETE', `/v1/spools/billing/messages/${encodeURIComponent(second.json.handle)}`);
  await call('ack after discard', 'POST', '/v1/spools/billing/ack', { headers: { 'spooler-lease': second.header('spooler-lease') } });
  await call('receive from empty queue', 'POST', '/v1/spools/billing/queues/invoices/receive');
  await call('unknown key', 'POST', '/v1/claims/heartbeat', { key: 'lh_nope', body: { ttl: 30 } });
  return steps;
}
