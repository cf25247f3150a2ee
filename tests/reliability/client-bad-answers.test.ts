/**
 * The client against answers it cannot use: every operation whose success answer the client
 * reads is answered (after the real server committed it) with a malformed 2xx — no body, `null`,
 * not JSON, the wrong status, a required field missing or of the wrong type, a number that is
 * not finite. Every call must reject with `UnexpectedResponseError` carrying the status and the
 * request id (never a raw TypeError), and no lease may be registered with a non-finite deadline.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { Leasehold, LeaseholdError, UnexpectedResponseError, type LeaseholdOptions } from '../../packages/client/src/index.js';
import { createLeaseholdServer } from '../../packages/server/src/index.js';
import { SuiteReport } from './support/report.js';

const SPACE = '6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a';
const report = new SuiteReport('reliability: the client against malformed success answers');
afterAll(() => report.print());

/** Turns the real answer into a malformed one: a new status and/or body text and/or headers. */
type Malform = (real: { status: number; body: string; headers: Headers }) => { status?: number; body?: string | null; headers?: Headers };

const setField = (field: string, value: unknown): Malform => ({ body }) => {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  if (value === undefined) delete parsed[field];
  else parsed[field] = value;
  return { body: JSON.stringify(parsed) };
};
const rawField = (field: string, raw: string): Malform => ({ body }) => {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  parsed[field] = '__RAW__';
  return { body: JSON.stringify(parsed).replace('"__RAW__"', raw) };
};
const withoutHeader = (name: string): Malform => ({ headers }) => {
  const copy = new Headers(headers);
  copy.delete(name);
  return { headers: copy };
};
const withHeader = (name: string, value: string): Malform => ({ headers }) => {
  const copy = new Headers(headers);
  copy.set(name, value);
  return { headers: copy };
};

/** Malformations every JSON-object answer must survive. */
const GENERIC: Array<[string, Malform]> = [
  ['204, no body', () => ({ status: 204, body: null })],
  ['null', () => ({ body: 'null' })],
  ['an empty body', () => ({ body: '' })],
  ['an array', () => ({ body: '[]' })],
  ['a string', () => ({ body: '"ok"' })],
  ['not JSON', () => ({ body: '{"claimId":' })],
  ['an HTML page', () => ({ body: '<html>ok</html>' })],
];

interface Case {
  name: string;
  /** Matches the request to malform: method and path. */
  method: string;
  path: RegExp;
  /** Field-level malformations of this answer. */
  fields: Array<[string, Malform]>;
  /** Whether the GENERIC set applies (not to receive, whose 204 means "empty"). */
  generic?: boolean;
  /** The call under test, after `prepare` (which talks to the real server). */
  call(lh: Leasehold, prepared: Prepared): Promise<unknown>;
  prepare?(lh: Leasehold): Promise<Prepared>;
}
type Prepared = Record<string, unknown>;

const run = (lh: Leasehold) => lh.space(SPACE).run(randomUUID(), { holder: 'bad-answers' });
const leaseFields: Array<[string, Malform]> = [
  ['leaseSeconds missing', setField('leaseSeconds', undefined)],
  ['leaseSeconds a string', setField('leaseSeconds', '30')],
  ['leaseSeconds 1e999 (Infinity)', rawField('leaseSeconds', '1e999')],
  ['leaseSeconds negative', setField('leaseSeconds', -5)],
  ['leaseSeconds zero', setField('leaseSeconds', 0)],
  ['claimId missing', setField('claimId', undefined)],
  ['claimId a number', setField('claimId', 42)],
];

const CASES: Case[] = [
  {
    name: 'space acquire',
    method: 'POST',
    path: /\/claims$/,
    fields: [
      ...leaseFields,
      ['token missing', setField('token', undefined)],
      ['token null', setField('token', null)],
      ['expiresAt missing', setField('expiresAt', undefined)],
      ['expiresAt a string', setField('expiresAt', 'soon')],
      ['fence a string', setField('fence', '1')],
      ['status unknown', setField('status', 'granted')],
      ['status 200', () => ({ status: 200 })],
    ],
    call: (lh) => run(lh).claim(`k/${randomUUID()}`).acquire(),
  },
  {
    name: 'space claim read',
    method: 'GET',
    path: /\/claims\/[^/]+$/,
    fields: leaseFields,
    prepare: async (lh) => {
      const key = `read/${randomUUID()}`;
      return { key, lease: await run(lh).claim(key).acquire() };
    },
    call: (lh, { key }) => lh.space(SPACE).claims.get(key as string),
  },
  {
    name: 'space claim list',
    method: 'GET',
    path: /\/claims$/,
    fields: [
      ['data missing', setField('data', undefined)],
      ['data an object', setField('data', {})],
      ['data of nulls', setField('data', [null])],
      ['nextCursor a number', setField('nextCursor', 5)],
    ],
    prepare: async (lh) => ({ lease: await run(lh).claim(`listed/${randomUUID()}`).acquire() }),
    call: async (lh) => lh.space(SPACE).claims.list().firstPage(),
  },
  {
    name: 'space lease renew',
    method: 'POST',
    path: /\/claims\/[^/]+\/renew$/,
    fields: leaseFields,
    prepare: async (lh) => ({ lease: await run(lh).claim(`r/${randomUUID()}`).acquire() }),
    call: (_, { lease }) => (lease as { renew(): Promise<unknown> }).renew(),
  },
  {
    name: 'batch heartbeat (raw)',
    method: 'POST',
    path: /\/claims\/heartbeat$/,
    fields: [
      ['results missing', setField('results', undefined)],
      ['results an object', setField('results', {})],
      ['an ack without claimId', setField('results', [{ status: 'held' }])],
      ['an ack that is null', setField('results', [null])],
    ],
    prepare: async (lh) => ({ lease: await run(lh).claim(`h/${randomUUID()}`).acquire() }),
    call: (lh) => lh.heartbeat({ ttl: 30 }),
  },
  {
    name: 'run cancel',
    method: 'POST',
    path: /\/scopes\/[^/]+\/cancel$/,
    fields: [],
    call: (lh) => lh.space(SPACE).cancelRun(randomUUID()),
  },
  {
    name: 'task create',
    method: 'POST',
    path: /\/v1\/tasks$/,
    fields: [['id a string', setField('id', '1')], ['no ETag', withoutHeader('etag')]],
    call: (lh) => lh.tasks.create({ title: 't' }),
  },
  {
    name: 'task read',
    method: 'GET',
    path: /\/v1\/tasks\/\d+$/,
    fields: [['id missing', setField('id', undefined)], ['no ETag', withoutHeader('etag')]],
    prepare: async (lh) => ({ task: (await lh.tasks.create({ title: 't' })).task }),
    call: (lh, { task }) => lh.tasks.get((task as { id: number }).id),
  },
  {
    name: 'task claim',
    method: 'POST',
    path: /\/v1\/tasks\/\d+\/claim$/,
    fields: [
      ...leaseFields,
      ['token missing', setField('token', undefined)],
      ['fence missing', setField('fence', undefined)],
      ['expiresUtc missing', setField('expiresUtc', undefined)],
      ['no ETag', withoutHeader('etag')],
    ],
    prepare: async (lh) => ({ ...(await lh.tasks.create({ title: 't' })) }),
    call: (lh, { task, etag }) => lh.tasks.claim((task as { id: number }).id, { etag: etag as string }),
  },
  {
    name: 'task note',
    method: 'POST',
    path: /\/notes$/,
    fields: [['no ETag', withoutHeader('etag')]],
    prepare: async (lh) => ({ ...(await lh.tasks.create({ title: 't' })) }),
    call: (lh, { task, etag }) => lh.tasks.addNote((task as { id: number }).id, 'n', { etag: etag as string }),
  },
  {
    name: 'spool create',
    method: 'POST',
    path: /\/v1\/spools$/,
    fields: [],
    call: (lh) => lh.spool(`s${randomUUID().slice(0, 8)}`).create(),
  },
  {
    name: 'message send',
    method: 'POST',
    path: /\/messages$/,
    fields: [],
    prepare: async (lh) => {
      const spool = `s${randomUUID().slice(0, 8)}`;
      await lh.spool(spool).create();
      await lh.spool(spool).queue('q').put({ leaseTimeoutSeconds: 30 });
      return { spool };
    },
    call: (lh, { spool }) => lh.spool(spool as string).queue('q').send({ n: 1 }),
  },
  {
    name: 'message receive',
    method: 'POST',
    path: /\/receive$/,
    generic: false,
    fields: [
      ['200 with no body', () => ({ body: '' })],
      ['200 null', () => ({ body: 'null' })],
      ['201 instead of 200', () => ({ status: 201 })],
      ['claimId missing', setField('claimId', undefined)],
      ['deliveryCount a string', setField('deliveryCount', '1')],
      ['no Spooler-Lease', withoutHeader('spooler-lease')],
      ['Spooler-Lease-Timeout not a number', withHeader('spooler-lease-timeout', 'soon')],
      ['Spooler-Lease-Timeout zero', withHeader('spooler-lease-timeout', '0')],
    ],
    prepare: async (lh) => {
      const spool = `s${randomUUID().slice(0, 8)}`;
      await lh.spool(spool).create();
      await lh.spool(spool).queue('q').put({ leaseTimeoutSeconds: 30 });
      await lh.spool(spool).queue('q').send({ n: 1 });
      return { spool };
    },
    call: (lh, { spool }) => lh.spool(spool as string).queue('q').receive(),
  },
];

describe('malformed success answers are typed errors, never raw ones, and never leases with a NaN deadline', () => {
  const server = createLeaseholdServer({ clock: 'manual' });
  let target: { method: string; path: RegExp; malform: Malform } | undefined;
  let hits = 0;
  const fetch: LeaseholdOptions['fetch'] = async (input, init) => {
    const request = new Request(input, init);
    const real = await server.handle(request);
    const path = new URL(request.url).pathname;
    if (target === undefined || request.method !== target.method || !target.path.test(path)) return real;
    hits++;
    const body = await real.text();
    const out = target.malform({ status: real.status, body, headers: real.headers });
    const status = out.status ?? real.status;
    const text = out.body === undefined ? body : out.body;
    return new Response(status === 204 || status === 205 ? null : text, { status, headers: out.headers ?? real.headers });
  };

  for (const testCase of CASES) {
    const malformations = [...(testCase.generic === false ? [] : GENERIC), ...testCase.fields];
    it.each(malformations)(`${testCase.name} answered with %s`, async (_, malform) => {
      const lh = new Leasehold({ baseUrl: 'http://leasehold.test', apiKey: 'lh_test_admin', fetch, maxRetries: 0 });
      try {
        const prepared = (await testCase.prepare?.(lh)) ?? {};
        const leasesBefore = lh.stats().leases;
        target = { method: testCase.method, path: testCase.path, malform };
        hits = 0;
        const outcome = await testCase.call(lh, prepared).then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        );
        target = undefined;
        expect(hits).toBeGreaterThan(0);
        expect(outcome).toHaveProperty('error');
        const error = (outcome as { error: unknown }).error;
        expect(error).toBeInstanceOf(LeaseholdError);
        expect(error).toBeInstanceOf(UnexpectedResponseError);
        const typed = error as UnexpectedResponseError;
        expect(typed.status).toBeGreaterThanOrEqual(200);
        expect(typed.status).toBeLessThan(300);
        expect(typed.requestId).toMatch(/^req_/);
        expect(typed.message).toContain(typed.requestId);
        // Nothing new was registered from an unusable answer (a renewed lease was lost, never kept with a NaN deadline).
        expect(lh.stats().leases).toBeLessThanOrEqual(leasesBefore);
        const lease = prepared.lease as { remainingMs: number } | undefined;
        if (lease !== undefined) expect(Number.isNaN(lease.remainingMs)).toBe(false);
        report.add('malformed answers refused with UnexpectedResponseError');
      } finally {
        target = undefined;
        await lh.close({ releaseLeases: false });
      }
    });
  }
});
