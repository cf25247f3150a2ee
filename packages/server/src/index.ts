/** The bundled OpenAPI document the reference server implements. */
export { openapiDocument } from './generated/openapi-document.js';
