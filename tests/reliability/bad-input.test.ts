/**
 * Bad input. fast-check builds malformed requests for every production operation of the spec —
 * each a valid request of that operation with one to three malformations (paths, methods,
 * credentials, query, headers, bodies, encodings, sizes; see `support/mutations.ts`) — and sends
 * them in process through `server.handle` (and a smaller sample over real HTTP). Every answer
 * must be a 4xx canonical envelope that validates against the spec (the operation's declared
 * statuses; the envelope schema for unknown routes and wrong methods), never a 5xx; the server
 * keeps serving; and the state its reads show is unchanged by the rejected requests.
 */
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { request as undiciRequest } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DEFAULT_KEYS, listen, type LeaseholdServer, type NodeListener, type Store } from '../../packages/server/src/index.js';
import { createMatrixServer, disposeMatrixServer, disposeMatrixServers } from '../support/matrix-server.js';
import { TEST_STORE } from '../support/test-store.js';
import { contractProblems } from '../support/response-contract.js';
import { envelopeProblems, envelopeTypeFor } from './support/envelope.js';
import { mutationsFor, nestedJson, STANDING_KEYS, STORED_JSON, type Mutation } from './support/mutations.js';
import { SuiteReport } from './support/report.js';
import { size, timeout } from './support/sizes.js';
import {
  buildWorld,
  callJson,
  CONTROL_OPERATIONS,
  OPERATIONS,
  requestOf,
  routeOf,
  urlOf,
  snapshot,
  SUCCESS,
  validCalls,
  validControlCalls,
  type OperationInfo,
  type PlainCall,
  type World,
} from './support/world.js';

const SEED = 0x5eed_bad;
/** How many arrays and objects `value` nests (0 for a scalar). */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  return 1 + Math.max(0, ...Object.values(value as Record<string, unknown>).map(depthOf));
}

/** A surrogate code unit without its partner (what `String.prototype.isWellFormed` rejects). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const IN_PROCESS_RUNS = size(10_000, 100_000);
const HTTP_RUNS = size(400, 4_000);
const CONTROL_RUNS = size(1_500, 15_000);

const report = new SuiteReport('reliability: bad input');
afterAll(() => {
  if (firstFailure) report.set('FIRST FAILURE (before shrinking)', firstFailure);
  report.print();
});

/** The generated case: an operation, a fresh Idempotency-Key and the malformations. */
interface Case {
  op: OperationInfo;
  idempotencyKey: string;
  mutations: Mutation[];
}

const casesOf = (operations: OperationInfo[]): fc.Arbitrary<Case> =>
  fc.constantFrom(...operations).chain((op) =>
    fc.record({
      op: fc.constant(op),
      idempotencyKey: fc.uuid().map((u) => `fuzz-${u}`),
      mutations: fc.array(mutationsFor(op), { minLength: 1, maxLength: 3 }),
    }),
  );
const caseArbitrary = casesOf(OPERATIONS);

function build(world: World, c: Case): PlainCall {
  const calls = c.op.template.startsWith('/_control') ? validControlCalls(world) : validCalls(world);
  const base = calls[c.op.operationId] as PlainCall;
  const call: PlainCall = { ...base, headers: { ...base.headers } };
  if (call.headers['idempotency-key'] !== undefined) call.headers['idempotency-key'] = c.idempotencyKey;
  return c.mutations.reduce((current, mutation) => mutation.apply(current), call);
}

function describeCase(c: Case, call: PlainCall): string {
  const body = call.body === undefined ? '' : typeof call.body === 'string' ? call.body.slice(0, 120) : `<${call.body.length} bytes>`;
  return `${c.op.operationId} + [${c.mutations.map((m) => m.name).join(' | ')}] → ${call.method} /${call.segments.join('/').slice(0, 160)}${call.query ? `?${call.query.slice(0, 80)}` : ''} ${body}`;
}

interface Tally {
  /** When set, answers whose status the operation does not declare are collected here instead of failing the case. */
  undeclared?: Set<string>;
  requests: number;
  byStatus: Record<string, number>;
  byMutation: Record<string, number>;
  operations: Set<string>;
}

const newTally = (): Tally => ({ requests: 0, byStatus: {}, byMutation: {}, operations: new Set() });

let firstFailure: string | undefined;

/** Sends one case and checks the answer; throws (an expect) on any violation. The first failure is kept (shrinking replays cases against a server whose state an accepted case may have changed). */
async function checkCase(world: World, c: Case, send: (call: PlainCall) => Promise<Response>, tally: Tally): Promise<void> {
  try {
    await checkOne(world, c, send, tally);
  } catch (error) {
    firstFailure ??= String((error as Error).message ?? error).slice(0, 2000);
    throw error;
  }
}

async function checkOne(world: World, c: Case, send: (call: PlainCall) => Promise<Response>, tally: Tally): Promise<void> {
  const call = build(world, c);
  const where = describeCase(c, call);
  const response = await send(call);
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${where}\n  answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
  const observed = { status: response.status, headers: response.headers, body };
  tally.requests++;
  tally.byStatus[response.status] = (tally.byStatus[response.status] ?? 0) + 1;
  tally.operations.add(c.op.operationId);
  for (const m of c.mutations) {
    const kind = m.name.split(/[ :=]/)[0] + ':' + (m.name.split(/[ :=]/)[1] ?? '');
    tally.byMutation[kind] = (tally.byMutation[kind] ?? 0) + 1;
  }
  expect(response.status, `${where}\n  → ${text.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
  expect(response.status, `${where}\n  → ${text.slice(0, 300)}`).toBeLessThan(500);
  const code = (body as { code?: string }).code;
  expect(envelopeProblems(observed, envelopeTypeFor(response.status)), `${where}\n  → ${text.slice(0, 300)}`).toEqual([]);
  const route = routeOf(call.method, `/${call.segments.join('/')}`);
  if (route.operation && response.status !== 405 && code !== 'route_not_found') {
    let problems = contractProblems(route.operation.operationId, observed);
    if (tally.undeclared && problems.length === 1 && problems[0]?.endsWith('which the spec does not list')) {
      tally.undeclared.add(`${route.operation.operationId} ${response.status}`);
      problems = [];
    }
    expect(problems, `${where}\n  → ${text.slice(0, 300)}`).toEqual([]);
  }
  const only = c.mutations.length === 1 ? c.mutations[0]?.expect : undefined;
  if (only) {
    expect(response.status, `${where}\n  → ${text.slice(0, 300)}`).toBe(only.status);
    if (only.codes) expect(only.codes, `${where}\n  → ${text.slice(0, 300)}`).toContain(code ?? null);
  }
}

describe('bad input', () => {
  let server: LeaseholdServer<Store>;
  let world: World;
  let listener: NodeListener;
  const internalErrors: unknown[] = [];

  beforeAll(async () => {
    server = await createMatrixServer({
      clock: 'manual',
      keys: [
        ...DEFAULT_KEYS,
        { apiKey: STANDING_KEYS.expired, accountId: 'acct_demo', expired: true },
        { apiKey: STANDING_KEYS.blocked, accountId: 'acct_demo', blocked: true },
        { apiKey: STANDING_KEYS.suspended, accountId: 'acct_suspended' },
      ],
      onInternalError: (error) => internalErrors.push(error),
    });
    await server.control.suspendAccount('acct_suspended');
    world = await buildWorld(server, 'lh_test_admin');
    listener = await listen(server, { port: 0 });
  });

  afterAll(async () => {
    await listener?.close();
    await disposeMatrixServers();
  });

  it('the valid request of every operation succeeds (so each malformed one is refused for its malformation)', async () => {
    // On a throwaway server: these valid requests change state.
    const scratch = await createMatrixServer({ clock: 'manual' });
    const scratchWorld = await buildWorld(scratch, 'lh_test_admin');
    const calls = validCalls(scratchWorld);
    expect(Object.keys(calls).sort()).toEqual(OPERATIONS.map((op) => op.operationId).sort());
    for (const op of OPERATIONS) {
      // Each on a fresh world where the operation's preconditions hold.
      const fresh = await createMatrixServer({ clock: 'manual' });
      const freshWorld = await buildWorld(fresh, 'lh_test_admin');
      const response = await fresh.handle(requestOf('http://fuzz.test', validCalls(freshWorld)[op.operationId] as PlainCall));
      await disposeMatrixServer(fresh);
      expect(response.status, `${op.operationId}: ${await response.clone().text()}`).toBe(SUCCESS[op.operationId]);
    }
    await disposeMatrixServer(scratch);
  }, 90_000); // a store per operation: on PGlite, a reset (or a second instance) each, with the other workers busy

  it(
    `${IN_PROCESS_RUNS} malformed requests in process: 4xx envelopes only, no state change`,
    async () => {
      const before = await snapshot(world);
      const recordsBefore = (await server.control.stats()).idempotencyRecords;
      const tally = newTally();
      const started = performance.now();
      await fc.assert(
        fc.asyncProperty(caseArbitrary, (c) => checkCase(world, c, (call) => server.handle(requestOf('http://fuzz.test', call)), tally)),
        { seed: SEED, numRuns: IN_PROCESS_RUNS },
      );
      const seconds = (performance.now() - started) / 1000;
      expect(internalErrors, 'no request reached the 500 path').toEqual([]);
      expect(await snapshot(world), 'rejected requests changed nothing the reads show').toEqual(before);
      // Still serving: every read answers as before, and a valid write still works.
      for (const op of OPERATIONS.filter((o) => o.method === 'GET')) {
        const response = await server.handle(requestOf('http://fuzz.test', validCalls(world)[op.operationId] as PlainCall));
        expect(response.status, op.operationId).toBe(200);
      }

      report.set('in process: malformed requests', tally.requests);
      report.set('in process: requests per second', Math.round(tally.requests / seconds));
      report.set('in process: operations covered', `${tally.operations.size} / ${OPERATIONS.length}`);
      report.set('in process: answers by status', tally.byStatus);
      report.set('in process: 5xx answers', Object.entries(tally.byStatus).filter(([s]) => Number(s) >= 500).reduce((n, [, c]) => n + c, 0));
      report.set('malformations applied, by kind', tally.byMutation);
      report.set('idempotency records stored for handler-level refusals (replayable, by design)', (await server.control.stats()).idempotencyRecords - recordsBefore);
      report.set('state unchanged (engine counts, tasks, claims)', true);
      expect(tally.operations.size).toBe(OPERATIONS.length);
    },
    timeout(120_000, 900_000),
  );

  it(
    `${HTTP_RUNS} malformed requests over real HTTP: the same answers through node:http`,
    async () => {
      const before = await snapshot(world);
      const tally = newTally();
      const httpCase = caseArbitrary.filter((c) => c.mutations.every((m) => !m.inProcessOnly));
      await fc.assert(
        fc.asyncProperty(httpCase, (c) =>
          checkCase(
            world,
            c,
            (call) => {
              const request = requestOf(listener.url, call);
              return fetch(request.url, { method: request.method, headers: request.headers, body: request.body, duplex: 'half' } as RequestInit);
            },
            tally,
          ),
        ),
        { seed: SEED + 1, numRuns: HTTP_RUNS },
      );
      expect(internalErrors).toEqual([]);
      expect(await snapshot(world)).toEqual(before);
      const alive = await fetch(`${listener.url}/v1/tasks/${world.open.id}`, { headers: { authorization: `Bearer ${world.apiKey}` } });
      expect(alive.status, 'the listener still serves').toBe(200);
      report.set('over HTTP: malformed requests', tally.requests);
      report.set('over HTTP: answers by status', tally.byStatus);
    },
    timeout(60_000, 600_000),
  );

  it(
    `${CONTROL_RUNS} malformed requests to the /_control test levers (served with control: true): refused, nothing moves`,
    async () => {
      const levers = await createMatrixServer({ clock: 'manual', control: true, onInternalError: (error) => internalErrors.push(error) });
      const leverWorld = await buildWorld(levers, 'lh_test_admin');
      // The valid lever calls do act (on a throwaway server): so the malformed ones are refused for their malformation.
      for (const op of CONTROL_OPERATIONS) {
        const scratch = await createMatrixServer({ clock: 'manual', control: true });
        const response = await scratch.handle(requestOf('http://fuzz.test', validControlCalls(await buildWorld(scratch, 'lh_test_admin'))[op.operationId] as PlainCall));
        await disposeMatrixServer(scratch);
        expect(response.status, `${op.operationId}: ${await response.clone().text()}`).toBeLessThan(300);
      }
      const before = { world: await snapshot(leverWorld), now: await levers.control.now(), faults: await levers.control.faults() };
      const tally: Tally = { ...newTally(), undeclared: new Set() };
      await fc.assert(
        fc.asyncProperty(casesOf(CONTROL_OPERATIONS), (c) => checkCase(leverWorld, c, (call) => levers.handle(requestOf('http://fuzz.test', call)), tally)),
        { seed: SEED + 2, numRuns: CONTROL_RUNS },
      );
      expect(internalErrors).toEqual([]);
      expect({ world: await snapshot(leverWorld), now: await levers.control.now(), faults: await levers.control.faults() }, 'no lever moved').toEqual(before);
      report.set('control levers: malformed requests / operations covered', `${tally.requests} / ${tally.operations.size} of ${CONTROL_OPERATIONS.length}`);
      report.set('control levers: answers by status', tally.byStatus);
      const undeclared = [...(tally.undeclared ?? [])].sort();
      report.set('control levers: statuses answered but not declared by the spec', undeclared);
      expect(undeclared, 'every status a lever answers is declared by its operation').toEqual([]);
    },
    timeout(60_000, 600_000),
  );

  it('requests Node\'s HTTP parser refuses (header over 16 KiB, bad request line, bad chunk, ...) also get the canonical envelope', async () => {
    /** Writes raw bytes to the listener and answers what came back. */
    const raw = (data: string) =>
      new Promise<string>((resolve) => {
        const socket = connect(listener.port, '127.0.0.1', () => socket.end(data));
        let out = '';
        const timer = setTimeout(() => socket.destroy(), 5_000);
        socket.on('data', (chunk) => (out += chunk.toString('latin1')));
        socket.on('close', () => {
          clearTimeout(timer);
          resolve(out);
        });
        socket.on('error', () => undefined);
      });
    const head = 'Host: fuzz.test\r\nAuthorization: Bearer lh_test_admin\r\nConnection: close';
    const cases: Record<string, string> = {
      'a header over 16 KiB': `GET /v1/tasks/${world.open.id} HTTP/1.1\r\n${head}\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n`,
      'a request line that is not HTTP': 'GARBAGE\r\n\r\n',
      'a header name with a space': `GET /v1/tasks/${world.open.id} HTTP/1.1\r\n${head}\r\nBad Header: x\r\n\r\n`,
      'a broken chunk size': `POST /v1/tasks HTTP/1.1\r\n${head}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
      'two different Content-Lengths': `POST /v1/tasks HTTP/1.1\r\n${head}\r\nContent-Type: application/json\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n{"a":1}`,
      'a target without a leading slash': `GET v1/tasks/${world.open.id} HTTP/1.1\r\n${head}\r\n\r\n`,
    };
    const problems: string[] = [];
    for (const [name, data] of Object.entries(cases)) {
      const answer = await raw(data);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
      const [rawHead = '', body = ''] = answer.split('\r\n\r\n');
      const headers = new Headers(rawHead.split('\r\n').slice(1).map((line) => line.split(/:\s*/, 2) as [string, string]));
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        parsed = undefined;
      }
      const envelope = parsed === undefined ? ['no JSON body'] : envelopeProblems({ status, headers, body: parsed }, undefined);
      if (!(status >= 400 && status < 500) || envelope.length > 0) problems.push(`${name}: ${JSON.stringify(rawHead.split('\r\n')[0])} ${envelope.join('; ')}`);
    }
    report.set('protocol-level refusals without the envelope', `${problems.length} / ${Object.keys(cases).length}`);
    const alive = await fetch(`${listener.url}/v1/tasks/${world.open.id}`, { headers: { authorization: `Bearer ${world.apiKey}` } });
    expect(alive.status, 'the listener still serves').toBe(200);
    expect(problems, 'node:http answers these itself (no clientError handler in the adapter): bare status line, no envelope, no Request-Id').toEqual([]);
  });

  it('repeated Authorization and Content-Type header lines, on every operation over node:http: 400 ambiguous_header, nothing changes', async () => {
    const before = await snapshot(world);
    const problems: string[] = [];
    let sent = 0;
    for (const op of OPERATIONS) {
      const call = validCalls(world)[op.operationId] as PlainCall;
      const variants: Array<[string, string[]]> = [['Authorization twice', ['authorization', call.headers.authorization as string]]];
      if (op.hasBody) variants.push(['Content-Type twice', ['content-type', 'application/json']]);
      for (const [name, extra] of variants) {
        // Raw header lines: the call's own, plus the repeated one (undici.request sends each pair as a line).
        const lines = [...Object.entries(call.headers).flat(), ...extra];
        const body = call.body === undefined || call.body === '' ? (op.hasBody ? '{}' : undefined) : call.body;
        const answer = await undiciRequest(urlOf(listener.url, call), { method: call.method as 'GET', headers: lines, body });
        const text = await answer.body.text();
        sent++;
        const code = text ? (JSON.parse(text) as { code?: string }).code : undefined;
        if (answer.statusCode !== 400 || code !== 'ambiguous_header') problems.push(`${op.operationId} ${name}: ${answer.statusCode} ${text.slice(0, 160)}`);
      }
    }
    report.set('repeated Authorization / Content-Type lines over node:http', `${sent} requests, ${problems.length} not refused`);
    expect(problems).toEqual([]);
    expect(await snapshot(world), 'nothing was authenticated or written').toEqual(before);
  });

  it('JSON within the limits, wherever the API stores it, is answered back intact on every read', async () => {
    // One server per run, the previous one's store thrown away first.
    let previous: LeaseholdServer<Store> | undefined;
    const fresh = async () => {
      if (previous !== undefined) await disposeMatrixServer(previous);
      const s = await createMatrixServer({ clock: 'manual', onInternalError: (error) => internalErrors.push(error) });
      previous = s;
      return { s, w: await buildWorld(s, 'lh_test_admin') };
    };
    const call = (s: LeaseholdServer<Store>, method: string, path: string, json?: unknown, headers: Record<string, string> = {}) =>
      callJson(s, method, path, { key: 'lh_test_admin', json, headers });
    /** A value nesting exactly `levels` deep (mixing arrays and objects), with `leaf` at the bottom. */
    const valueAt = (levels: number, leaf: unknown) => JSON.parse(nestedJson(levels, true).replace('1', JSON.stringify(leaf))) as unknown;
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(STORED_JSON)),
        fc.integer({ min: 0, max: 62 }),
        fc.jsonValue({ maxDepth: 2 }).filter((v) => JSON.stringify(v) !== undefined),
        async (operationId, wanted, leaf) => {
          const { s, w } = await fresh();
          // The stored value nests at most 63 levels (the body is the 64th): the leaf's own count.
          const levels = Math.min(wanted, 63 - depthOf(leaf));
          const value = valueAt(levels, leaf);
          const roundTrip = JSON.parse(JSON.stringify(value)) as unknown;
          let reads: unknown[];
          if (operationId === 'releaseSpaceClaim') {
            const released = await call(s, 'POST', `/v1/spaces/${w.spaceId}/claims/${encodeURIComponent(w.heldKey)}/release`, { token: w.heldToken, observation: value });
            expect(released.status, JSON.stringify(released.body).slice(0, 200)).toBe(200);
            const next = await call(s, 'POST', `/v1/spaces/${w.spaceId}/claims`, { key: w.heldKey, scopeId: w.scopeId, holder: 'next', holderSession: 'sess-next' });
            const row = await call(s, 'GET', `/v1/spaces/${w.spaceId}/claims/${encodeURIComponent(w.heldKey)}`);
            reads = [released.body.observation, next.body.previousRelease.observation, row.body.previousRelease.observation];
          } else if (operationId === 'heartbeatClaims') {
            // details is an object inside the body: its value may nest one level less.
            const progress = valueAt(Math.max(0, levels - 1), leaf);
            const beat = await call(s, 'POST', '/v1/claims/heartbeat', { ttl: 30, details: { progress } });
            expect(beat.status).toBe(200);
            const row = await call(s, 'GET', `/v1/spaces/${w.spaceId}/claims/${encodeURIComponent(w.heldKey)}`);
            const task = await call(s, 'GET', `/v1/tasks/${w.claimed.id}`);
            const expected = JSON.parse(JSON.stringify(progress)) as unknown;
            for (const read of [row.body.details.progress, task.body.claim.details.progress]) expect(read).toEqual(expected);
            runs++;
            return;
          } else if (operationId === 'sendMessage') {
            await call(s, 'PUT', `/v1/spools/${w.spool}/queues/deep`, { leaseTimeoutSeconds: 30 });
            const sent = await call(s, 'POST', `/v1/spools/${w.spool}/queues/deep/messages`, { body: value });
            expect(sent.status).toBe(201);
            const received = await call(s, 'POST', `/v1/spools/${w.spool}/queues/deep/receive`);
            reads = [sent.body.body, received.body.body];
          } else {
            const done = await call(s, 'POST', `/v1/tasks/${w.claimed.id}/complete`, { result: value }, { 'if-match': w.claimed.etag, 'x-task-claim': w.claimed.token });
            expect(done.status).toBe(200);
            const read = await call(s, 'GET', `/v1/tasks/${w.claimed.id}`);
            const listed = await call(s, 'GET', '/v1/tasks?status=Done');
            reads = [done.body.result, read.body.result, listed.body.data[0].result];
          }
          for (const read of reads) expect(read).toEqual(roundTrip);
          runs++;
        },
      ),
      // A SQL store per run costs a database (PostgreSQL) or a reset (PGlite): fewer runs there.
      { seed: SEED + 3, numRuns: size(TEST_STORE === 'memory' ? 200 : 60, 2_000) },
    );
    expect(internalErrors).toEqual([]);
    report.set('stored JSON within the limits, answered back intact', `${runs} round trips`);
  }, timeout(60_000, 600_000));

  it('every key acquire accepts is addressable afterwards; every key it refuses is one no URL can address', async () => {
    const keysServer = await createMatrixServer({ clock: 'manual', onInternalError: (error) => internalErrors.push(error) });
    const unit = fc.oneof(
      fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), // lone surrogates included
      fc.constantFrom('.', '/', '%', '%2e', '?', '#', '\\', ' ', '😀', '\u{10FFFF}'),
    );
    const tally = { accepted: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.constantFrom('.', '..'), fc.string({ unit, minLength: 1, maxLength: 10 })), async (key) => {
        const spaceId = randomUUID();
        const scopeId = randomUUID();
        const acquired = await callJson(keysServer, 'POST', `/v1/spaces/${spaceId}/claims`, { key: 'lh_test_admin', json: { key, scopeId, holder: 'k', holderSession: 's' } });
        const addressable = key !== '.' && key !== '..' && !LONE_SURROGATE.test(key);
        if (!addressable) {
          expect([acquired.status, acquired.body.param], JSON.stringify(key)).toEqual([400, 'key']);
          tally.refused++;
          return;
        }
        expect(acquired.status, JSON.stringify(key)).toBe(201);
        const path = `/v1/spaces/${spaceId}/claims/${encodeURIComponent(key)}`;
        const read = await callJson(keysServer, 'GET', path, { key: 'lh_test_admin' });
        expect([read.status, read.body.key]).toEqual([200, key]);
        const renewed = await callJson(keysServer, 'POST', `${path}/renew`, { key: 'lh_test_admin', json: { token: acquired.body.token } });
        expect(renewed.status).toBe(200);
        const released = await callJson(keysServer, 'POST', `${path}/release`, { key: 'lh_test_admin', json: { token: acquired.body.token } });
        expect([released.status, released.body.key]).toEqual([200, key]);
        tally.accepted++;
      }),
      { seed: SEED + 4, numRuns: size(1_000, 10_000) },
    );
    expect((await keysServer.control.stats()).held).toBe(0);
    expect(tally.accepted).toBeGreaterThan(0);
    expect(tally.refused).toBeGreaterThan(0);
    expect(internalErrors).toEqual([]);
    report.set('keys: accepted and addressed / refused as unaddressable', `${tally.accepted} / ${tally.refused}`);
  }, timeout(60_000, 600_000));
});
