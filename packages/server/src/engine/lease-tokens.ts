import { flatString } from './bytes.js';
import { randomBase62, randomBase64Url, type RandomSource } from './random.js';
import { safeEqual } from './secrets.js';

const CLAIM_PREFIX = 'clm_';
const CLAIM_BODY_LENGTH = 16;
const CLAIM_BODY = /^[A-Za-z0-9]{1,64}$/;

/** Token prefixes: space-claim tokens (`lht_`) and spool leases (`sl_`). */
export type TokenPrefix = 'lht_' | 'sl_';

/** Secret length (base64url characters) per token prefix. */
const SECRET_LENGTH: Readonly<Record<TokenPrefix, number>> = { lht_: 32, sl_: 24 };

/** A fresh claim id, `clm_` + 16 base62 characters. */
export function newClaimId(random: RandomSource): string {
  return flat(CLAIM_PREFIX + randomBase62(random, CLAIM_BODY_LENGTH));
}

/**
 * A fresh secret token for `claimId`: `<prefix><claim body>_<secret>`. The claim id part is not
 * secret (claim ids appear in reads); it lets the engine find the lease in O(1) and then compare
 * the whole token in constant time.
 */
export function mintToken(prefix: TokenPrefix, claimId: string, random: RandomSource): string {
  return flat(`${prefix}${claimId.slice(CLAIM_PREFIX.length)}_${randomBase64Url(random, SECRET_LENGTH[prefix])}`);
}

/** Copy a concatenated (rope) string into one flat string: a lease keeps it for its whole life. */
const flat = flatString;

/** The claim id a token names, or `undefined` when the token has not the minted shape. */
export function claimIdOfToken(prefix: TokenPrefix, token: string): string | undefined {
  if (!token.startsWith(prefix)) return undefined;
  const cut = token.indexOf('_', prefix.length);
  if (cut <= prefix.length) return undefined;
  const body = token.slice(prefix.length, cut);
  return CLAIM_BODY.test(body) ? CLAIM_PREFIX + body : undefined;
}

/** Constant-time check that `presented` is the lease's `token` (raw bytes; token lengths are public). */
export function tokenMatches(presented: string, token: string): boolean {
  return safeEqual(presented, token);
}
