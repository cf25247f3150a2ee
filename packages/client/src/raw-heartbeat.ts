import type { ClientRuntime } from './client-runtime.js';
import { sendNamedHeartbeat } from './leases/heartbeat-batches.js';
import { leaseControl } from './leases/lease-control.js';
import { pickCallOptions, type CallOptions } from './resources/call-options.js';
import type { Details, HeartbeatResponse, Ttl } from './wire-types.js';

/** The body of `lh.heartbeat()`; the client adds its own `holderSession`. */
export interface HeartbeatOptions extends CallOptions {
  /** Lease length for held space claims: seconds, a numeric string or a duration (`"30s"`, `"PT30S"`). */
  ttl: Ttl;
  /** A progress report stored on every touched lease (an object of at most 16 KiB). */
  details?: Details | undefined;
  /** Touch only this lease. */
  claimId?: string | undefined;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A heartbeat `ttl` in seconds (the spec's three forms), or `undefined` when it is none of them. */
export function ttlSeconds(ttl: Ttl): number | undefined {
  if (typeof ttl === 'number') return Number.isFinite(ttl) && ttl >= 0 ? ttl : undefined;
  if (/^[0-9]{1,9}(\.[0-9]{1,3})?$/.test(ttl)) return Number(ttl);
  if (/^([0-9]{1,9}(\.[0-9]{1,3})?(ms|s|m|h))+$/.test(ttl)) {
    let ms = 0;
    for (const [, amount, unit] of ttl.matchAll(/([0-9.]+)(ms|s|m|h)/g)) ms += Number(amount) * (UNIT_MS[unit as string] ?? Number.NaN);
    return Number.isFinite(ms) ? ms / 1000 : undefined;
  }
  const iso = /^PT(?=[0-9])(?:([0-9.]+)H)?(?:([0-9.]+)M)?(?:([0-9.]+)S)?$/.exec(ttl);
  if (iso) return Number(iso[1] ?? 0) * 3600 + Number(iso[2] ?? 0) * 60 + Number(iso[3] ?? 0);
  return undefined;
}

/**
 * `lh.heartbeat()`: one raw batch heartbeat for the client's session. Without `claimId` it names
 * exactly the leases this client tracks in that session (`claimIds`), like the scheduler's own,
 * so it never keeps a lease alive that the client does not know of. Its answer also updates
 * this client's leases (deadlines counted from when it was sent, `lost` aborts), so a `ttl`
 * shorter than the scheduler's never leaves a lease believed longer than the server keeps it;
 * leases the client gave up on get their release retried, as after the scheduler's own answers.
 */
export async function sendRawHeartbeat(runtime: ClientRuntime, options: HeartbeatOptions): Promise<HeartbeatResponse> {
  const { ttl, details, claimId } = options;
  const body = { ttl, holderSession: runtime.session, ...(details === undefined ? {} : { details }), ...(claimId === undefined ? {} : { claimId }) };
  const tracked = runtime.trackedIn(runtime.session);
  const call = pickCallOptions(options);
  const send = async (named: typeof body): Promise<HeartbeatResponse> => (await runtime.heartbeat.send(named, call)).data;
  const sentAt = runtime.now();
  const data = claimId === undefined ? await sendNamedHeartbeat(send, body, tracked.map((lease) => lease.claimId)) : await send(body);
  const seconds = ttlSeconds(ttl);
  const leases = new Map(tracked.map((lease) => [lease.claimId, lease]));
  for (const result of data.results) {
    const lease = leases.get(result.claimId);
    if (lease === undefined) continue;
    const control = lease[leaseControl];
    if (result.status === 'lost' || (result.status === 'queued' && lease.status !== 'queued')) {
      control.lose('lost');
    } else if (seconds !== undefined) {
      const durationMs = lease.durationFor(seconds);
      if (result.status === 'held') control.renewed(sentAt, durationMs, { expiresAt: result.expiresAt, queueDepth: result.queueDepth }, 'heartbeat');
      else control.queued(sentAt, durationMs, result);
      control.hooks?.changed(lease);
    }
  }
  runtime.scheduler().serverAnswered();
  return data;
}
