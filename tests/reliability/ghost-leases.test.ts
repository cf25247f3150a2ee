/**
 * Ghost leases: leases the server granted but the client never learned of, or gave up on. For
 * every kind of lease (space claim, task claim, spool message) and every way an answer goes
 * missing — the caller aborts while it is out, the client closes, the answer is lost on every
 * retry, every attempt times out — the client must keep alive exactly the leases it tracks:
 * a ghost is released as soon as the client sees it, else it expires within one lease term
 * while the same worker keeps heartbeating its other leases. The reference server runs on its
 * manual clock, on every store of the matrix; the client on vitest fake timers (never
 * `queueMicrotask`), moved only while no request is in flight (`World.tick`).
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Lease, Leasehold, type LeaseholdOptions } from '../../packages/client/src/index.js';
import type { LeaseholdServer, Store } from '../../packages/server/src/index.js';
import { createMatrixServer, disposeMatrixServer } from '../support/matrix-server.js';
import { settle, tickSettled } from './support/settled-time.js';

const FAKE_TIMERS = { toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance', 'Date'] } satisfies Parameters<
  typeof vi.useFakeTimers
>[0];
const BASE_URL = 'http://leasehold.test';
const SPACE = '6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a';

type Kind = 'space claim' | 'task claim' | 'spool message';
const KINDS: Kind[] = ['space claim', 'task claim', 'spool message'];
/** The operation that grants each kind, and its lease term. */
const GRANT: Record<Kind, { operationId: string; path: RegExp; termMs: number }> = {
  'space claim': { operationId: 'acquireSpaceClaim', path: /\/claims$/, termMs: 30_000 },
  'task claim': { operationId: 'claimTask', path: /\/claim$/, termMs: 900_000 },
  'spool message': { operationId: 'receiveMessage', path: /\/receive$/, termMs: 20_000 },
};

/**
 * A manual-clock server (on this project's store) reached through a fetch that can hold answers
 * back after the server committed them. On a SQL store the server's work is real I/O that fake
 * timers know nothing of, so time only moves when no request is in flight: `tick` and `advance`
 * fire the client's timers one at a time and wait, between timers, until every request sent has
 * been answered (or held), exactly what an in-memory server does in the same step.
 */
interface World {
  server: LeaseholdServer<Store>;
  client(options?: Partial<LeaseholdOptions>): Leasehold;
  /** Holds back (after commit) the answers of the next `count` requests whose path matches, until `releaseAnswers()`. */
  holdAnswers(path: RegExp, count: number): void;
  /** Lets every held answer through and stops holding. */
  releaseAnswers(): void;
  /** Answers held back right now (each one committed on the server). */
  readonly held: number;
  /** Client timers forward by `ms` (the server clock stays), I/O settled before each timer and at the end. */
  tick(ms: number): Promise<void>;
  /** Server clock and client timers forward together, in steps. */
  advance(ms: number, stepMs?: number): Promise<void>;
  /** Grant requests the server saw. */
  seen: string[];
  /** Lets held answers go, closes every client (no releases sent) and throws the store away. */
  close(): Promise<void>;
}

async function world(): Promise<World> {
  const server = await createMatrixServer({ clock: 'manual' });
  vi.useFakeTimers(FAKE_TIMERS);
  const clients: Leasehold[] = [];
  const seen: string[] = [];
  let holding: RegExp | undefined;
  let toHold = 0;
  const held: Array<() => void> = [];
  /** Requests the server is still working on (held answers not counted: those are committed). */
  let working = 0;
  const fetch: LeaseholdOptions['fetch'] = async (input, init) => {
    const request = new Request(input, init);
    seen.push(new URL(request.url).pathname);
    working++;
    let response: Response;
    try {
      response = await server.handle(request);
    } finally {
      working--;
    }
    if (toHold > 0 && holding?.test(new URL(request.url).pathname)) {
      toHold--;
      await new Promise<void>((resolve) => held.push(resolve));
    }
    return response;
  };
  const settled = () => settle(() => working);
  const releaseAnswers = () => {
    holding = undefined;
    toHold = 0;
    for (const resolve of held.splice(0)) resolve();
  };
  return {
    server,
    seen,
    get held() {
      return held.length;
    },
    client(options = {}) {
      const lh = new Leasehold({ baseUrl: BASE_URL, apiKey: 'lh_test_admin', fetch, renewal: { jitter: 0 }, ...options });
      clients.push(lh);
      return lh;
    },
    holdAnswers(path, count) {
      holding = path;
      toHold = count;
    },
    releaseAnswers,
    tick: (ms) => tickSettled(ms, settled),
    async advance(ms, stepMs = 1_000) {
      for (let left = ms; left > 0; left -= stepMs) {
        const step = Math.min(stepMs, left);
        await settled();
        await server.control.advanceClock(step);
        await tickSettled(step, settled);
      }
    },
    async close() {
      releaseAnswers();
      try {
        await Promise.all(clients.map((lh) => lh.close({ releaseLeases: false })));
        await settled();
      } finally {
        vi.useRealTimers();
        await disposeMatrixServer(server);
      }
    },
  };
}

/** One lease of `kind` to fight over: a key of a space, a task, or a queue's only message. */
interface Target {
  /** Sends the grant request of `kind` through `lh`. */
  take(lh: Leasehold, options?: { signal?: AbortSignal; wait?: boolean; timeoutMs?: number; maxRetries?: number }): Promise<unknown>;
  /** Whether another worker can take it right now (and does, then gives it back). */
  free(): Promise<boolean>;
}

async function target(w: World, kind: Kind): Promise<Target> {
  const other = w.client();
  const run = (lh: Leasehold) => lh.space(SPACE).run(randomUUID(), { holder: 'w' });
  if (kind === 'space claim') {
    const key = `ghost/${randomUUID()}`;
    return {
      take: (lh, o = {}) => (o.wait ? run(lh).claim(key).acquire(o) : run(lh).claim(key).tryAcquire(o)),
      free: async () => {
        const lease = await run(other).claim(key).tryAcquire();
        await lease?.release();
        return lease !== null;
      },
    };
  }
  if (kind === 'task claim') {
    const { task } = await other.tasks.create({ title: 'ghost' });
    return {
      take: async (lh, o = {}) => lh.tasks.claim(task.id, { etag: (await lh.tasks.get(task.id)).etag, ...o }),
      free: async () => (await other.tasks.get(task.id)).task.claim === null,
    };
  }
  const spool = `s${randomUUID().slice(0, 8)}`;
  await other.spool(spool).create();
  await other.spool(spool).queue('q').put({ leaseTimeoutSeconds: GRANT['spool message'].termMs / 1000 });
  await other.spool(spool).queue('q').send({ n: 1 });
  return {
    take: (lh, o = {}) => lh.spool(spool).queue('q').receive(o),
    free: async () => {
      const lease = await other.spool(spool).queue('q').receive();
      await lease?.nack();
      return lease !== null;
    },
  };
}

/** The lease a take resolved to (task claims answer `{ lease, etag, response }`). */
function leaseOf(taken: unknown): Lease {
  if (taken instanceof Lease) return taken;
  if (typeof taken === 'object' && taken !== null && (taken as { lease?: unknown }).lease instanceof Lease) return (taken as { lease: Lease }).lease;
  throw new Error(`not a lease: ${String(taken)}`);
}

/** A lease the worker keeps (so its heartbeats go on the whole time). */
async function keepSomething(lh: Leasehold): Promise<void> {
  await lh.space(SPACE).run(randomUUID(), { holder: 'w' }).claim(`kept/${randomUUID()}`).acquire();
}

let w: World;
beforeEach(async () => {
  w = await world();
});
afterEach(async () => {
  await w.close();
});

describe.each(KINDS)('ghost %s', (kind) => {
  it('granted after its caller aborted: rejected at once with AbortError, then released as soon as the answer arrives', async () => {
    const lh = w.client();
    await keepSomething(lh);
    const it = await target(w, kind);
    w.holdAnswers(GRANT[kind].path, 1);
    const stop = new AbortController();
    const taking = it.take(lh, { signal: stop.signal }).catch((error: unknown) => error);
    await w.tick(0);
    expect(w.held, 'granted on the server, its answer held back').toBe(1);
    stop.abort();
    expect(await taking).toMatchObject({ name: 'AbortError' });
    expect(await it.free()).toBe(false); // granted on the server, answer still out
    w.releaseAnswers();
    await w.tick(0); // the answer arrives (and the client's release is answered); no time passes
    expect(await it.free()).toBe(true); // released without waiting for any expiry
    await w.advance(60_000, 5_000);
    expect(lh.stats().leases).toBe(1);
    await lh.close();
  });

  it('granted while the client closes: the pending call rejects with ClientClosedError and close() releases the grant', async () => {
    const lh = w.client();
    const it = await target(w, kind);
    w.holdAnswers(GRANT[kind].path, 1);
    const taking = it.take(lh).catch((error: unknown) => error);
    await w.tick(0);
    expect(w.held, 'granted on the server, its answer held back').toBe(1);
    const closing = lh.close();
    expect(await taking).toMatchObject({ name: 'ClientClosedError' });
    w.releaseAnswers();
    await closing;
    expect(await it.free()).toBe(true);
  });

  it('whose answer was lost on every retry: never kept alive by the worker\'s heartbeats, free within one term', async () => {
    const lh = w.client();
    await keepSomething(lh);
    const it = await target(w, kind);
    await w.server.control.injectFault({ operationId: GRANT[kind].operationId, dropResponse: true, times: 3 });
    const taking = it.take(lh).catch((error: unknown) => error);
    await w.tick(10_000); // the retries' backoff
    expect(await taking).toMatchObject({ name: 'ConnectionError' });
    expect(await it.free()).toBe(false);
    await w.advance(GRANT[kind].termMs + 1_000, 5_000);
    expect(lh.stats()).toMatchObject({ leases: 1, heartbeatsSucceeded: expect.any(Number) });
    expect(lh.stats().heartbeatsSucceeded).toBeGreaterThanOrEqual(3);
    expect(await it.free()).toBe(true);
    // The same worker takes it again at once, instead of queueing behind its own ghost.
    expect(leaseOf(await it.take(lh, { wait: true })).status).toBe('held');
    await lh.close();
  });

  it('whose every attempt timed out: the next take succeeds within one term', async () => {
    const lh = w.client();
    await keepSomething(lh);
    const it = await target(w, kind);
    w.holdAnswers(GRANT[kind].path, 2);
    const taking = it.take(lh, { timeoutMs: 1_000, maxRetries: 1 }).catch((error: unknown) => error);
    await w.tick(5_000);
    expect(await taking).toMatchObject({ name: 'TimeoutError' });
    expect(w.held, 'both attempts reached the server').toBe(2);
    w.releaseAnswers();
    await w.advance(GRANT[kind].termMs + 1_000, 5_000);
    expect(await it.free()).toBe(true);
    await lh.close();
  });

  it('whose first attempt timed out after the grant: no ghost outlives one term (acquire and claim replay it to the caller)', async () => {
    const lh = w.client();
    await keepSomething(lh);
    const it = await target(w, kind);
    w.holdAnswers(GRANT[kind].path, 1);
    const taking = it.take(lh, { timeoutMs: 1_000 });
    await w.tick(3_000);
    const taken = await taking;
    if (kind === 'spool message') {
      // A receive is not idempotent on the server (no Idempotency-Key): the retry found the
      // queue empty, and the first attempt's lease is a ghost that the heartbeat never names.
      expect(taken).toBeNull();
      await w.advance(GRANT[kind].termMs + 1_000, 5_000);
      expect(await it.free()).toBe(true);
    } else {
      const lease = leaseOf(taken);
      expect(lease.status).toBe('held');
      expect((await w.server.control.stats()).held).toBe(2);
      await lease.release();
      expect(await it.free()).toBe(true);
    }
    await lh.close();
  });
});
