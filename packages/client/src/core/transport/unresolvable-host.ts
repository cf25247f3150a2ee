import { ConnectionError } from '../errors/connection-errors.js';
import type { LeaseholdErrorOptions } from '../errors/leasehold-error.js';
import { markPermanent } from '../errors/permanent-connection.js';

/**
 * Top-level names reserved for testing and documentation (RFC 2606, RFC 6761): no DNS ever
 * resolves them, so a request to one either meets a mock or fails — every time.
 */
const RESERVED_SUFFIXES = ['.test', '.example', '.invalid'];
/** Resolver failures (`getaddrinfo`) that, for a reserved name, can only mean "no such name". */
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME']);

/** The resolver's code of a transport failure: on the error (undici) or its cause (Node's fetch). */
function dnsCodeOf(raw: unknown): { code: string; via: 'undici' | 'fetch' } | undefined {
  const own = (raw as { code?: unknown } | null)?.code;
  if (typeof own === 'string' && DNS_CODES.has(own)) return { code: own, via: 'undici' };
  const cause = (raw as { cause?: { code?: unknown } } | null)?.cause?.code;
  if (typeof cause === 'string' && DNS_CODES.has(cause)) return { code: cause, via: 'fetch' };
  return undefined;
}

/**
 * A connection error to a reserved test name (`leasehold.test`), explained: such a name is only
 * ever answered by a mock, so the failure names the usual mistake and its fix — with undici (the
 * default transport), MSW never saw the request: pass `fetch`; with `fetch`, no MSW handler
 * matched: its `baseUrl` is another. It is not retried (the name will not start resolving), so
 * MSW's "unhandled request" warning, if any, shows once. Any other error is answered as it is.
 */
export function explainUnresolvableHost(error: ConnectionError, url: string, options: LeaseholdErrorOptions = {}): ConnectionError {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return error;
  }
  const host = parsed.hostname.toLowerCase();
  if (!RESERVED_SUFFIXES.some((suffix) => host.endsWith(suffix) || host === suffix.slice(1))) return error;
  const dns = dnsCodeOf(error.cause);
  if (dns === undefined) return error;
  const why = `${host} is a reserved test name (RFC 6761) that no DNS resolves (${dns.code}), so only a mock can answer it`;
  const fix =
    dns.via === 'undici'
      ? "and the client sent with undici, its default transport, which MSW never intercepts: MSW intercepts `fetch`. Pass it — new Leasehold({ ..., fetch }) — or mock undici with LeaseholdDispatcher from '@leasehold/msw/dispatcher'."
      : `and no mock answered ${parsed.origin}: if MSW handlers should have, their baseUrl does not cover this request — give createLeaseholdHandlers({ baseUrl }) and the client the same base URL (mount prefix included).`;
  return markPermanent(new ConnectionError(`${error.message}. ${why}, ${fix} (Not retried: the name never resolves.)`, { ...options, cause: error.cause }));
}
