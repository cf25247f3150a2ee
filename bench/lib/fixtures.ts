import { randomUUID } from 'node:crypto';
import { request, type Dispatcher } from 'undici';

/** The demo admin key every reference server accepts. */
export const API_KEY = 'lh_test_admin';
/** A space id (any UUID names a space). */
export const SPACE_ID = '6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a';
/** The run the benchmark's claims belong to. */
export const RUN_ID = '0b7e4c6a-1f2d-4e3b-8a9c-5d6e7f8a9b0c';

/** `/v1/spaces/{SPACE_ID}/claims` (+ `/{key}/{action}`). */
export function claimsPath(key?: string, action?: 'renew' | 'release'): string {
  const base = `/v1/spaces/${SPACE_ID}/claims`;
  if (key === undefined) return base;
  return `${base}/${encodeURIComponent(key)}${action ? `/${action}` : ''}`;
}

/** What the benchmarks keep from an acquire answer. */
export interface HeldClaim {
  key: string;
  claimId: string;
  token: string;
  fence: number;
  leaseSeconds: number;
  expiresAt: number;
}

/** Acquires `key` over raw undici (set-up only, never measured). */
export async function acquireRaw(
  dispatcher: Dispatcher,
  origin: string,
  key: string,
  options: { leaseSeconds?: number; holderSession?: string } = {},
): Promise<HeldClaim> {
  const res = await request(`${origin}${claimsPath()}`, {
    dispatcher,
    method: 'POST',
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify({
      key,
      scopeId: RUN_ID,
      holder: 'bench',
      holderSession: options.holderSession ?? 'bench-session',
      leaseSeconds: options.leaseSeconds ?? 600,
    }),
  });
  const body = (await res.body.json()) as HeldClaim & { status: string };
  if (res.statusCode !== 201) throw new Error(`acquire ${key}: ${res.statusCode} ${JSON.stringify(body)}`);
  return body;
}
