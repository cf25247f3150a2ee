import type { LeaseKind } from '@leasehold/protocol';

/** What a lease guards: a key of a space, a task, or a spool message (the protocol's `LeaseKind`). */
export type { LeaseKind };

/** Where a lease stands locally: held, waiting in a key's queue, lost, or released by this holder. */
export type LeaseStatus = 'held' | 'queued' | 'lost' | 'released';

/** Shortest space-claim lease the server grants from a heartbeat `ttl`, in seconds. */
export const SPACE_TTL_MIN_SECONDS = 5;

/** Longest space-claim lease the server grants from a heartbeat `ttl`, in seconds. */
export const SPACE_TTL_MAX_SECONDS = 600;

/** A task claim always lasts 15 minutes from its grant or last renewal. */
export const TASK_CLAIM_DURATION_MS = 900_000;

/** How long a heartbeat with this `ttl` keeps a space claim (held, or its place in a queue): `clamp(ttl, 5, 600)` s. */
export function spaceClaimDurationMs(ttlSeconds: number): number {
  return Math.min(SPACE_TTL_MAX_SECONDS, Math.max(SPACE_TTL_MIN_SECONDS, ttlSeconds)) * 1000;
}

/**
 * How long one heartbeat with `ttlSeconds` keeps a lease of `kind` alive, in ms; `null` when it
 * never expires (a spool lease on a queue without a lease timeout).
 */
export function renewalDurationMs(kind: LeaseKind, ttlSeconds: number, spoolTimeoutMs: number | null): number | null {
  switch (kind) {
    case 'space':
      return spaceClaimDurationMs(ttlSeconds);
    case 'task':
      return TASK_CLAIM_DURATION_MS;
    case 'spool':
      return spoolTimeoutMs;
  }
}
