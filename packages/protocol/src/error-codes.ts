import { errorCatalogue, errorStatusByCode, errorTypeByStatus as generatedTypeByStatus, type ErrorCode } from './generated/error-codes.js';
import type { components } from './generated/openapi.js';

/**
 * The spec's error-code catalogue (`ErrorCode`): every code with its status and description,
 * the code → status table, and the envelope `type` of each status (`ErrorType`).
 */
export { errorCatalogue, errorStatusByCode, type ErrorCode };

/** The envelope `type` values (`ErrorType` in the spec). */
export type ErrorType = components['schemas']['ErrorEnvelope']['type'];

/** The envelope `type` of an error, by HTTP status (`invalid_request_error` covers 400/405/413/415/422/428/431). */
export const errorTypeByStatus: Readonly<Record<number, ErrorType>> = generatedTypeByStatus;

/**
 * The envelope `type` of any status: the spec's table, else by family (5xx `api_error`, 4xx
 * `invalid_request_error`). The one status → type rule.
 * @example
 * errorTypeOf(409); // 'conflict_error'
 */
export function errorTypeOf(status: number): ErrorType {
  return errorTypeByStatus[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

/** True when `value` is one of the spec's error codes. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(errorStatusByCode, value);
}
