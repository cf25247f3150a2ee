/**
 * `/openapi.json` names the server the request reached in `servers` (scheme, host, port and
 * mount), so code generators and "try it" consoles aimed at the served spec call this server.
 * The document (~280 KB of object literal, ~20 ms to parse and build) is loaded on the first
 * request for it, not at import: the bundles keep it in a chunk of its own, so a server's cold
 * start and `import('@leasehold/msw')` never pay for it (docs/storage.md, "Speed: start-up").
 * It is serialized then, once, around a placeholder for that URL.
 */
const SERVER_PLACEHOLDER = '\u0000server\u0000';
let serialized: Promise<readonly [head: string, tail: string]> | undefined;

async function serializedAroundServer(): Promise<readonly [head: string, tail: string]> {
  const { openapiDocument } = await import('../generated/openapi-document.js');
  return JSON.stringify({
    ...openapiDocument,
    servers: [{ url: SERVER_PLACEHOLDER, description: 'This server: the API base URL this document was fetched from.' }],
  }).split(JSON.stringify(SERVER_PLACEHOLDER)) as [string, string];
}

/** The served OpenAPI document, naming `apiBaseUrl` as its server. */
export async function servedSpec(apiBaseUrl: string): Promise<string> {
  serialized ??= serializedAroundServer();
  const [head, tail] = await serialized;
  return head + JSON.stringify(apiBaseUrl) + tail;
}
