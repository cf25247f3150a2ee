/** Wire types of the Leasehold API, generated from the OpenAPI spec. */
export type { paths, components, operations } from './generated/openapi.js';
