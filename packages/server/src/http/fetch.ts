import { MAX_BODY_BYTES, type PlainRequest, type PlainResponse } from './plain.js';

/**
 * Turns a Fetch-standard `Request` into the plain request the pipeline reads; `baseUrl` is what
 * the request reached before its path (default: its origin).
 */
export async function plainFromRequest(request: Request, baseUrl?: string): Promise<PlainRequest> {
  const url = new URL(request.url);
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  let body: Uint8Array | undefined;
  let bodyTooLarge = false;
  if (request.body) {
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.length > MAX_BODY_BYTES) bodyTooLarge = true;
    else body = bytes;
  }
  return { method: request.method.toUpperCase(), url: url.pathname + url.search, headers, body, bodyTooLarge, baseUrl: baseUrl ?? url.origin };
}

/** Turns the pipeline's answer into a Fetch `Response`; a dropped answer becomes a network error. */
export function responseFromPlain(plain: PlainResponse): Response {
  if (plain.drop) return Response.error();
  return new Response(plain.body ?? null, { status: plain.status, headers: plain.headers });
}
