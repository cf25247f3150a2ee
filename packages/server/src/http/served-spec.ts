import { openapiDocument } from '../generated/openapi-document.js';

/**
 * `/openapi.json` names the server the request reached in `servers` (scheme, host, port and
 * mount), so code generators and "try it" consoles aimed at the served spec call this server.
 * The document is serialized once, around a placeholder for that URL.
 */
const SERVER_PLACEHOLDER = '\u0000server\u0000';
const [specHead, specTail] = JSON.stringify({
  ...openapiDocument,
  servers: [{ url: SERVER_PLACEHOLDER, description: 'This server: the API base URL this document was fetched from.' }],
}).split(JSON.stringify(SERVER_PLACEHOLDER)) as [string, string];

/** The served OpenAPI document, naming `apiBaseUrl` as its server. */
export function servedSpec(apiBaseUrl: string): string {
  return specHead + JSON.stringify(apiBaseUrl) + specTail;
}
