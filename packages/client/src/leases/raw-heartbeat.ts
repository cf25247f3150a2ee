import { ttlSeconds } from '@leasehold/protocol';
import type { Api } from '../resources/api.js';
import { pickCallOptions, type CallOptions } from '../resources/call-options.js';
import type { Details, HeartbeatResponse, Ttl } from '../resources/wire-types.js';
import type { LeaseTracker } from './lease-tracker.js';
import { leaseControl } from './lease-control.js';
import { sendNamedHeartbeat } from './scheduler/heartbeat-sending.js';

/** The body of `lh.heartbeat()`; the client adds its own `holderSession`. */
export interface HeartbeatOptions extends CallOptions {
  /** Lease length for held space claims: seconds, a numeric string or a duration (`"30s"`, `"PT30S"`). */
  ttl: Ttl;
  /** A progress report stored on every touched lease (an object of at most 16 KiB). */
  details?: Details | undefined;
  /** Touch only this lease. */
  claimId?: string | undefined;
}

/**
 * `lh.heartbeat()`: one raw batch heartbeat for the client's session. Without `claimId` it names
 * exactly the leases this client tracks in that session (`claimIds`), like the scheduler's own,
 * so it never keeps a lease alive that the client does not know of. Its answer also updates
 * this client's leases (deadlines counted from when it was sent, `lost` aborts), so a `ttl`
 * shorter than the scheduler's never leaves a lease believed longer than the server keeps it;
 * leases the client gave up on get their release retried, as after the scheduler's own answers.
 * The `ttl` is read with the protocol's one duration grammar.
 */
export async function sendRawHeartbeat(api: Api, leases: LeaseTracker, options: HeartbeatOptions): Promise<HeartbeatResponse> {
  const { ttl, details, claimId } = options;
  const session = leases.session;
  const body = { ttl, holderSession: session, ...(details === undefined ? {} : { details }), ...(claimId === undefined ? {} : { claimId }) };
  const tracked = leases.trackedIn(session);
  const call = pickCallOptions(options);
  const send = async (named: typeof body): Promise<HeartbeatResponse> => (await api.call('heartbeatClaims', { body: named }, call)).data;
  const sentAt = leases.now();
  const data = claimId === undefined ? await sendNamedHeartbeat(send, body, tracked.map((lease) => lease.claimId)) : await send(body);
  const seconds = ttlSeconds(ttl);
  const byId = new Map(tracked.map((lease) => [lease.claimId, lease]));
  for (const result of data.results) {
    const lease = byId.get(result.claimId);
    if (lease === undefined) continue;
    const control = lease[leaseControl];
    if (result.status === 'lost' || (result.status === 'queued' && lease.status !== 'queued')) {
      control.lose('lost');
    } else if (seconds !== undefined) {
      const durationMs = lease.durationFor(seconds);
      if (result.status === 'held') control.renewed(sentAt, durationMs, { expiresAt: result.expiresAt, queueDepth: result.queueDepth }, 'heartbeat');
      else control.queued(sentAt, durationMs, result);
      control.hooks?.changed(lease, 'heartbeat');
    }
  }
  leases.scheduler().serverAnswered();
  return data;
}
