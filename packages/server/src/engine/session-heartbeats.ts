import { TOMBSTONE_MS } from './lease-record.js';
import { bucketOf } from './queue-history.js';

/** A session's heartbeat rate counts the current 10-second interval and the five before it (a minute). */
export const RATE_BUCKETS = 6;

interface SessionBeats {
  /** Heartbeats per 10-second bucket, the last `RATE_BUCKETS` of them. */
  readonly buckets: Map<number, number>;
  last: number;
}

/** One session's heartbeats as the activity views show them. */
export interface SessionBeat {
  /** Heartbeats in the current 10-second interval and the five before it. */
  readonly heartbeats: number;
  /** The last heartbeat (epoch ms). */
  readonly lastHeartbeatAt: number;
}

/** The first bucket a rate counts at `now`. */
export function firstRateBucket(now: number): number {
  return bucketOf(now) - RATE_BUCKETS + 1;
}

/**
 * Heartbeats per account and holder session (the memory store's): counts per 10-second bucket
 * of the last minute and the last instant, forgotten 10 minutes after a session's last heartbeat.
 */
export class SessionHeartbeats {
  readonly #byAccount = new Map<string, Map<string, SessionBeats>>();

  /** Count one heartbeat of `session` at `now`. */
  record(accountId: string, session: string, now: number): void {
    let sessions = this.#byAccount.get(accountId);
    if (sessions === undefined) {
      sessions = new Map();
      this.#byAccount.set(accountId, sessions);
    }
    let beats = sessions.get(session);
    if (beats === undefined) {
      beats = { buckets: new Map(), last: now };
      sessions.set(session, beats);
    }
    const bucket = bucketOf(now);
    beats.buckets.set(bucket, (beats.buckets.get(bucket) ?? 0) + 1);
    beats.last = Math.max(beats.last, now);
    trim(beats, now);
  }

  /** The account's sessions that sent a heartbeat in the last 10 minutes. */
  sessionsOf(accountId: string, now: number): Map<string, SessionBeat> {
    const out = new Map<string, SessionBeat>();
    const sessions = this.#byAccount.get(accountId);
    if (sessions === undefined) return out;
    for (const [session, beats] of sessions) {
      if (beats.last <= now - TOMBSTONE_MS) {
        sessions.delete(session);
        continue;
      }
      trim(beats, now);
      let heartbeats = 0;
      for (const count of beats.buckets.values()) heartbeats += count;
      out.set(session, { heartbeats, lastHeartbeatAt: beats.last });
    }
    if (sessions.size === 0) this.#byAccount.delete(accountId);
    return out;
  }
}

function trim(beats: SessionBeats, now: number): void {
  const first = firstRateBucket(now);
  for (const bucket of beats.buckets.keys()) if (bucket < first) beats.buckets.delete(bucket);
}
