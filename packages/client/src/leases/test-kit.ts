import { vi, type Mock } from 'vitest';
import type { Logger } from '../core/logger.js';
import { Lease, type LeaseInit } from './lease.js';
import type { LeaseBackend, LeaseRenewal } from './lease-backend.js';
import { RenewalScheduler } from './scheduler/renewal-scheduler.js';
import type {
  HeartbeatBody,
  HeartbeatResponse,
  HeartbeatResult,
  RenewalSchedulerOptions,
} from './scheduler/renewal-scheduler-options.js';

/** Test-only helpers for the lease tests (not exported from the package). */

/** Fake timers as the lease tests use them: never `queueMicrotask` / `nextTick`. */
export const FAKE_TIMERS = {
  toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance', 'Date'],
} satisfies Parameters<typeof vi.useFakeTimers>[0];

/** A promise with its settle functions. */
export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

/** Creates a {@link Deferred}. */
export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Resolves after the current macrotask: "within one event-loop turn". */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** An error shaped like the SDK's API errors. */
export function apiError(status: number, code?: string, retryAfterMs?: number): Error {
  return Object.assign(new Error(`HTTP ${status}${code ? ` ${code}` : ''}`), { status, code, retryAfterMs });
}

/** A backend whose calls are recorded and whose behaviour tests can swap. */
export class FakeBackend implements LeaseBackend {
  renewCalls = 0;
  releaseCalls: unknown[] = [];
  renewImpl: () => Promise<LeaseRenewal> = () => Promise.resolve({ durationMs: 30_000 });
  releaseImpl: () => Promise<void> = () => Promise.resolve();

  renew(): Promise<LeaseRenewal> {
    this.renewCalls += 1;
    return this.renewImpl();
  }

  release(observation?: unknown): Promise<void> {
    this.releaseCalls.push(observation);
    return this.releaseImpl();
  }
}

let nextId = 0;

/** A space-claim lease (unless `init` says otherwise) with a {@link FakeBackend}. */
export function makeLease(init: Partial<LeaseInit> = {}): { lease: Lease; backend: FakeBackend } {
  const backend = new FakeBackend();
  nextId += 1;
  const lease = new Lease({
    claimId: `clm_test${nextId}`,
    token: `lht_secretTokenValue${nextId}xx`,
    fence: nextId,
    kind: 'space',
    backend,
    ...init,
  });
  return { lease, backend };
}

/** One heartbeat the scheduler sent. */
export interface HeartbeatCall {
  body: HeartbeatBody;
  signal: AbortSignal;
  answer: Deferred<HeartbeatResponse>;
}

/** A fake heartbeat endpoint: answers from `reply` when set, else leaves the call pending. */
export class FakeHeartbeat {
  readonly calls: HeartbeatCall[] = [];
  reply: ((call: HeartbeatCall) => HeartbeatResponse | Error) | undefined;

  readonly send = (body: HeartbeatBody, signal: AbortSignal): Promise<HeartbeatResponse> => {
    const call: HeartbeatCall = { body, signal, answer: deferred() };
    this.calls.push(call);
    if (this.reply) {
      const outcome = this.reply(call);
      if (outcome instanceof Error) call.answer.reject(outcome);
      else call.answer.resolve(outcome);
    }
    return call.answer.promise;
  };

  /** The latest call. */
  get last(): HeartbeatCall {
    const call = this.calls.at(-1);
    if (!call) throw new Error('no heartbeat was sent');
    return call;
  }

  /** Answers every lease `held` from now on. */
  answerHeld(leases: () => Iterable<Lease>): void {
    this.reply = () => held(leases());
  }

  /** Fails every heartbeat from now on. */
  failWith(error: Error): void {
    this.reply = () => error;
  }
}

/** A heartbeat answer listing `leases` as held. */
export function held(leases: Iterable<Lease>, expiresAt?: number): HeartbeatResponse {
  return answer([...leases].map((lease) => ({ claimId: lease.claimId, status: 'held', expiresAt })));
}

/** A heartbeat answer with these acks. */
export function answer(results: HeartbeatResult[]): HeartbeatResponse {
  return { object: 'list', results };
}

/** A logger whose every method is a mock. */
export type RecordingLogger = { [K in keyof Logger]: Mock<Logger[K]> };

/** A recording logger. */
export function recordingLogger(): RecordingLogger {
  return { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };
}

/** What {@link setup} returns. */
export interface Setup {
  scheduler: RenewalScheduler;
  heartbeat: FakeHeartbeat;
  logger: RecordingLogger;
  /** Creates and registers a lease granted `durationMs` by a request sent now. */
  acquire(init?: Partial<LeaseInit>, durationMs?: number | null): { lease: Lease; backend: FakeBackend };
}

/** A scheduler on a fake heartbeat with deterministic jitter (factor 1) and a recording logger. */
export function setup(options: Partial<RenewalSchedulerOptions> = {}): Setup {
  const heartbeat = new FakeHeartbeat();
  const logger = recordingLogger();
  const scheduler = new RenewalScheduler({
    sendHeartbeat: heartbeat.send,
    holderSession: 'sess_test',
    random: () => 0.5,
    logger,
    ...options,
  });
  const acquire = (init: Partial<LeaseInit> = {}, durationMs: number | null = 30_000) => {
    const made = makeLease(init);
    scheduler.register(made.lease, { durationMs, sentAt: scheduler.now() });
    return made;
  };
  return { scheduler, heartbeat, logger, acquire };
}
