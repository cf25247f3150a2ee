import { base64UrlOf } from '../engine/bytes.js';

/**
 * Request ids: `req_`, a random prefix drawn once per process (9 bytes, 12 base64url
 * characters), then a counter in base 36. Unique per response within the process (the counter)
 * and across processes and restarts with overwhelming probability (72 random bits), without a
 * random draw per request. They are identifiers, not secrets: within one process they are
 * sequential, so one id reveals its neighbours, and nothing accepts a request id as proof of
 * anything (it is only quoted in logs and problem reports).
 */
const REQUEST_ID_PREFIX = `req_${base64UrlOf(globalThis.crypto.getRandomValues(new Uint8Array(9)))}`;
let requestCount = 0;

/** The next request id of this process (`req_` + random prefix + counter). */
export function nextRequestId(): string {
  return REQUEST_ID_PREFIX + (requestCount++).toString(36);
}

