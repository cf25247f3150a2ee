import type { LeaseholdServer } from '@leasehold/server/portable';
import { pathUnderBase, type BaseUrl } from './base-url.js';
import { leaseWatchOf } from './lease-watch.js';

/**
 * The core every Fetch adapter shares: answers a Fetch `Request` under `base` with the
 * reference server. The base URL's mount prefix is stripped first (the server sees the path
 * under its root mount, and is told the base URL, which its `doc_url`s and `/openapi.json` name),
 * and the answer is shown to the server's lease watch before it is returned. A dropped
 * answer comes back as `Response.error()`, which fetch and MSW turn into a network error.
 */
export async function answerFetch(server: LeaseholdServer, base: BaseUrl, request: Request): Promise<Response> {
  const path = pathUnderBase(base, new URL(request.url));
  if (path === undefined) throw new Error(`${request.url} is not under ${base.href}`);
  if (request.bodyUsed) {
    throw new Error(
      `The body of ${request.method} ${request.url} was already read by an earlier handler: an override that ` +
        'falls through (returns nothing) must read request.clone(). Overrides from leaseholdHttp do this for you.',
    );
  }
  const method = request.method.toUpperCase();
  const hasBody = request.body !== null && method !== 'GET' && method !== 'HEAD';
  const rebased = new Request(base.origin + path, {
    method,
    headers: request.headers,
    body: hasBody ? await request.arrayBuffer() : null,
  });
  const response = await server.handle(rebased, { baseUrl: base.href });
  await leaseWatchOf(server).observe({
    method,
    path,
    status: response.status,
    replayed: response.headers.get('idempotent-replayed') === 'true',
    readBody: () => response.clone().text(),
  });
  return response;
}
