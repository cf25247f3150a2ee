import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';
import type { Caller } from './credentials.js';
import { Engine } from './engine.js';
import { EngineError, type ErrorCode } from './errors.js';
import type { HeartbeatResult } from './heartbeat-result.js';
import { TOMBSTONE_MS, type LeaseState, type LostReason } from './lease-record.js';
import { seededRandom } from './random.js';
import { RUN_A, RUN_B, SPACE, T0, caller } from './test-fixtures.js';

const KEYS = ['a', 'b/1'];
const SCOPES = [RUN_A, RUN_B, '2d9a6e8c-3b4f-4a5d-8cbe-7f8a9b0c1d2e'];
const CALLERS: Caller[] = [caller('cred_1'), caller('cred_2'), caller('cred_3')];
const SESSIONS = ['s1', 's2'];

type Op =
  | { t: 'acquire'; cred: number; key: number; scope: number; wait: boolean; leaseSeconds: number; session: number }
  | { t: 'renew'; pick: number; leaseSeconds: number }
  | { t: 'release'; pick: number }
  | { t: 'heartbeat'; cred: number; ttl: number; session: number | null }
  | { t: 'heartbeatOne'; pick: number; ttl: number }
  | { t: 'advance'; ms: number }
  | { t: 'cancel'; scope: number }
  | { t: 'lose'; pick: number };

const small = (max: number) => fc.integer({ min: 0, max });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ t: fc.constant('acquire' as const), cred: small(2), key: small(1), scope: small(2), wait: fc.boolean(), leaseSeconds: fc.integer({ min: 5, max: 60 }), session: small(1) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('renew' as const), pick: fc.nat(), leaseSeconds: fc.integer({ min: 5, max: 60 }) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('release' as const), pick: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('heartbeat' as const), cred: small(2), ttl: small(90), session: fc.option(small(1), { nil: null }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('heartbeatOne' as const), pick: fc.nat(), ttl: small(90) }) },
  { weight: 4, arbitrary: fc.record({ t: fc.constant('advance' as const), ms: fc.oneof(small(6_000), small(90_000)) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('cancel' as const), scope: small(2) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('lose' as const), pick: fc.nat() }) },
);


interface Issued {
  claimId: string;
  token: string;
  key: string;
  cred: number;
  queued: boolean;
}

interface Seen {
  key: string;
  credentialId: string;
  holderSession: string | null;
  seq: number;
  fence: number | null;
  acquiredAt: number | null;
  endedAt: number | null;
  status: LeaseState;
  lostReason: LostReason | null;
}

const ALLOWED: Record<Op['t'], ErrorCode[]> = {
  acquire: ['claim_held', 'scope_cancelled'],
  renew: ['claim_not_held', 'lease_expired', 'scope_cancelled', 'claim_queued'],
  release: ['claim_not_held', 'lease_expired'],
  heartbeat: [],
  heartbeatOne: ['claim_not_found'],
  advance: [],
  cancel: [],
  lose: [],
};

function runOps(ops: Op[]): void {
  const clock = new ManualClock(T0);
  const engine = new Engine({ clock, random: seededRandom(ops.length) });
  const issued: Issued[] = [];
  const seen = new Map<string, Seen>();
  const promised = new Map<string, number>();
  const reported = new Set<string>();

  const snapshot = (): void => {
    const heldKeys = new Set<string>();
    for (const l of engine.leases.all()) {
      if (l.kind !== 'space') continue;
      if (l.status === 'held') {
        expect(heldKeys.has(l.key as string), `two holders of ${l.key}`).toBe(false);
        heldKeys.add(l.key as string);
      }
      seen.set(l.claimId, {
        key: l.key as string,
        credentialId: l.credentialId,
        holderSession: l.holderSession,
        seq: l.seq,
        fence: l.fence,
        acquiredAt: l.acquiredAt,
        endedAt: l.endedAt,
        status: l.status,
        lostReason: l.lostReason,
      });
    }
  };
  const promise = (results: HeartbeatResult[]): void => {
    for (const r of results) {
      if (r.status === 'lost') continue;
      expect(reported.has(r.claimId), `${r.claimId} live after being reported lost`).toBe(false);
      if (r.status === 'held' && r.expiresAt !== undefined) promised.set(r.claimId, r.expiresAt);
    }
  };
  const pick = (n: number): Issued | undefined => issued[n % Math.max(1, issued.length)];

  for (const op of ops) {
    try {
      switch (op.t) {
        case 'acquire': {
          const claim = engine.claims.acquire({
            credential: CALLERS[op.cred] as Caller,
            spaceId: SPACE,
            key: KEYS[op.key] as string,
            scopeId: SCOPES[op.scope] as string,
            holder: `w${op.cred}`,
            holderSession: SESSIONS[op.session] as string,
            leaseSeconds: op.leaseSeconds,
            wait: op.wait,
          });
          issued.push({ claimId: claim.claimId, token: claim.token as string, key: claim.key, cred: op.cred, queued: claim.status === 'queued' });
          if (claim.status === 'held') promised.set(claim.claimId, claim.expiresAt);
          break;
        }
        case 'renew': {
          const i = pick(op.pick);
          if (!i) break;
          const claim = engine.claims.renew({ credential: CALLERS[i.cred] as Caller, spaceId: SPACE, key: i.key, token: i.token, leaseSeconds: op.leaseSeconds });
          promised.set(claim.claimId, claim.expiresAt);
          break;
        }
        case 'release': {
          const i = pick(op.pick);
          if (i) engine.claims.release({ credential: CALLERS[i.cred] as Caller, spaceId: SPACE, key: i.key, token: i.token });
          break;
        }
        case 'heartbeat': {
          const credential = CALLERS[op.cred] as Caller;
          const session = op.session === null ? undefined : SESSIONS[op.session];
          const results = engine.heartbeat({ credential, ttl: op.ttl, holderSession: session }).results;
          snapshot();
          const lostNow = new Set<string>();
          for (const r of results.filter((x) => x.status === 'lost')) {
            expect(reported.has(r.claimId), `${r.claimId} reported lost twice`).toBe(false);
            expect(seen.get(r.claimId)?.status).toBe('lost');
            lostNow.add(r.claimId);
          }
          for (const [claimId, s] of seen) {
            const due =
              s.credentialId === credential.credentialId &&
              (session === undefined || s.holderSession === session) &&
              s.status === 'lost' &&
              (s.endedAt as number) + TOMBSTONE_MS > clock.now() &&
              !reported.has(claimId);
            if (due) expect(lostNow.has(claimId), `${claimId} lost but not reported`).toBe(true);
          }
          for (const id of lostNow) reported.add(id);
          promise(results);
          break;
        }
        case 'heartbeatOne': {
          const i = pick(op.pick);
          if (!i) break;
          const results = engine.heartbeat({ credential: CALLERS[i.cred] as Caller, ttl: op.ttl, claimId: i.claimId }).results;
          for (const r of results) if (r.status === 'lost') reported.add(r.claimId);
          promise(results);
          break;
        }
        case 'advance':
          clock.advance(op.ms);
          engine.processExpirations();
          break;
        case 'cancel':
          engine.claims.cancelScope({ credential: CALLERS[0] as Caller, spaceId: SPACE, scopeId: SCOPES[op.scope] as string });
          break;
        case 'lose': {
          const i = pick(op.pick);
          if (i) engine.controls.loseLease(i.claimId);
          break;
        }
      }
    } catch (error) {
      if (!(error instanceof EngineError)) throw error;
      expect(ALLOWED[op.t], `${op.t} failed with ${error.code}`).toContain(error.code);
    }
    snapshot();
  }
  checkHistory(seen, issued, promised);
}

function checkHistory(seen: Map<string, Seen>, issued: Issued[], promised: Map<string, number>): void {
  const queued = new Set(issued.filter((i) => i.queued).map((i) => i.claimId));
  for (const key of KEYS) {
    const leases = [...seen.entries()].filter(([, s]) => s.key === key);
    const grants = leases.filter(([, s]) => s.fence !== null).sort(([, x], [, y]) => (x.fence as number) - (y.fence as number));
    for (let n = 1; n < grants.length; n++) {
      const [prevId, prev] = grants[n - 1] as [string, Seen];
      const [nextId, next] = grants[n] as [string, Seen];
      // Fences increase with grant time, and a grant starts only after the previous one ended.
      expect(prev.endedAt, `${prevId} still held when ${nextId} was granted`).not.toBeNull();
      expect(next.acquiredAt as number).toBeGreaterThanOrEqual(prev.endedAt as number);
      expect(next.acquiredAt as number).toBeGreaterThanOrEqual(prev.acquiredAt as number);
    }
    for (const [id, s] of grants) {
      // An expiry never comes before the last expiry the engine promised.
      if (s.lostReason === 'expired') expect(s.endedAt as number).toBeGreaterThanOrEqual(promised.get(id) ?? 0);
    }
    // FIFO: a waiter is granted only after every earlier waiter was granted or had left.
    const waiters = leases.filter(([id]) => queued.has(id)).sort(([, x], [, y]) => x.seq - y.seq);
    for (let j = 0; j < waiters.length; j++) {
      const [laterId, later] = waiters[j] as [string, Seen];
      if (later.fence === null) continue;
      for (let i = 0; i < j; i++) {
        const [earlierId, earlier] = waiters[i] as [string, Seen];
        if (earlier.fence !== null) {
          expect(earlier.fence, `${earlierId} granted after ${laterId}`).toBeLessThan(later.fence);
        } else {
          expect(earlier.endedAt, `${laterId} jumped the queue ahead of ${earlierId}`).not.toBeNull();
          expect(earlier.endedAt as number).toBeLessThanOrEqual(later.acquiredAt as number);
        }
      }
    }
  }
}

describe('space claims under random interleavings', () => {
  it('never overlaps holders, keeps fences increasing, grants FIFO, reports each loss once', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 80, size: 'max' }), (ops) => runOps(ops)),
      { numRuns: 1000 },
    );
  });
});
