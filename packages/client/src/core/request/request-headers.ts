import { VERSION } from '../version.js';

/** The `Leasehold-Client` header value: which SDK and version sent the request. */
export const CLIENT_HEADER_VALUE = `leasehold-typescript/${VERSION}`;

/** The default `User-Agent`: SDK, version and runtime, plus the caller's own product token. */
export function userAgent(suffix?: string): string {
  const proc = (globalThis as { process?: { versions?: { node?: string }; platform?: string; arch?: string } }).process;
  const runtime = proc?.versions?.node ? `node/${proc.versions.node}; ${proc.platform ?? 'unknown'} ${proc.arch ?? ''}`.trim() : 'unknown runtime';
  return `leasehold-client/${VERSION} (${runtime})${suffix ? ` ${suffix}` : ''}`;
}

/** Inputs of {@link buildRequestHeaders}. */
export interface RequestHeaderInput {
  apiKey: string;
  idempotencyKey?: string | undefined;
  hasBody: boolean;
  userAgentSuffix?: string | undefined;
  defaultHeaders?: Readonly<Record<string, string | undefined>> | undefined;
  headers?: Readonly<Record<string, string | undefined>> | undefined;
}

/** `userAgent(suffix)` of the last suffix asked for (the runtime part never changes in a process). */
let cachedAgent: { suffix: string | undefined; value: string } | undefined;

function cachedUserAgent(suffix: string | undefined): string {
  if (cachedAgent === undefined || cachedAgent.suffix !== suffix) cachedAgent = { suffix, value: userAgent(suffix) };
  return cachedAgent.value;
}

/** Headers the request function owns: callers cannot override them through extra headers. */
const OWNED = new Set(['authorization', 'idempotency-key']);

/**
 * The headers of one request: defaults, then the client's default headers, then the call's own
 * (an `undefined` value removes a header; names compare case-insensitively), then the owned
 * `Authorization` and `Idempotency-Key`.
 */
export function buildRequestHeaders(input: RequestHeaderInput): Record<string, string> {
  if (input.defaultHeaders === undefined && input.headers === undefined) {
    // Nothing to merge: the same headers, in the same order, built directly.
    const out: Record<string, string> = {
      Accept: 'application/json',
      'User-Agent': cachedUserAgent(input.userAgentSuffix),
      'Leasehold-Client': CLIENT_HEADER_VALUE,
    };
    if (input.hasBody) out['Content-Type'] = 'application/json';
    out.Authorization = `Bearer ${input.apiKey}`;
    if (input.idempotencyKey !== undefined) out['Idempotency-Key'] = input.idempotencyKey;
    return out;
  }
  const merged = new Map<string, [string, string]>();
  const set = (name: string, value: string | undefined): void => {
    const lower = name.toLowerCase();
    if (value === undefined) merged.delete(lower);
    else merged.set(lower, [name, value]);
  };
  set('Accept', 'application/json');
  set('User-Agent', cachedUserAgent(input.userAgentSuffix));
  set('Leasehold-Client', CLIENT_HEADER_VALUE);
  if (input.hasBody) set('Content-Type', 'application/json');
  for (const extra of [input.defaultHeaders, input.headers]) {
    for (const [name, value] of Object.entries(extra ?? {})) if (!OWNED.has(name.toLowerCase())) set(name, value);
  }
  set('Authorization', `Bearer ${input.apiKey}`);
  if (input.idempotencyKey !== undefined) set('Idempotency-Key', input.idempotencyKey);
  return Object.fromEntries([...merged.values()]);
}
