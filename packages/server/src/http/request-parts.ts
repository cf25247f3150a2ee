import { requestFingerprint, type ErrorCode } from '../engine/index.js';
import type { PlainRequest } from './plain.js';

/**
 * The idempotency fingerprint: method, path and body, plus the `Spooler-Lease` header, which
 * names the subject of the spool settles the way a body field names it elsewhere.
 */
export function fingerprintOf(request: PlainRequest, path: string): string {
  const lease = request.headers['spooler-lease'];
  if (lease === undefined) return requestFingerprint(request.method, path, request.body);
  const body = request.body ?? new Uint8Array();
  const suffix = new TextEncoder().encode(`\nSpooler-Lease: ${lease}`);
  const combined = new Uint8Array(body.length + suffix.length);
  combined.set(body);
  combined.set(suffix, body.length);
  return requestFingerprint(request.method, path, combined);
}

/** The origin-form (`/path?query`) of an absolute-form request target. */
export function originFormOf(target: string): string {
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target);
  if (!match) return target;
  const rest = target.slice(match[0].length);
  return rest === '' || rest[0] === '?' ? `/${rest}` : rest;
}

/** The code an injected fault answers with, by status. */
export function faultCode(status: number): ErrorCode | undefined {
  if (status === 503) return 'service_unavailable';
  if (status === 429) return 'rate_limited';
  if (status === 500) return 'internal_error';
  return undefined;
}
