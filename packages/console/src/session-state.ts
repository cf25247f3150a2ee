import type { Schemas } from './api.js';

/** Heard from within this long: live. */
export const LIVE_WITHIN_MS = 30_000;

/** Holding leases and not heard from for longer than this: dead (the server keeps 10 minutes of heartbeats). */
export const DEAD_AFTER_MS = 10 * 60_000;

/** How a holder session looks from the server. */
export type SessionState = 'live' | 'idle' | 'silent' | 'dead';

/** Each state and what puts a session in it: the legend under the sessions table. */
export const SESSION_STATES: readonly { state: SessionState; meaning: string }[] = [
  { state: 'live', meaning: `heard from (a heartbeat, a grant or a release) in the last ${LIVE_WITHIN_MS / 1000} s` },
  { state: 'idle', meaning: `quiet for more than ${LIVE_WITHIN_MS / 1000} s, holding nothing: nothing to renew` },
  {
    state: 'silent',
    meaning: `quiet for more than ${LIVE_WITHIN_MS / 1000} s while holding leases: late, or renewing a long lease (a 15-minute task claim renews every 5 min)`,
  },
  { state: 'dead', meaning: `a lease of it ran out after it was last heard from, or quiet for more than ${DEAD_AFTER_MS / 60_000} min while holding leases` },
];

/** What the lease events say of one session. */
export interface SessionSigns {
  /** The latest grant or release of one of its leases (epoch ms, server time). */
  lastActiveAt: number | null;
  /** The latest expiry of one of its leases: it stopped renewing (or waiting). */
  lastExpiredAt: number | null;
}

/** Record what `event` says of its session in `signs`. */
export function noteEvent(signs: Map<string, SessionSigns>, event: Schemas['LeaseEvent']): void {
  if (event.holderSession === null) return;
  const sign = signs.get(event.holderSession) ?? { lastActiveAt: null, lastExpiredAt: null };
  if (event.type === 'granted' || event.type === 'released') sign.lastActiveAt = Math.max(sign.lastActiveAt ?? 0, event.at);
  else if (event.type === 'expired') sign.lastExpiredAt = Math.max(sign.lastExpiredAt ?? 0, event.at);
  signs.set(event.holderSession, sign);
}

/** A session's row with its state and when it was last heard from. */
export interface SessionView {
  readonly session: Schemas['SessionActivity'];
  readonly heardAt: number | null;
  readonly state: SessionState;
}

function latest(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  return b === null ? a : Math.max(a, b);
}

/** The state of `session` at `now`, from its last heartbeat, its leases and what the events say. */
export function sessionView(session: Schemas['SessionActivity'], signs: SessionSigns | undefined, now: number): SessionView {
  const heardAt = latest(session.lastHeartbeatAt, signs?.lastActiveAt ?? null);
  const expiredAt = signs?.lastExpiredAt ?? null;
  let state: SessionState;
  if (expiredAt !== null && (heardAt === null || expiredAt > heardAt)) state = 'dead';
  else if (heardAt !== null && now - heardAt <= LIVE_WITHIN_MS) state = 'live';
  else if (session.leases === 0) state = 'idle';
  else if (heardAt === null || now - heardAt > DEAD_AFTER_MS) state = 'dead';
  else state = 'silent';
  return { session, heardAt, state };
}

/**
 * Every session to show, in session order: those the server lists (live leases or heartbeats in
 * the last 10 minutes) and those seen only in the lease events (whose leases all ended).
 */
export function sessionViews(listed: readonly Schemas['SessionActivity'][], signs: ReadonlyMap<string, SessionSigns>, now: number): SessionView[] {
  const rows = new Map(listed.map((session) => [session.holderSession, session]));
  for (const holderSession of signs.keys()) {
    if (!rows.has(holderSession)) rows.set(holderSession, { object: 'session', holderSession, heartbeats: 0, lastHeartbeatAt: null, leases: 0 });
  }
  return [...rows.values()]
    .sort((a, b) => (a.holderSession < b.holderSession ? -1 : a.holderSession > b.holderSession ? 1 : 0))
    .map((session) => sessionView(session, signs.get(session.holderSession), now));
}
