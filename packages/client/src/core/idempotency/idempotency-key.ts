import { InvalidArgumentError } from '../errors/invalid-argument-error.js';

/** A fresh idempotency key: a random UUID (36 printable ASCII characters). */
export function generateIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

/** Whether a string is a valid `Idempotency-Key`: 1–255 printable ASCII characters. */
export function isValidIdempotencyKey(key: string): boolean {
  return typeof key === 'string' && /^[\x20-\x7e]{1,255}$/.test(key);
}

/** Throws an {@link InvalidArgumentError} (before anything is sent) when a caller's key is invalid. */
export function assertValidIdempotencyKey(key: string): void {
  if (!isValidIdempotencyKey(key)) {
    throw new InvalidArgumentError('idempotencyKey', 'Idempotency-Key must be 1–255 printable ASCII characters.');
  }
}
