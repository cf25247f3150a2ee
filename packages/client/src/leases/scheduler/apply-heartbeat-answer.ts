import { leaseControl } from '../lease-control.js';
import type { LeaseRegistry } from './lease-registry.js';
import type { HeartbeatResult } from './renewal-scheduler-options.js';

/** The heartbeat whose answer is being applied. */
export interface AnswerContext {
  /** When it was sent (monotonic ms): renewed deadlines count from here, never from the answer. */
  readonly sentAt: number;
  /** Its sequence number, stamped on every lease it lists. */
  readonly sequence: number;
  /** The `ttl` it sent, in seconds. */
  readonly ttlSeconds: number;
  /** Whether to stop (a listener closed the scheduler). */
  stopped(): boolean;
}

/** What applying one answer did. */
export interface AppliedAnswer {
  /** Held or queued acks applied. */
  renewed: number;
  /** Leases aborted because the answer reported them `lost` (or a held one `queued`). */
  lost: number;
  /** Acks for no registered lease (released meanwhile, or not ours) or with an unknown status. */
  ignored: number;
  /** Whether applying stopped early. */
  stopped: boolean;
}

/**
 * Applies a batch heartbeat's acks to the registered leases: `held` renews (a queued claim is
 * thereby granted), `queued` keeps a waiter's place, `lost` aborts within this turn. A lease no
 * longer registered (released while the heartbeat was in flight) is never touched.
 */
export function applyHeartbeatAnswer(
  registry: LeaseRegistry,
  results: readonly HeartbeatResult[],
  context: AnswerContext,
): AppliedAnswer {
  const applied: AppliedAnswer = { renewed: 0, lost: 0, ignored: 0, stopped: false };
  for (const result of results) {
    const lease = registry.get(result.claimId);
    if (lease === undefined) {
      applied.ignored += 1;
      continue;
    }
    const control = lease[leaseControl];
    control.seenIn = context.sequence;
    const durationMs = lease.durationFor(context.ttlSeconds);
    if (result.status === 'held') {
      const ack = { expiresAt: result.expiresAt, queueDepth: result.queueDepth };
      control.renewed(context.sentAt, durationMs, ack, 'heartbeat');
      applied.renewed += 1;
    } else if (result.status === 'queued' && lease.status === 'queued') {
      control.queued(context.sentAt, durationMs, result);
      applied.renewed += 1;
    } else if (result.status === 'lost' || result.status === 'queued') {
      // `lost`, or a held lease reported queued: it can only have lost its grant.
      control.lose('lost');
      applied.lost += 1;
    } else {
      applied.ignored += 1;
    }
    if (context.stopped()) {
      applied.stopped = true;
      break;
    }
  }
  return applied;
}
