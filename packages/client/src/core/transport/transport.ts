/** One HTTP request as the transport sends it. */
export interface TransportRequest {
  /** Uppercase HTTP method. */
  method: string;
  /** Absolute URL, query included. */
  url: string;
  /** Request headers (names as given). */
  headers: Readonly<Record<string, string>>;
  /** The encoded body, if any. */
  body?: string | undefined;
  /** Aborts the request, including reading the body. */
  signal?: AbortSignal | undefined;
}

/** One HTTP answer, whatever its status: body read in full. */
export interface TransportResponse {
  status: number;
  /** Response headers with lowercase names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The body as text ("" when empty). */
  bodyText: string;
}

/**
 * Moves bytes, nothing else: no retries, no error mapping beyond network failure →
 * `ConnectionError` and abort → `AbortError`. HTTP error statuses resolve normally.
 * @example
 * const res = await transport.send({ method: 'GET', url, headers: {} });
 */
export interface Transport {
  /** Sends one request; rejects only with `ConnectionError` or `AbortError`. */
  send(request: TransportRequest): Promise<TransportResponse>;
  /** Releases what the transport created (never what the caller lent it). */
  close?(): Promise<void>;
}

/** A header record with lowercase names and repeated values joined by ", ". */
export function normalizeHeaders(headers: Iterable<[string, string | string[] | undefined]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    const joined = Array.isArray(value) ? value.join(', ') : value;
    out[lower] = out[lower] === undefined ? joined : `${out[lower]}, ${joined}`;
  }
  return out;
}
