import { openapiDocument } from '../generated/openapi-document.js';

/**
 * `/openapi.json` names the server the request reached in `servers` (scheme, host, port and
 * mount), so code generators and "try it" consoles aimed at the served spec call this server.
 * The document is serialized once, on the first request for it (not at import: a mock that never
 * serves it never pays for it), around a placeholder for that URL.
 */
const SERVER_PLACEHOLDER = '\u0000server\u0000';
let serialized: readonly [head: string, tail: string] | undefined;

function serializedAroundServer(): readonly [head: string, tail: string] {
  serialized ??= JSON.stringify({
    ...openapiDocument,
    servers: [{ url: SERVER_PLACEHOLDER, description: 'This server: the API base URL this document was fetched from.' }],
  }).split(JSON.stringify(SERVER_PLACEHOLDER)) as [string, string];
  return serialized;
}

/** The served OpenAPI document, naming `apiBaseUrl` as its server. */
export function servedSpec(apiBaseUrl: string): string {
  const [head, tail] = serializedAroundServer();
  return head + JSON.stringify(apiBaseUrl) + tail;
}
