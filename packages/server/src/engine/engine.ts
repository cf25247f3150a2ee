import { Activity } from './activity.js';
import { utf8Length } from './bytes.js';
import type { Clock } from './clock.js';
import { EngineControls } from './controls.js';
import { KeyStore, type AuthResult, type Credential, type KeyConfig } from './credentials.js';
import { EngineError } from './errors.js';
import { heartbeat, heartbeatClaimId, type HeartbeatParams } from './heartbeat.js';
import type { HeartbeatResult } from './heartbeat-result.js';
import { IdempotencyStore } from './idempotency-store.js';
import { LeaseEngine, type LeaseStats } from './lease-engine.js';
import type { Details } from './lease-record.js';
import { cryptoRandom, type RandomSource } from './random.js';
import { RateLimiter, type RateDecision } from './rate-limiter.js';
import { SessionHeartbeats } from './session-heartbeats.js';
import { SpaceClaims } from './space-claims.js';
import { Spools } from './spools.js';
import { Tasks } from './tasks.js';
import { parseTtl } from './ttl.js';
import { requireStorableJson } from './json-value.js';
import { isPlainObject } from './validation.js';

/** How an engine is built: its clock, optional keys (default: the demo keys) and randomness. */
export interface EngineOptions {
  /** Where time comes from (`RealClock` or `ManualClock`). */
  clock: Clock;
  /** The API keys (default `DEFAULT_KEYS`). */
  keys?: readonly KeyConfig[];
  /** Randomness for ids and tokens (default `node:crypto`). */
  random?: RandomSource;
}

/** The heartbeat answer (wire `HeartbeatResponse`). */
export interface HeartbeatResponse {
  object: 'list';
  results: HeartbeatResult[];
}

/** A heartbeat as the HTTP layer receives it: `ttl` raw (number or string) or parsed. */
export interface HeartbeatRequest extends Omit<HeartbeatParams, 'ttl' | 'details'> {
  /** Seconds, a numeric string or a duration string (see `parseTtl`); absent or `null`: each lease's own term. */
  ttl?: unknown;
  /** A JSON object of at most 16 KiB (serialized). */
  details?: unknown;
}

/** Counts for tests and benchmarks. */
export interface EngineStats extends LeaseStats {
  /** Messages stored in all spools. */
  messages: number;
  /** Idempotency records kept. */
  idempotencyRecords: number;
}

const MAX_DETAILS_BYTES = 16 * 1024;

/**
 * The whole in-memory state of a Leasehold server — credentials, one lease engine behind space
 * claims, task claims and spool leases, idempotency records and the test controls — with no HTTP,
 * no timers and no clock of its own. Every operation first expires what is due.
 * @example
 * const engine = new Engine({ clock: new ManualClock() });
 * const auth = engine.authenticate('Bearer lh_test_admin');
 * if (auth.ok) engine.claims.acquire({ credential: auth.credential, spaceId, key: 'a', scopeId, holder: 'w1', holderSession: 's1' });
 */
export class Engine {
  /** The injected clock. */
  readonly clock: Clock;
  /** API keys, accounts and their standing. */
  readonly keys: KeyStore;
  /** Per-credential token buckets. */
  readonly rateLimiter: RateLimiter;
  /** The shared lease engine (fences, expiry heap, per-credential index). */
  readonly leases: LeaseEngine;
  /** Space claims. */
  readonly claims: SpaceClaims;
  /** Tasks and task claims. */
  readonly tasks: Tasks;
  /** Spools, queues, messages and spool leases. */
  readonly spools: Spools;
  /** Idempotency records (responses are opaque to the engine). */
  readonly idempotency: IdempotencyStore;
  /** Test levers. */
  readonly controls: EngineControls;
  /** Heartbeats per account and holder session (the activity views' rates). */
  readonly sessionHeartbeats = new SessionHeartbeats();
  /** The read-only activity views (spaces, queue statistics, lease events, sessions). */
  readonly activity: Activity;

  /** Build an engine. */
  constructor(options: EngineOptions) {
    this.clock = options.clock;
    const random = options.random ?? cryptoRandom;
    this.keys = new KeyStore(this.clock, options.keys);
    this.rateLimiter = new RateLimiter(this.clock);
    this.leases = new LeaseEngine(this.clock, random);
    this.claims = new SpaceClaims(this.leases);
    this.tasks = new Tasks(this.leases);
    this.spools = new Spools(this.leases);
    this.idempotency = new IdempotencyStore(this.clock);
    this.controls = new EngineControls({
      leases: this.leases,
      keys: this.keys,
      claims: this.claims,
      spools: this.spools,
    });
    this.activity = new Activity(this.leases, this.claims, this.spools, this.sessionHeartbeats);
  }

  /** Authenticate a raw `Authorization` header. */
  authenticate(header: string | null | undefined): AuthResult {
    return this.keys.authenticate(header);
  }

  /** Take one request from the credential's rate limit. */
  checkRateLimit(credential: Credential): RateDecision {
    return this.rateLimiter.take(credential.credentialId, credential.rateLimitPerSecond);
  }

  /** Batch heartbeat (`POST /v1/claims/heartbeat`): validates `ttl` and `details`, then renews. */
  heartbeat(request: HeartbeatRequest): HeartbeatResponse {
    const ttl = parseTtl(request.ttl);
    const details = checkDetails(request.details);
    const results = heartbeat(this.leases, { ...request, claimId: heartbeatClaimId(request.claimId), ttl, details });
    const session = request.holderSession;
    if (typeof session === 'string') this.sessionHeartbeats.record(request.credential.accountId, session, this.clock.now());
    return { object: 'list', results };
  }

  /** Expire everything due now (operations do this themselves; exposed for clock-advance controls). */
  processExpirations(): number {
    return this.leases.processExpirations(this.clock.now());
  }

  /** Counts of leases, tombstones, heap entries, messages and idempotency records. */
  stats(): EngineStats {
    return { ...this.leases.stats(), messages: this.spools.messageCount, idempotencyRecords: this.idempotency.size };
  }
}

/** Check a heartbeat `details` (a JSON object of at most 16 KiB, or absent/null), as `heartbeat` does. */
export function checkDetails(details: unknown): Details | null | undefined {
  if (details === undefined || details === null) return details;
  if (!isPlainObject(details)) throw new EngineError('invalid_request', 'details must be a JSON object.', 'details');
  requireStorableJson(details, 'details');
  if (utf8Length(JSON.stringify(details)) > MAX_DETAILS_BYTES) {
    throw new EngineError('invalid_request', `details must be at most 16 KiB of JSON (got ${utf8Length(JSON.stringify(details))} bytes); nothing was renewed: send it smaller or leave it out.`, 'details');
  }
  return details;
}
