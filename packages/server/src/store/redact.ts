/**
 * The one owner of hiding secrets in what the server prints or logs: passwords in connection
 * URLs (any scheme, `user:password@`, `?password=`, percent-encoded or not), libpq
 * `password=…` keywords in free text, and API keys (`maskKey`).
 */
import { createHash } from 'node:crypto';

const HIDDEN = '***';
/** Query parameters and libpq keywords that carry a secret (lower case; `sslpassword` is libpq's key passphrase). */
const SECRET_PARAMS = new Set(['password', 'pass', 'passwd', 'pwd', 'sslpassword', 'secret', 'token', 'apikey', 'api_key', 'access_token']);
/** A URL inside free text: a scheme, `//`, then anything up to whitespace or a quote/bracket that ends it. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;
/** A `key=value` pair (query string or libpq keyword form), the value up to `&`, whitespace or a quote. */
const PAIR = /(^|[?&;\s])([A-Za-z_%][A-Za-z0-9_.%-]*)=([^&\s"';]*)/g;

function isSecretName(name: string): boolean {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    // a malformed escape: judge the name as written
  }
  return SECRET_PARAMS.has(decoded.toLowerCase());
}

function hidePairs(text: string): string {
  return text.replace(PAIR, (whole, lead: string, name: string, value: string) => (value !== '' && isSecretName(name) ? `${lead}${name}=${HIDDEN}` : whole));
}

/**
 * A URL (or anything that looks like one) with its secrets hidden: the password of `user:pw@`
 * and every secret query parameter become `***`. What does not parse is masked by pattern, so a
 * mistyped URL (`postgres//user:pw@host`) is hidden too.
 * @example
 * redactUrl('postgres://lh:s3cret@db/lh?password=x') // 'postgres://lh:***@db/lh?password=***'
 */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'file:' && parsed.host === '' && !url.includes('//')) throw new Error('not a URL with an authority');
    if (parsed.password !== '') parsed.password = HIDDEN;
    const out = parsed.toString();
    return parsed.search === '' ? out : hidePairs(out.replaceAll('%2A%2A%2A', HIDDEN));
  } catch {
    // `user:secret@` anywhere (with or without a scheme), then secret pairs.
    return hidePairs(url.replace(/([^\s/:@]*):[^\s/@]*@/g, `$1:${HIDDEN}@`));
  }
}

/**
 * Free text (an error message, a banner line) with every secret hidden: each URL in it through
 * `redactUrl`, and `password=…` pairs outside URLs (libpq's keyword form).
 * @example
 * redactText('connect postgres://lh:pw@db failed') // 'connect postgres://lh:***@db failed'
 */
export function redactText(text: string): string {
  return hidePairs(text.replace(URL_IN_TEXT, (url) => redactUrl(url)));
}

/**
 * An API key as it may be printed: a short prefix that names its kind (`lh_live_`, when the
 * rest is long enough to stay secret), its last 4 characters when it is long, and a fingerprint
 * (the first 12 hex digits of its SHA-256, as `printf %s KEY | sha256sum` shows), never the key.
 * @example
 * maskKey('lh_live_3f9a1c7e5b2d8f0a6c4e2b9d') // 'lh_live_…2b9d (sha256 …)'
 */
export function maskKey(apiKey: string): string {
  const prefix = /^[A-Za-z0-9]{1,8}_(?:[A-Za-z0-9]{1,8}_)?/.exec(apiKey)?.[0] ?? '';
  const shown = apiKey.length - prefix.length >= 8 ? prefix : '';
  // The last 4 only when at least 16 characters stay hidden.
  const tail = apiKey.length - shown.length - 4 >= 16 ? apiKey.slice(-4) : '';
  return `${shown}…${tail} (sha256 ${createHash('sha256').update(apiKey).digest('hex').slice(0, 12)})`;
}
