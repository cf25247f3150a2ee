import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';
import type { Caller } from './credentials.js';
import { Engine } from './engine.js';
import { EngineError } from './errors.js';
import { seededRandom } from './random.js';
import type { ReceivedMessage } from './spool-records.js';
import { T0, caller } from './test-fixtures.js';

type Op =
  | { t: 'send'; delay: number }
  | { t: 'receive' }
  | { t: 'renew' | 'ack' | 'nack' | 'discard'; pick: number }
  | { t: 'timeout'; seconds: number | null }
  | { t: 'advance'; ms: number }
  | { t: 'primary' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ t: fc.constant('send' as const), delay: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 20 })) }) },
  { weight: 4, arbitrary: fc.record({ t: fc.constant('receive' as const) }) },
  { weight: 4, arbitrary: fc.record({ t: fc.constantFrom('renew' as const, 'ack' as const, 'nack' as const, 'discard' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('timeout' as const), seconds: fc.option(fc.integer({ min: 1, max: 30 }), { nil: null }) }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 40_000 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('primary' as const) }) },
);

function run(ops: Op[]): void {
  const clock = new ManualClock(T0);
  const engine = new Engine({ clock, random: seededRandom(ops.length + 1) });
  const credential: Caller = caller('cred_spool');
  engine.spools.createSpool({ credential, name: 'jobs' });
  engine.spools.putQueue({ credential, spool: 'jobs', queue: 'q', leaseTimeoutSeconds: 10 });
  const where = { credential, spool: 'jobs', queue: 'q' };
  const received: ReceivedMessage[] = [];
  const handles: string[] = [];
  const stale = new Set<string>();
  let alive = 0;
  let lastFence = 0;

  for (const op of ops) {
    const now = clock.now();
    switch (op.t) {
      case 'send':
        handles.push(engine.spools.send({ ...where, body: handles.length, delaySeconds: op.delay }).handle);
        alive++;
        break;
      case 'receive': {
        const got = engine.spools.receive(where);
        if (got === null) break;
        const fence = got.message.fence as number;
        expect(fence).toBeGreaterThan(lastFence);
        lastFence = fence;
        // The message's previous leases can no longer settle it.
        for (const r of received) if (r.message.id === got.message.id) stale.add(r.lease);
        received.push(got);
        break;
      }
      case 'renew':
      case 'ack':
      case 'nack':
      case 'discard': {
        const r = received[op.pick % Math.max(1, received.length)];
        if (r === undefined) break;
        const lease = { credential, spool: 'jobs', lease: r.lease };
        try {
          if (op.t === 'discard') {
            engine.spools.discard({ credential, spool: 'jobs', handle: r.message.handle });
            alive--;
          } else {
            engine.spools[op.t](lease);
            expect(stale.has(r.lease), `a stale lease was accepted by ${op.t}`).toBe(false);
            if (op.t !== 'renew') stale.add(r.lease);
            if (op.t === 'ack') alive--;
          }
        } catch (error) {
          if (!(error instanceof EngineError)) throw error;
          expect(error.code).toBe(op.t === 'discard' ? 'message_not_found' : 'stale_token');
          if (op.t !== 'discard') stale.add(r.lease);
        }
        if (op.t === 'discard') for (const other of received) if (other.message.id === r.message.id) stale.add(other.lease);
        break;
      }
      case 'timeout':
        engine.spools.putQueue({ ...where, leaseTimeoutSeconds: op.seconds });
        break;
      case 'advance':
        clock.advance(op.ms);
        break;
      case 'primary':
        engine.spools.primaryChange();
        for (const r of received) stale.add(r.lease);
        break;
    }
    expect(clock.now()).toBeGreaterThanOrEqual(now);
    // No message is lost or duplicated: every live message is ready, delayed or leased exactly once.
    expect(engine.stats().messages).toBe(alive);
    const queue = engine.spools.getQueue(where);
    expect(queue.depth + queue.leased).toBeLessThanOrEqual(alive);
    expect(queue.leased).toBe(engine.stats().held);
  }
  // Drain: after a primary change and a long wait, every live message is received exactly once.
  engine.spools.primaryChange();
  clock.advance(3_600_000);
  const drained = new Set<string>();
  for (let got = engine.spools.receive(where); got !== null; got = engine.spools.receive(where)) {
    expect(drained.has(got.message.id)).toBe(false);
    drained.add(got.message.id);
    engine.spools.ack({ credential, spool: 'jobs', lease: got.lease });
  }
  expect(drained.size).toBe(alive);
}

describe('spool leases under random interleavings', () => {
  it('never accept a stale lease, never lose a message, and fence every delivery', () => {
    fc.assert(fc.property(fc.array(opArb, { minLength: 1, maxLength: 60, size: 'max' }), (ops) => run(ops)), { numRuns: 500 });
  });
});
