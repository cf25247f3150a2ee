import { hasCodePointLength } from '@leasehold/protocol';
import { EngineError } from './errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const IDENT_NAME = /^[A-Za-z0-9_:-]{1,63}$/;

/** True when `value` is a UUID in canonical 8-4-4-4-12 hex form (any case). */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/** A UUID in lowercase, or `invalid_request` naming `param`. */
export function requireUuid(value: unknown, param: string): string {
  if (!isUuid(value)) throw new EngineError('invalid_request', `${param} must be a UUID.`, param);
  return value.toLowerCase();
}

/** An IdentName (`^[A-Za-z0-9_:-]{1,63}$`), or `invalid_request` naming `param`. */
export function requireIdentName(value: unknown, param: string): string {
  if (typeof value !== 'string' || !IDENT_NAME.test(value)) {
    throw new EngineError('invalid_request', `${param} must be 1–63 characters of A–Z a–z 0–9 _ : -.`, param);
  }
  return value;
}

/** An integer in [min, max] (or `fallback` when undefined), else `invalid_request` naming `param`. */
export function requireInt(value: unknown, min: number, max: number, param: string, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new EngineError('invalid_request', `${param} must be an integer from ${min} to ${max}.`, param);
  }
  return value;
}

/**
 * A string of `min`–`max` characters, counted in Unicode code points as JSON Schema counts them
 * (an emoji is one), else `invalid_request` naming `param`.
 */
export function requireString(value: unknown, min: number, max: number, param: string): string {
  if (typeof value !== 'string' || !hasCodePointLength(value, min, max)) {
    throw new EngineError('invalid_request', `${param} must be a string of ${min} to ${max} characters (Unicode code points).`, param);
  }
  return value;
}

/** True for a plain JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
