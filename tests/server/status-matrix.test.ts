/**
 * Every documented status of every operation, reached over real HTTP on 127.0.0.1 and checked
 * against the bundled spec by the shared contract helper. The last block compares what the run
 * observed (`observedStatuses`) with what each operation declares, so a status nobody reaches
 * fails the suite. Keep the whole matrix in this one file: vitest isolates files, and the
 * coverage check only sees the answers validated in its own file.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiOperationId } from '@leasehold/protocol';
import type { LeaseholdServerOptions } from '../../packages/server/src/index.js';
import {
  ADMIN,
  DEMO_ACCOUNT,
  OTHER,
  READER,
  SCOPE,
  SCOPE_B,
  SPACE,
  SPACE_B,
  expectError,
  expectStatus,
  keysWith,
  startServer,
  stopServers,
  type Answer,
  type CallOptions,
  type TestServer,
} from '../support/leasehold-harness.js';
import { observedStatuses } from '../support/response-contract.js';
import { listOperations } from '../support/spec-validator.js';

afterEach(stopServers);

/** A key of `acct_demo` with no permission at all, for 403 on the read operations. */
const NO_PERMISSIONS = 'lh_test_noperm';
/** A key of `acct_demo` that sees only `SPACE`: every other space is 404 to it. */
const ONE_SPACE = 'lh_test_onespace';

const start = (options: LeaseholdServerOptions = {}) =>
  startServer({
    keys: keysWith(
      { apiKey: NO_PERMISSIONS, credentialId: 'cred_test_noperm', accountId: DEMO_ACCOUNT, permissions: [] },
      { apiKey: ONE_SPACE, credentialId: 'cred_test_onespace', accountId: DEMO_ACCOUNT, spaces: [SPACE] },
    ),
    ...options,
  });

type Sample = (h: TestServer) => Promise<CallOptions>;

const ZERO_UUID = '00000000-0000-0000-0000-000000000000';
const WRONG_TOKEN = '22222222-2222-4222-8222-222222222222';
const ONE_MIB_PLUS = JSON.stringify({ pad: 'x'.repeat(1024 * 1024) });

async function heldClaim(h: TestServer, key = 'reports/2026-11'): Promise<CallOptions> {
  const claim = await h.acquire(key);
  return { path: { spaceId: SPACE, key }, json: { token: claim.body.token } };
}

async function claimedTask(h: TestServer): Promise<{ id: number; etag: string; token: string }> {
  const task = await h.createTask();
  const claim = await h.claimTask(task.id, task.etag);
  return { id: task.id, etag: claim.etag, token: claim.token };
}

async function leased(h: TestServer, timeout: number | null = 30): Promise<{ lease: string; handle: string }> {
  await h.createQueue('billing', 'invoices', timeout);
  await h.sendMessage('billing', 'invoices');
  const { lease, answer } = await h.receive('billing', 'invoices');
  return { lease, handle: answer.body.handle as string };
}

/** For each production operation: its success status, a valid request, and an invalid one. */
/** What the matrix needs of one operation (a missing operation does not compile). */
interface OperationCases {
  success: number;
  read?: boolean;
  sample: Sample;
  invalid: { param: string; code?: string; make: Sample };
}

const operations: Record<string, OperationCases> = {
  heartbeatClaims: {
    success: 200,
    sample: async () => ({ json: { ttl: 30 } }),
    invalid: { param: 'ttl', make: async () => ({ json: { ttl: 'soon' } }) },
  },
  listSpaceClaims: {
    success: 200,
    read: true,
    sample: async () => ({ path: { spaceId: SPACE } }),
    invalid: { param: 'limit', make: async () => ({ path: { spaceId: SPACE }, query: { limit: 0 } }) },
  },
  acquireSpaceClaim: {
    success: 201,
    sample: async () => ({
      path: { spaceId: SPACE },
      json: { key: 'reports/2026-11', scopeId: SCOPE, holder: 'worker-1', holderSession: 'sess-1' },
    }),
    invalid: {
      param: 'key',
      make: async () => ({ path: { spaceId: SPACE }, json: { key: 'k'.repeat(513), scopeId: SCOPE, holder: 'w', holderSession: 's' } }),
    },
  },
  getSpaceClaim: {
    success: 200,
    read: true,
    sample: async (h) => ({ path: (await heldClaim(h)).path }),
    invalid: { param: 'spaceId', make: async () => ({ path: { spaceId: 'not-a-uuid', key: 'k' } }) },
  },
  renewSpaceClaim: {
    success: 200,
    sample: heldClaim,
    invalid: { param: 'leaseSeconds', make: async (h) => ({ ...(await heldClaim(h)), json: { token: 'lht_x', leaseSeconds: 601 } }) },
  },
  releaseSpaceClaim: {
    success: 200,
    sample: heldClaim,
    invalid: { param: 'token', make: async (h) => ({ ...(await heldClaim(h)), json: {} }) },
  },
  cancelScope: {
    success: 200,
    sample: async () => ({ path: { spaceId: SPACE, scopeId: SCOPE } }),
    invalid: { param: 'scopeId', make: async () => ({ path: { spaceId: SPACE, scopeId: 'run-1' } }) },
  },
  createTask: {
    success: 201,
    sample: async () => ({ json: { title: 'Rebuild the November report' } }),
    invalid: { param: 'title', make: async () => ({ json: { title: '' } }) },
  },
  listTasks: {
    success: 200,
    read: true,
    sample: async (h) => {
      await h.createTask();
      return { query: { status: 'Todo', limit: 10 } };
    },
    invalid: { param: 'limit', make: async () => ({ query: { limit: 101 } }) },
  },
  listSpaces: {
    success: 200,
    read: true,
    sample: async (h) => {
      await h.acquire('k');
      return { query: { limit: 10 } };
    },
    invalid: { param: 'limit', make: async () => ({ query: { limit: 0 } }) },
  },
  getSpaceActivity: {
    success: 200,
    read: true,
    sample: async () => ({ path: { spaceId: SPACE } }),
    invalid: { param: 'limit', make: async () => ({ path: { spaceId: SPACE }, query: { limit: 101 } }) },
  },
  listQueueStats: {
    success: 200,
    read: true,
    sample: async () => ({}),
    invalid: { param: 'limit', make: async () => ({ query: { limit: 0 } }) },
  },
  getQueueActivity: {
    success: 200,
    read: true,
    sample: async (h) => {
      await h.createQueue('billing', 'invoices');
      return { path: { spool: 'billing', queue: 'invoices' }, query: { limit: 10 } };
    },
    invalid: { param: 'cursor', make: async () => ({ path: { spool: 'billing', queue: 'invoices' }, query: { cursor: 'bogus' } }) },
  },
  listLeaseEvents: {
    success: 200,
    read: true,
    sample: async () => ({ query: { limit: 5 } }),
    invalid: { param: 'cursor', make: async () => ({ query: { cursor: 'bogus' } }) },
  },
  streamLeaseEvents: {
    success: 200,
    read: true,
    sample: async () => ({ headers: { 'Last-Event-ID': 'evt_0' } }),
    invalid: { param: 'limit', make: async () => ({ query: { limit: 0 } }) },
  },
  listSessions: {
    success: 200,
    read: true,
    sample: async () => ({}),
    invalid: { param: 'limit', make: async () => ({ query: { limit: 0 } }) },
  },
  getTask: {
    success: 200,
    read: true,
    sample: async (h) => ({ path: { taskId: (await h.createTask()).id } }),
    invalid: { param: 'taskId', make: async () => ({ path: { taskId: 'forty-two' } }) },
  },
  updateTask: {
    success: 200,
    sample: async (h) => {
      const task = await h.createTask();
      return { path: { taskId: task.id }, headers: { 'If-Match': task.etag }, json: { status: 'InProgress' } };
    },
    invalid: {
      param: 'status',
      make: async (h) => {
        const task = await h.createTask();
        return { path: { taskId: task.id }, headers: { 'If-Match': task.etag }, json: { status: 'Paused' } };
      },
    },
  },
  addTaskNote: {
    success: 201,
    sample: async (h) => {
      const task = await h.createTask();
      return { path: { taskId: task.id }, headers: { 'If-Match': task.etag }, json: { text: 'Draft prepared.' } };
    },
    invalid: {
      param: 'text',
      make: async (h) => {
        const task = await h.createTask();
        return { path: { taskId: task.id }, headers: { 'If-Match': task.etag }, json: { text: '' } };
      },
    },
  },
  claimTask: {
    success: 200,
    sample: async (h) => {
      const task = await h.createTask();
      return { path: { taskId: task.id }, headers: { 'If-Match': task.etag } };
    },
    invalid: {
      param: 'force',
      make: async (h) => {
        const task = await h.createTask();
        return { path: { taskId: task.id }, headers: { 'If-Match': task.etag }, json: { force: true } };
      },
    },
  },
  renewTaskClaim: {
    success: 200,
    sample: async (h) => {
      const task = await claimedTask(h);
      return { path: { taskId: task.id }, headers: { 'If-Match': task.etag }, json: { token: task.token } };
    },
    invalid: {
      param: 'token',
      make: async (h) => {
        const task = await claimedTask(h);
        return { path: { taskId: task.id }, headers: { 'If-Match': task.etag }, json: { token: 'not-a-uuid' } };
      },
    },
  },
  releaseTaskClaim: {
    success: 200,
    sample: async (h) => {
      const task = await claimedTask(h);
      return { path: { taskId: task.id }, headers: { 'If-Match': task.etag }, json: { token: task.token } };
    },
    invalid: {
      param: 'token',
      code: 'invalid_token',
      make: async (h) => {
        const task = await claimedTask(h);
        return { path: { taskId: task.id }, headers: { 'If-Match': task.etag }, json: { token: ZERO_UUID } };
      },
    },
  },
  revokeTaskClaim: {
    success: 200,
    sample: async (h) => {
      const task = await claimedTask(h);
      return { path: { taskId: task.id }, headers: { 'If-Match': task.etag } };
    },
    invalid: {
      param: 'If-Match',
      code: 'invalid_if_match',
      make: async (h) => {
        const task = await claimedTask(h);
        return { path: { taskId: task.id }, headers: { 'If-Match': 'task-1-v1' } };
      },
    },
  },
  requeueTask: {
    success: 200,
    sample: async (h) => {
      const task = await claimedTask(h);
      return { path: { taskId: task.id }, headers: { 'If-Match': task.etag } };
    },
    invalid: {
      param: 'taskId',
      make: async () => ({ path: { taskId: 'not-a-number' }, headers: { 'If-Match': '"task-1-v1"' } }),
    },
  },
  completeTask: {
    success: 200,
    sample: async (h) => {
      const task = await h.createTask();
      return { path: { taskId: task.id }, headers: { 'If-Match': task.etag }, json: { result: { pdf: 'reports/2026-11.pdf' } } };
    },
    invalid: {
      param: 'If-Match',
      code: 'invalid_if_match',
      make: async (h) => {
        const task = await h.createTask();
        return { path: { taskId: task.id }, headers: { 'If-Match': 'task-1-v1' } };
      },
    },
  },
  createSpool: {
    success: 201,
    sample: async () => ({ json: { name: 'billing' } }),
    invalid: { param: 'name', make: async () => ({ json: { name: 'bad name!' } }) },
  },
  putQueue: {
    success: 201,
    sample: async (h) => {
      expectStatus(await h.call('createSpool', { json: { name: 'billing' } }), 201);
      return { path: { spool: 'billing', queue: 'invoices' }, json: { leaseTimeoutSeconds: 30 } };
    },
    invalid: { param: 'leaseTimeoutSeconds', make: async () => ({ path: { spool: 'billing', queue: 'invoices' }, json: { leaseTimeoutSeconds: 0 } }) },
  },
  sendMessage: {
    success: 201,
    sample: async (h) => {
      await h.createQueue('billing', 'invoices');
      return { path: { spool: 'billing', queue: 'invoices' }, json: { body: { invoiceId: 'inv_1042' } } };
    },
    invalid: { param: 'delaySeconds', make: async () => ({ path: { spool: 'billing', queue: 'invoices' }, json: { body: 1, delaySeconds: 901 } }) },
  },
  receiveMessage: {
    success: 200,
    sample: async (h) => {
      await h.createQueue('billing', 'invoices');
      await h.sendMessage('billing', 'invoices');
      return { path: { spool: 'billing', queue: 'invoices' } };
    },
    invalid: { param: 'queue', make: async () => ({ path: { spool: 'billing', queue: 'bad queue' } }) },
  },
  renewSpoolLease: {
    success: 204,
    sample: async (h) => ({ path: { spool: 'billing' }, headers: { 'Spooler-Lease': (await leased(h)).lease } }),
    invalid: { param: 'Spooler-Lease', make: async () => ({ path: { spool: 'billing' }, headers: { 'Spooler-Lease': 'short' } }) },
  },
  ackMessage: {
    success: 204,
    sample: async (h) => ({ path: { spool: 'billing' }, headers: { 'Spooler-Lease': (await leased(h)).lease } }),
    invalid: { param: 'Spooler-Lease', make: async () => ({ path: { spool: 'billing' } }) },
  },
  nackMessage: {
    success: 204,
    sample: async (h) => ({ path: { spool: 'billing' }, headers: { 'Spooler-Lease': (await leased(h)).lease } }),
    invalid: {
      param: 'delaySeconds',
      make: async (h) => ({ path: { spool: 'billing' }, headers: { 'Spooler-Lease': (await leased(h)).lease }, json: { delaySeconds: -1 } }),
    },
  },
  discardMessage: {
    success: 204,
    sample: async (h) => {
      await h.createQueue('billing', 'invoices');
      const message = await h.sendMessage('billing', 'invoices');
      return { path: { spool: 'billing', handle: message.handle } };
    },
    invalid: { param: 'handle', make: async () => ({ path: { spool: 'billing', handle: 'nope' } }) },
  },
} satisfies Record<ApiOperationId, OperationCases>;

const specOperations = listOperations();
const hasBody = (operationId: string) =>
  specOperations.find((o) => o.operation.operationId === operationId)?.operation.requestBody !== undefined;

describe.each(Object.entries(operations))('%s', (operationId, op) => {
  it(`answers ${op.success} to a valid request`, async () => {
    const h = await start();
    expectStatus(await h.call(operationId, await op.sample(h)), op.success);
  });

  it(`answers 400 naming ${op.invalid.param}`, async () => {
    const h = await start();
    expectError(await h.call(operationId, await op.invalid.make(h)), 400, op.invalid.code, op.invalid.param);
  });

  it('answers 401 missing_api_key without an API key', async () => {
    const h = await start();
    expectError(await h.call(operationId, { ...(await op.sample(h)), key: null }), 401, 'missing_api_key');
  });

  it('answers 402 account_suspended for a suspended account', async () => {
    const h = await start();
    const options = await op.sample(h);
    await h.control.suspendAccount(DEMO_ACCOUNT);
    expectError(await h.call(operationId, options), 402, 'account_suspended');
  });

  it(`answers 403 permission_denied to ${op.read ? 'a key without permissions' : 'the read-only key'}`, async () => {
    const h = await start();
    const answer = await h.call(operationId, { ...(await op.sample(h)), key: op.read ? NO_PERMISSIONS : READER });
    expectError(answer, 403, 'permission_denied');
  });

  it('answers 403 with no code to a blocked key', async () => {
    const h = await start();
    const options = await op.sample(h);
    await h.control.blockKey(ADMIN);
    expectError(await h.call(operationId, options), 403, null);
  });

  it('answers 429 rate_limited with Retry-After in whole seconds, not repeated in the body', async () => {
    const h = await start();
    const options = await op.sample(h);
    await h.control.setRateLimit(ADMIN, 1);
    await h.call(operationId, options);
    const limited = await h.call(operationId, options);
    expectError(limited, 429, 'rate_limited');
    expect(limited.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    expect(JSON.stringify(limited.body)).not.toMatch(/retry|wait|seconds/i);
  });

  it('answers 500 internal_error for an injected fault', async () => {
    const h = await start();
    const options = await op.sample(h);
    await h.control.injectFault({ operationId, status: 500, times: 1 });
    expectError(await h.call(operationId, options), 500, 'internal_error');
  });

  it('answers 503 service_unavailable with Retry-After for an injected outage', async () => {
    const h = await start();
    const options = await op.sample(h);
    await h.control.injectFault({ operationId, status: 503, retryAfterSeconds: 2, times: 1 });
    const answer = await h.call(operationId, options);
    expectError(answer, 503, 'service_unavailable');
    expect(answer.headers.get('retry-after')).toBe('2');
  });

  if (hasBody(operationId)) {
    it('answers 413 body_too_large to a body over 1 MiB', async () => {
      const h = await start();
      const options = await op.sample(h);
      const answer = await h.call(operationId, { ...options, json: undefined, body: ONE_MIB_PLUS, headers: { ...options.headers, 'Content-Type': 'application/json' } });
      expectError(answer, 413, 'body_too_large');
    });

    it('answers 415 unsupported_media_type to a body that is not application/json', async () => {
      const h = await start();
      const options = await op.sample(h);
      const body = JSON.stringify(options.json ?? {});
      const answer = await h.call(operationId, { ...options, json: undefined, body, headers: { ...options.headers, 'Content-Type': 'text/plain' } });
      expectError(answer, 415, 'unsupported_media_type');
    });
  }
});

/** One documented answer of one operation, reached by `run` on servers it starts itself. */
interface StatusCase {
  operationId: string;
  status: number;
  code?: string | null;
  title: string;
  run: (startServer: typeof start) => Promise<Answer>;
}

/** A `sleep` for injected latency that waits until the test says so. */
function gatedSleep() {
  let entered!: () => void;
  let release!: () => void;
  const started = new Promise<void>((resolve) => (entered = resolve));
  const gate = new Promise<void>((resolve) => (release = resolve));
  return { started, release, sleep: () => (entered(), gate) };
}

/** Two requests with one Idempotency-Key while the first is still running. */
async function inFlight(operationId: string, make: Sample): Promise<Answer> {
  const gate = gatedSleep();
  const h = await start({ sleep: gate.sleep });
  const options = { ...(await make(h)), idempotencyKey: 'same-logical-request' };
  await h.control.injectFault({ operationId, latencyMs: 50, times: 1 });
  const first = h.call(operationId, options);
  await gate.started;
  const second = await h.call(operationId, options);
  gate.release();
  expect((await first).status).toBeLessThan(300);
  return second;
}

/** The same Idempotency-Key on another request. */
async function reused(operationId: string, make: Sample, other: (o: CallOptions) => CallOptions): Promise<Answer> {
  const h = await start();
  const options = { ...(await make(h)), idempotencyKey: 'one-key' };
  expect((await h.call(operationId, options)).status).toBeLessThan(300);
  return h.call(operationId, other(options));
}

const withBody = (json: unknown) => (o: CallOptions) => ({ ...o, json });

const cases: StatusCase[] = [
  // ---- batch heartbeat ----
  {
    operationId: 'heartbeatClaims',
    status: 404,
    code: 'claim_not_found',
    title: 'a claimId outside the credential',
    run: async (s) => {
      const h = await s();
      const theirs = await h.acquire('k', {}, { key: OTHER });
      return h.call('heartbeatClaims', { json: { ttl: 30, claimId: theirs.body.claimId } });
    },
  },
  {
    operationId: 'heartbeatClaims',
    status: 409,
    code: 'idempotency_key_reused',
    title: 'an Idempotency-Key reused with another ttl',
    run: () => reused('heartbeatClaims', operations.heartbeatClaims!.sample, withBody({ ttl: 60 })),
  },
  // ---- space claims ----
  {
    operationId: 'listSpaceClaims',
    status: 404,
    code: 'space_not_found',
    title: 'a space the key may not see',
    run: async (s) => (await s()).call('listSpaceClaims', { key: ONE_SPACE, path: { spaceId: SPACE_B } }),
  },
  {
    operationId: 'getSpaceActivity',
    status: 404,
    code: 'space_not_found',
    title: 'the activity of a space the key may not see',
    run: async (s) => (await s()).call('getSpaceActivity', { key: ONE_SPACE, path: { spaceId: SPACE_B } }),
  },
  {
    operationId: 'acquireSpaceClaim',
    status: 202,
    title: 'a held key when the body asks to wait (queued, position 1)',
    run: async (s) => {
      const h = await s();
      await h.acquire('k');
      const queued = await h.acquire('k', { wait: true, holder: 'worker-2', holderSession: 'sess-2' });
      expect(queued.body).toMatchObject({ status: 'queued', position: 1, queueDepth: 1, fence: null });
      return queued;
    },
  },
  {
    operationId: 'acquireSpaceClaim',
    status: 404,
    code: 'space_not_found',
    title: 'a space the key may not see',
    run: async (s) => {
      const h = await s();
      return h.call('acquireSpaceClaim', {
        key: ONE_SPACE,
        path: { spaceId: SPACE_B },
        json: { key: 'k', scopeId: SCOPE, holder: 'w', holderSession: 's' },
      });
    },
  },
  {
    operationId: 'acquireSpaceClaim',
    status: 409,
    code: 'claim_held',
    title: 'a held key without wait',
    run: async (s) => {
      const h = await s();
      await h.acquire('k');
      return h.call('acquireSpaceClaim', { path: { spaceId: SPACE }, json: { key: 'k', scopeId: SCOPE_B, holder: 'w2', holderSession: 's2' } });
    },
  },
  {
    operationId: 'acquireSpaceClaim',
    status: 409,
    code: 'scope_cancelled',
    title: 'a cancelled run',
    run: async (s) => {
      const h = await s();
      expectStatus(await h.call('cancelScope', { path: { spaceId: SPACE, scopeId: SCOPE } }), 200);
      return h.call('acquireSpaceClaim', { path: { spaceId: SPACE }, json: { key: 'k', scopeId: SCOPE, holder: 'w', holderSession: 's' } });
    },
  },
  {
    operationId: 'acquireSpaceClaim',
    status: 409,
    code: 'idempotency_key_reused',
    title: 'an Idempotency-Key reused for another key',
    run: () =>
      reused('acquireSpaceClaim', operations.acquireSpaceClaim!.sample, withBody({ key: 'other', scopeId: SCOPE, holder: 'w', holderSession: 's' })),
  },
  {
    operationId: 'acquireSpaceClaim',
    status: 409,
    code: 'idempotency_in_flight',
    title: 'a repeat while the first request is still running',
    run: () => inFlight('acquireSpaceClaim', operations.acquireSpaceClaim!.sample),
  },
  {
    operationId: 'getSpaceClaim',
    status: 404,
    code: 'claim_not_found',
    title: 'a free key',
    run: async (s) => (await s()).call('getSpaceClaim', { path: { spaceId: SPACE, key: 'nobody/holds/this' } }),
  },
  {
    operationId: 'renewSpaceClaim',
    status: 404,
    code: 'space_not_found',
    title: 'a space the key may not see',
    run: async (s) => (await s()).call('renewSpaceClaim', { key: ONE_SPACE, path: { spaceId: SPACE_B, key: 'k' }, json: { token: 'lht_x' } }),
  },
  {
    operationId: 'renewSpaceClaim',
    status: 409,
    code: 'claim_not_held',
    title: 'a released token',
    run: async (s) => {
      const h = await s();
      const options = await heldClaim(h);
      expectStatus(await h.call('releaseSpaceClaim', options), 200);
      return h.call('renewSpaceClaim', options);
    },
  },
  {
    operationId: 'renewSpaceClaim',
    status: 409,
    code: 'lease_expired',
    title: 'a lease that ran out',
    run: async (s) => {
      const h = await s();
      const options = await heldClaim(h);
      await h.control.advanceClock(30_001);
      return h.call('renewSpaceClaim', options);
    },
  },
  {
    operationId: 'renewSpaceClaim',
    status: 409,
    code: 'scope_cancelled',
    title: 'a cancelled run',
    run: async (s) => {
      const h = await s();
      const options = await heldClaim(h);
      expectStatus(await h.call('cancelScope', { path: { spaceId: SPACE, scopeId: SCOPE } }), 200);
      return h.call('renewSpaceClaim', options);
    },
  },
  {
    operationId: 'renewSpaceClaim',
    status: 409,
    code: 'claim_queued',
    title: 'a claim still waiting',
    run: async (s) => {
      const h = await s();
      await h.acquire('k');
      const waiter = await h.acquire('k', { wait: true, holderSession: 'sess-2' });
      return h.call('renewSpaceClaim', { path: { spaceId: SPACE, key: 'k' }, json: { token: waiter.body.token } });
    },
  },
  {
    operationId: 'releaseSpaceClaim',
    status: 404,
    code: 'space_not_found',
    title: 'a space the key may not see',
    run: async (s) => (await s()).call('releaseSpaceClaim', { key: ONE_SPACE, path: { spaceId: SPACE_B, key: 'k' }, json: { token: 'lht_x' } }),
  },
  {
    operationId: 'releaseSpaceClaim',
    status: 409,
    code: 'lease_expired',
    title: 'a lease that ran out',
    run: async (s) => {
      const h = await s();
      const options = await heldClaim(h);
      await h.control.advanceClock(31_000);
      return h.call('releaseSpaceClaim', options);
    },
  },
  {
    operationId: 'releaseSpaceClaim',
    status: 409,
    code: 'claim_not_held',
    title: 'a token of another key',
    run: async (s) => {
      const h = await s();
      const mine = await h.acquire('a');
      await h.acquire('b');
      return h.call('releaseSpaceClaim', { path: { spaceId: SPACE, key: 'b' }, json: { token: mine.body.token } });
    },
  },
  {
    operationId: 'cancelScope',
    status: 404,
    code: 'space_not_found',
    title: 'a space the key may not see',
    run: async (s) => (await s()).call('cancelScope', { key: ONE_SPACE, path: { spaceId: SPACE_B, scopeId: SCOPE } }),
  },
  // ---- tasks ----
  {
    operationId: 'createTask',
    status: 409,
    code: 'idempotency_key_reused',
    title: 'an Idempotency-Key reused with another title',
    run: () => reused('createTask', operations.createTask!.sample, withBody({ title: 'Another task' })),
  },
  {
    operationId: 'getTask',
    status: 404,
    code: 'task_not_found',
    title: "another account's task",
    run: async (s) => {
      const h = await s();
      const task = await h.createTask();
      return h.call('getTask', { key: OTHER, path: { taskId: task.id } });
    },
  },
  ...(['updateTask', 'addTaskNote', 'claimTask', 'completeTask', 'revokeTaskClaim', 'requeueTask'] as const).flatMap((operationId): StatusCase[] => [
    {
      operationId,
      status: 404,
      code: 'task_not_found',
      title: "another account's task",
      run: async (s) => {
        const h = await s();
        return h.call(operationId, { ...(await operations[operationId]!.sample(h)), key: OTHER });
      },
    },
    {
      operationId,
      status: 412,
      code: 'etag_mismatch',
      title: 'a stale If-Match',
      run: async (s) => {
        const h = await s();
        const options = await operations[operationId]!.sample(h);
        return h.call(operationId, { ...options, headers: { 'If-Match': '"task-1-v0"' } });
      },
    },
    {
      operationId,
      status: 428,
      code: 'if_match_required',
      title: 'no If-Match',
      run: async (s) => {
        const h = await s();
        const options = await operations[operationId]!.sample(h);
        return h.call(operationId, { ...options, headers: {} });
      },
    },
  ]),
  ...(['renewTaskClaim', 'releaseTaskClaim'] as const).flatMap((operationId): StatusCase[] => [
    {
      operationId,
      status: 404,
      code: 'task_not_found',
      title: "another account's task",
      run: async (s) => {
        const h = await s();
        return h.call(operationId, { ...(await operations[operationId]!.sample(h)), key: OTHER });
      },
    },
    {
      operationId,
      status: 412,
      code: 'etag_mismatch',
      title: 'a stale If-Match',
      run: async (s) => {
        const h = await s();
        const options = await operations[operationId]!.sample(h);
        return h.call(operationId, { ...options, headers: { 'If-Match': '"task-1-v0"' } });
      },
    },
    {
      operationId,
      status: 428,
      code: 'if_match_required',
      title: 'no If-Match',
      run: async (s) => {
        const h = await s();
        return h.call(operationId, { ...(await operations[operationId]!.sample(h)), headers: {} });
      },
    },
    {
      operationId,
      status: 409,
      code: 'claim_not_held',
      title: 'a wrong token',
      run: async (s) => {
        const h = await s();
        return h.call(operationId, { ...(await operations[operationId]!.sample(h)), json: { token: WRONG_TOKEN } });
      },
    },
    {
      operationId,
      status: 409,
      code: 'lease_expired',
      title: 'an expired claim',
      run: async (s) => {
        const h = await s();
        const options = await operations[operationId]!.sample(h);
        await h.control.advanceClock(900_001);
        return h.call(operationId, options);
      },
    },
  ]),
  {
    operationId: 'updateTask',
    status: 409,
    code: 'claim_required',
    title: 'a claimed task without X-Task-Claim',
    run: async (s) => {
      const h = await s();
      const task = await claimedTask(h);
      return h.call('updateTask', { path: { taskId: task.id }, headers: { 'If-Match': task.etag }, json: { status: 'InProgress' } });
    },
  },
  {
    operationId: 'updateTask',
    status: 422,
    code: 'invalid_transition',
    title: 'a Done task',
    run: async (s) => {
      const h = await s();
      const options = await operations.completeTask!.sample(h);
      const done = await h.call('completeTask', options);
      expectStatus(done, 200);
      return h.call('updateTask', { path: options.path, headers: { 'If-Match': done.headers.get('etag')! }, json: { status: 'Todo' } });
    },
  },
  {
    operationId: 'addTaskNote',
    status: 409,
    code: 'claim_not_held',
    title: 'a wrong X-Task-Claim',
    run: async (s) => {
      const h = await s();
      const task = await claimedTask(h);
      return h.call('addTaskNote', {
        path: { taskId: task.id },
        headers: { 'If-Match': task.etag, 'X-Task-Claim': WRONG_TOKEN },
        json: { text: 'Draft prepared.' },
      });
    },
  },
  {
    operationId: 'claimTask',
    status: 409,
    code: 'task_claimed',
    title: 'a task someone holds',
    run: async (s) => {
      const h = await s();
      const task = await claimedTask(h);
      return h.call('claimTask', { path: { taskId: task.id }, headers: { 'If-Match': task.etag } });
    },
  },
  {
    operationId: 'claimTask',
    status: 409,
    code: 'task_completed',
    title: 'a Done task',
    run: async (s) => {
      const h = await s();
      const options = await operations.completeTask!.sample(h);
      const done = await h.call('completeTask', options);
      return h.call('claimTask', { path: options.path, headers: { 'If-Match': done.headers.get('etag')! } });
    },
  },
  {
    operationId: 'completeTask',
    status: 409,
    code: 'task_completed',
    title: 'a task already Done',
    run: async (s) => {
      const h = await s();
      const options = await operations.completeTask!.sample(h);
      const done = await h.call('completeTask', options);
      return h.call('completeTask', { ...options, headers: { 'If-Match': done.headers.get('etag')! } });
    },
  },
  {
    operationId: 'completeTask',
    status: 409,
    code: 'claim_required',
    title: 'a claimed task without X-Task-Claim',
    run: async (s) => {
      const h = await s();
      const task = await claimedTask(h);
      return h.call('completeTask', { path: { taskId: task.id }, headers: { 'If-Match': task.etag } });
    },
  },
  {
    operationId: 'revokeTaskClaim',
    status: 409,
    code: 'claim_not_held',
    title: 'a task with no live claim',
    run: async (s) => {
      const h = await s();
      const task = await h.createTask();
      return h.call('revokeTaskClaim', { path: { taskId: task.id }, headers: { 'If-Match': task.etag } });
    },
  },
  ...(['revokeTaskClaim', 'requeueTask'] as const).map(
    (operationId): StatusCase => ({
      operationId,
      status: 409,
      code: 'task_completed',
      title: 'a Done task',
      run: async (s) => {
        const h = await s();
        const options = await operations.completeTask!.sample(h);
        const done = await h.call('completeTask', options);
        expectStatus(done, 200);
        return h.call(operationId, { path: options.path, headers: { 'If-Match': done.headers.get('etag')! } });
      },
    }),
  ),
  // ---- spools ----
  {
    operationId: 'createSpool',
    status: 409,
    code: 'spool_exists',
    title: 'a spool that exists',
    run: async (s) => {
      const h = await s();
      expectStatus(await h.call('createSpool', { json: { name: 'billing' } }), 201);
      return h.call('createSpool', { json: { name: 'billing' } });
    },
  },
  {
    operationId: 'putQueue',
    status: 200,
    title: 'a queue that exists (its timeout changes)',
    run: async (s) => {
      const h = await s();
      await h.createQueue('billing', 'invoices', 30);
      const answer = await h.call('putQueue', { path: { spool: 'billing', queue: 'invoices' }, json: { leaseTimeoutSeconds: 60 } });
      expect(answer.body).toMatchObject({ object: 'queue', leaseTimeoutSeconds: 60 });
      return answer;
    },
  },
  {
    operationId: 'putQueue',
    status: 404,
    code: 'spool_not_found',
    title: 'a spool that does not exist',
    run: async (s) => (await s()).call('putQueue', { path: { spool: 'nope', queue: 'q' }, json: { leaseTimeoutSeconds: 30 } }),
  },
  {
    operationId: 'putQueue',
    status: 403,
    code: 'plan_limit_exceeded',
    title: 'a 65th queue in one spool',
    run: async (s) => {
      const h = await s();
      await h.createQueue('billing', 'q0');
      for (let i = 1; i < 64; i++) {
        expectStatus(await h.call('putQueue', { path: { spool: 'billing', queue: `q${i}` }, json: { leaseTimeoutSeconds: 30 } }), 201);
      }
      return h.call('putQueue', { path: { spool: 'billing', queue: 'one-too-many' }, json: { leaseTimeoutSeconds: 30 } });
    },
  },
  {
    operationId: 'putQueue',
    status: 409,
    code: 'idempotency_key_reused',
    title: 'an Idempotency-Key reused with another timeout',
    run: () => reused('putQueue', operations.putQueue!.sample, withBody({ leaseTimeoutSeconds: 90 })),
  },
  {
    operationId: 'getQueueActivity',
    status: 404,
    code: 'spool_not_found',
    title: "another account's spool",
    run: async (s) => {
      const h = await s();
      return h.call('getQueueActivity', { ...(await operations.getQueueActivity!.sample(h)), key: OTHER });
    },
  },
  {
    operationId: 'getQueueActivity',
    status: 404,
    code: 'queue_not_found',
    title: 'a queue that does not exist',
    run: async (s) => {
      const h = await s();
      expectStatus(await h.call('createSpool', { json: { name: 'billing' } }), 201);
      return h.call('getQueueActivity', { path: { spool: 'billing', queue: 'nope' } });
    },
  },
  {
    operationId: 'sendMessage',
    status: 404,
    code: 'queue_not_found',
    title: 'a queue that does not exist',
    run: async (s) => {
      const h = await s();
      expectStatus(await h.call('createSpool', { json: { name: 'billing' } }), 201);
      return h.call('sendMessage', { path: { spool: 'billing', queue: 'nope' }, json: { body: {} } });
    },
  },
  {
    operationId: 'sendMessage',
    status: 409,
    code: 'idempotency_key_reused',
    title: 'an Idempotency-Key reused with another body',
    run: () => reused('sendMessage', operations.sendMessage!.sample, withBody({ body: { invoiceId: 'inv_9999' } })),
  },
  {
    operationId: 'receiveMessage',
    status: 204,
    title: 'an empty queue (no body)',
    run: async (s) => {
      const h = await s();
      await h.createQueue('billing', 'invoices');
      const answer = await h.call('receiveMessage', { path: { spool: 'billing', queue: 'invoices' } });
      expect(answer.body).toBeUndefined();
      expect(answer.headers.get('spooler-lease')).toBeNull();
      return answer;
    },
  },
  {
    operationId: 'receiveMessage',
    status: 404,
    code: 'queue_not_found',
    title: 'a queue that does not exist',
    run: async (s) => {
      const h = await s();
      expectStatus(await h.call('createSpool', { json: { name: 'billing' } }), 201);
      return h.call('receiveMessage', { path: { spool: 'billing', queue: 'nope' } });
    },
  },
  ...(['renewSpoolLease', 'ackMessage', 'nackMessage'] as const).flatMap((operationId): StatusCase[] => [
    {
      operationId,
      status: 409,
      code: 'idempotency_key_reused',
      title: 'an Idempotency-Key reused for another lease',
      run: async (s) => {
        const h = await s();
        const first = await operations[operationId]!.sample(h);
        expect((await h.call(operationId, { ...first, idempotencyKey: 'one-key' })).status).toBe(204);
        await h.sendMessage('billing', 'invoices');
        const { lease } = await h.receive('billing', 'invoices');
        return h.call(operationId, { path: { spool: 'billing' }, headers: { 'Spooler-Lease': lease }, idempotencyKey: 'one-key' });
      },
    },
    {
      operationId,
      status: 404,
      code: 'spool_not_found',
      title: "another account's spool",
      run: async (s) => {
        const h = await s();
        return h.call(operationId, { ...(await operations[operationId]!.sample(h)), key: OTHER });
      },
    },
    {
      operationId,
      status: 410,
      code: 'stale_token',
      title: 'an expired lease',
      run: async (s) => {
        const h = await s();
        const options = await operations[operationId]!.sample(h);
        await h.control.advanceClock(30_001);
        return h.call(operationId, options);
      },
    },
    {
      operationId,
      status: 410,
      code: 'stale_token',
      title: 'a lease already settled',
      run: async (s) => {
        const h = await s();
        const options = await operations[operationId]!.sample(h);
        expectStatus(await h.call('ackMessage', options), 204);
        return h.call(operationId, options);
      },
    },
    {
      operationId,
      status: 410,
      code: 'stale_token',
      title: 'a message discarded by handle',
      run: async (s) => {
        const h = await s();
        const { lease, handle } = await leased(h);
        expectStatus(await h.call('discardMessage', { path: { spool: 'billing', handle } }), 204);
        return h.call(operationId, { path: { spool: 'billing' }, headers: { 'Spooler-Lease': lease } });
      },
    },
    {
      operationId,
      status: 410,
      code: 'stale_token',
      title: 'a lease granted before a primary change',
      run: async (s) => {
        const h = await s();
        const options = await operations[operationId]!.sample(h);
        expect(await h.control.primaryChange()).toBe(1);
        return h.call(operationId, options);
      },
    },
  ]),
  {
    operationId: 'discardMessage',
    status: 404,
    code: 'message_not_found',
    title: 'an unknown handle',
    run: async (s) => {
      const h = await s();
      await h.createQueue('billing', 'invoices');
      return h.call('discardMessage', { path: { spool: 'billing', handle: 'hdl_0000000000000000' } });
    },
  },
  {
    operationId: 'discardMessage',
    status: 409,
    code: 'idempotency_key_reused',
    title: 'an Idempotency-Key reused for another handle',
    run: async (s) => {
      const h = await s();
      await h.createQueue('billing', 'invoices');
      const first = await h.sendMessage('billing', 'invoices');
      const second = await h.sendMessage('billing', 'invoices');
      expectStatus(await h.call('discardMessage', { path: { spool: 'billing', handle: first.handle }, idempotencyKey: 'one-key' }), 204);
      return h.call('discardMessage', { path: { spool: 'billing', handle: second.handle }, idempotencyKey: 'one-key' });
    },
  },
];

describe('operation-specific statuses', () => {
  it.each(cases.map((c) => [c.operationId, c.status, c.code ?? '', c.title, c] as const))('%s %i %s: %s', async (_id, status, _code, _title, c) => {
    const answer = await c.run(start);
    if (status < 300) expectStatus(answer, status);
    else expectError(answer, status, c.code);
  });
});

describe('test controls over HTTP (/_control)', () => {
  const off = () => start({ control: false });
  const controlCases: StatusCase[] = [
    { operationId: 'getControlClock', status: 200, title: 'the manual clock', run: async (s) => (await s()).call('getControlClock', { key: null }) },
    {
      operationId: 'advanceControlClock',
      status: 200,
      title: 'moves the manual clock and expires what is due',
      run: async (s) => {
        const h = await s();
        const claim = await h.acquire('k');
        const answer = await h.call('advanceControlClock', { key: null, json: { ms: 31_000 } });
        expect(answer.body).toEqual({ object: 'clock', mode: 'manual', now: Date.UTC(2026, 0, 1) + 31_000 });
        expectError(await h.call('renewSpaceClaim', { path: { spaceId: SPACE, key: 'k' }, json: { token: claim.body.token } }), 409, 'lease_expired');
        return answer;
      },
    },
    { operationId: 'advanceControlClock', status: 400, code: 'invalid_request', title: 'a negative ms', run: async (s) => (await s()).call('advanceControlClock', { key: null, json: { ms: -1 } }) },
    {
      operationId: 'injectControlFault',
      status: 201,
      title: 'arms a fault that hits the next matching request',
      run: async (s) => {
        const h = await s();
        const answer = await h.call('injectControlFault', { key: null, json: { operationId: 'createTask', status: 503, times: 1 } });
        expect(answer.body).toMatchObject({ object: 'fault', remaining: 1, rule: { operationId: 'createTask', status: 503, times: 1 } });
        expectError(await h.call('createTask', { json: { title: 't' } }), 503, 'service_unavailable');
        expectStatus(await h.call('createTask', { json: { title: 't' } }), 201);
        return answer;
      },
    },
    { operationId: 'injectControlFault', status: 400, code: 'invalid_request', title: 'a rule without times', run: async (s) => (await s()).call('injectControlFault', { key: null, json: { status: 503 } }) },
    {
      operationId: 'clearControlFaults',
      status: 200,
      title: 'removes every armed rule',
      run: async (s) => {
        const h = await s();
        await h.control.injectFault({ operationId: 'createTask', status: 500, times: 5 });
        const answer = await h.call('clearControlFaults', { key: null });
        expect(answer.body).toEqual({ object: 'control_result', ok: true, affected: 1 });
        expectStatus(await h.call('createTask', { json: { title: 't' } }), 201);
        return answer;
      },
    },
    {
      operationId: 'cancelControlScope',
      status: 200,
      title: 'cancels a run in every account',
      run: async (s) => {
        const h = await s();
        const claim = await h.acquire('k');
        const answer = await h.call('cancelControlScope', { key: null, json: { spaceId: SPACE, scopeId: SCOPE } });
        expect(answer.body).toMatchObject({ ok: true, affected: 1 });
        expectError(await h.call('renewSpaceClaim', { path: { spaceId: SPACE, key: 'k' }, json: { token: claim.body.token } }), 409, 'scope_cancelled');
        return answer;
      },
    },
    { operationId: 'cancelControlScope', status: 400, code: 'invalid_request', title: 'a spaceId that is not a UUID', run: async (s) => (await s()).call('cancelControlScope', { key: null, json: { spaceId: 'x', scopeId: SCOPE } }) },
    {
      operationId: 'discardControlMessage',
      status: 200,
      title: 'discards a message by handle',
      run: async (s) => {
        const h = await s();
        const { lease, handle } = await leased(h);
        const answer = await h.call('discardControlMessage', { key: null, json: { spool: 'billing', handle } });
        expect(answer.body).toMatchObject({ ok: true, affected: 1 });
        expectError(await h.call('ackMessage', { path: { spool: 'billing' }, headers: { 'Spooler-Lease': lease } }), 410, 'stale_token');
        return answer;
      },
    },
    { operationId: 'discardControlMessage', status: 400, code: 'invalid_request', title: 'a malformed handle', run: async (s) => (await s()).call('discardControlMessage', { key: null, json: { spool: 'billing', handle: 'nope' } }) },
    {
      operationId: 'simulatePrimaryChange',
      status: 200,
      title: 'makes every outstanding spool lease stale',
      run: async (s) => {
        const h = await s();
        const { lease } = await leased(h);
        const answer = await h.call('simulatePrimaryChange', { key: null });
        expect(answer.body).toMatchObject({ ok: true, affected: 1 });
        expectError(await h.call('renewSpoolLease', { path: { spool: 'billing' }, headers: { 'Spooler-Lease': lease } }), 410, 'stale_token');
        return answer;
      },
    },
    {
      operationId: 'updateControlAccount',
      status: 200,
      title: 'suspends an account',
      run: async (s) => {
        const h = await s();
        const answer = await h.call('updateControlAccount', { key: null, path: { accountId: DEMO_ACCOUNT }, json: { suspended: true } });
        expectError(await h.call('createTask', { json: { title: 't' } }), 402, 'account_suspended');
        return answer;
      },
    },
    { operationId: 'updateControlAccount', status: 400, code: 'invalid_request', title: 'a malformed account id', run: async (s) => (await s()).call('updateControlAccount', { key: null, path: { accountId: 'bad$id' }, json: { suspended: true } }) },
    {
      operationId: 'updateControlCredential',
      status: 200,
      title: 'blocks a key',
      run: async (s) => {
        const h = await s();
        const answer = await h.call('updateControlCredential', { key: null, json: { apiKey: ADMIN, blocked: true } });
        expectError(await h.call('createTask', { json: { title: 't' } }), 403, null);
        return answer;
      },
    },
    { operationId: 'updateControlCredential', status: 400, code: 'invalid_request', title: 'an unknown key', run: async (s) => (await s()).call('updateControlCredential', { key: null, json: { apiKey: 'lh_nobody', blocked: true } }) },
    {
      operationId: 'loseControlLease',
      status: 200,
      title: 'takes a lease away (the next heartbeat reports it lost)',
      run: async (s) => {
        const h = await s();
        const claim = await h.acquire('k');
        const answer = await h.call('loseControlLease', { key: null, path: { claimId: claim.body.claimId } });
        expect(answer.body).toMatchObject({ ok: true, affected: 1 });
        const beat = await h.call('heartbeatClaims', { json: { ttl: 30 } });
        expect(beat.body.results).toEqual([{ claimId: claim.body.claimId, status: 'lost' }]);
        return answer;
      },
    },
    { operationId: 'loseControlLease', status: 400, code: 'invalid_request', title: 'a malformed claim id', run: async (s) => (await s()).call('loseControlLease', { key: null, path: { claimId: 'bad' } }) },
    // Without --control every /_control path is an unknown route.
    { operationId: 'getControlClock', status: 404, code: 'route_not_found', title: 'control disabled', run: async () => (await off()).call('getControlClock', { key: null }) },
    { operationId: 'advanceControlClock', status: 404, code: 'route_not_found', title: 'control disabled', run: async () => (await off()).call('advanceControlClock', { key: null, json: { ms: 1 } }) },
    { operationId: 'injectControlFault', status: 404, code: 'route_not_found', title: 'control disabled', run: async () => (await off()).call('injectControlFault', { key: null, json: { times: 1 } }) },
    { operationId: 'clearControlFaults', status: 404, code: 'route_not_found', title: 'control disabled', run: async () => (await off()).call('clearControlFaults', { key: null }) },
    { operationId: 'cancelControlScope', status: 404, code: 'route_not_found', title: 'control disabled', run: async () => (await off()).call('cancelControlScope', { key: null, json: { spaceId: SPACE, scopeId: SCOPE } }) },
    { operationId: 'discardControlMessage', status: 404, code: 'route_not_found', title: 'control disabled', run: async () => (await off()).call('discardControlMessage', { key: null, json: { spool: 'b', handle: 'hdl_00000000' } }) },
    { operationId: 'simulatePrimaryChange', status: 404, code: 'route_not_found', title: 'control disabled', run: async () => (await off()).call('simulatePrimaryChange', { key: null }) },
    { operationId: 'updateControlAccount', status: 404, code: 'route_not_found', title: 'control disabled', run: async () => (await off()).call('updateControlAccount', { key: null, path: { accountId: DEMO_ACCOUNT }, json: { suspended: true } }) },
    { operationId: 'updateControlCredential', status: 404, code: 'route_not_found', title: 'control disabled', run: async () => (await off()).call('updateControlCredential', { key: null, json: { apiKey: ADMIN } }) },
    { operationId: 'loseControlLease', status: 404, code: 'route_not_found', title: 'control disabled', run: async () => (await off()).call('loseControlLease', { key: null, path: { claimId: 'clm_x' } }) },
  ];

  // Body-taking controls refuse oversized and non-JSON bodies like every operation; the others
  // refuse unknown query parameters.
  const controlBodies: Record<string, { path?: Record<string, string>; json: unknown }> = {
    advanceControlClock: { json: { ms: 1 } },
    injectControlFault: { json: { times: 1 } },
    cancelControlScope: { json: { spaceId: SPACE, scopeId: SCOPE } },
    discardControlMessage: { json: { spool: 'billing', handle: 'hdl_00000000' } },
    updateControlAccount: { path: { accountId: DEMO_ACCOUNT }, json: { suspended: true } },
    updateControlCredential: { json: { apiKey: ADMIN } },
  };
  for (const [operationId, sample] of Object.entries(controlBodies)) {
    controlCases.push(
      {
        operationId,
        status: 413,
        code: 'body_too_large',
        title: 'a body over 1 MiB',
        run: async (s) => (await s()).call(operationId, { key: null, path: sample.path, body: ONE_MIB_PLUS, headers: { 'Content-Type': 'application/json' } }),
      },
      {
        operationId,
        status: 415,
        code: 'unsupported_media_type',
        title: 'a body that is not JSON',
        run: async (s) => (await s()).call(operationId, { key: null, path: sample.path, body: JSON.stringify(sample.json), headers: { 'Content-Type': 'text/plain' } }),
      },
    );
  }
  for (const operationId of ['getControlClock', 'clearControlFaults', 'simulatePrimaryChange']) {
    controlCases.push({
      operationId,
      status: 400,
      code: 'invalid_request',
      title: 'an unknown query parameter',
      run: async (s) => (await s()).call(operationId, { key: null, query: { verbose: 1 } }),
    });
  }

  it.each(controlCases.map((c) => [c.operationId, c.status, c.title, c] as const))('%s %i: %s', async (_id, status, _title, c) => {
    const answer = await c.run(start);
    if (status < 300) expectStatus(answer, status);
    else expectError(answer, status, c.code);
  });

  it('advanceControlClock on a real clock answers a status the spec declares (its description promises 409)', async () => {
    const h = await start({ clock: 'real' });
    const answer = await h.call('advanceControlClock', { key: null, json: { ms: 1 } });
    expectError(answer, 409);
  });
});

// Must stay last: it reads what every test above validated.
describe('coverage of the documented statuses', () => {
  it.each(specOperations.map(({ operation }) => [operation.operationId, operation] as const))(
    '%s: every declared status was reached and validated',
    (operationId, operation) => {
      const declared = Object.keys(operation.responses).filter((status) => status !== 'default');
      const seen = observedStatuses.get(operationId) ?? new Set<string>();
      expect(declared.filter((status) => !seen.has(status)), `${operationId} never answered these declared statuses`).toEqual([]);
    },
  );
});
