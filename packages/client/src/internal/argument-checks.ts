import { InvalidArgumentError } from '../core/errors/invalid-argument-error.js';

/** A value as a message may show it: JSON where possible, cut to 80 characters. */
export function shown(value: unknown): string {
  let text: string;
  if (typeof value === 'function') text = `a function`;
  else if (typeof value === 'bigint') text = `${value}n`;
  else if (typeof value === 'symbol') text = value.toString();
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
    if (typeof value === 'number' && !Number.isFinite(value)) text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Throws an {@link InvalidArgumentError} naming `param` and showing `value` unless `ok`. */
export function check(ok: boolean, param: string, want: string, value: unknown, owner = 'Leasehold'): asserts ok {
  if (!ok) throw new InvalidArgumentError(param, `${owner}: ${param} must be ${want}; got ${shown(value)}.`);
}

/** `value` is absent or a number satisfying `ok`. */
export function checkNumber(value: unknown, param: string, want: string, ok: (n: number) => boolean, owner?: string): void {
  if (value === undefined) return;
  check(typeof value === 'number' && ok(value), param, want, value, owner);
}

/** A non-negative safe integer. */
export const isCount = (n: number): boolean => Number.isSafeInteger(n) && n >= 0;
/** A positive number, `Infinity` allowed (no limit). */
export const isPositiveOrInfinite = (n: number): boolean => n > 0;
/** A finite positive number. */
export const isPositiveFinite = (n: number): boolean => n > 0 && Number.isFinite(n);
/** A finite non-negative number. */
export const isNonNegativeFinite = (n: number): boolean => n >= 0 && Number.isFinite(n);

/** `value` is absent or a function. */
export function checkFunction(value: unknown, param: string, owner?: string): void {
  if (value === undefined) return;
  check(typeof value === 'function', param, 'a function', value, owner);
}

/** `value` is absent or an object (not null, not an array). */
export function checkObject(value: unknown, param: string, owner?: string): value is Record<string, unknown> | undefined {
  if (value === undefined) return true;
  check(typeof value === 'object' && value !== null && !Array.isArray(value), param, 'an object', value, owner);
  return true;
}

/** Where text goes: a URL path segment, a query value, or a header. */
export type Destination = 'path' | 'query' | 'header';

/**
 * Refuses text the SDK cannot send losslessly: a lone surrogate (UTF-8 cannot carry it: URL
 * encoding would throw or turn it into U+FFFD), a path segment `.` or `..` (URL parsing resolves
 * it away, so the request would name another resource), and in a header, anything but visible
 * ASCII and inner spaces (a line break would split the request; non-ASCII is not portable).
 */
export function assertSendable(value: string, param: string, where: Destination, options: { secret?: boolean } = {}): void {
  const show = options.secret ? '(value not shown)' : shown(value);
  if (where === 'header') {
    if (!/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value)) {
      throw new InvalidArgumentError(param, `${param} must be visible ASCII (spaces only inside), as it is sent in a header; got ${show}.`);
    }
    return;
  }
  if (/\p{Cs}/u.test(value)) {
    throw new InvalidArgumentError(param, `${param} contains a lone surrogate (unpaired UTF-16 half), which cannot be sent in a URL without changing it; got ${show}.`);
  }
  if (where === 'path' && (value === '.' || value === '..')) {
    throw new InvalidArgumentError(param, `${param} ${show} cannot be addressed in a URL path: URL parsing resolves "." and ".." segments away.`);
  }
}

/**
 * A UUID as the API accepts one (the server's rule: RFC 9562 versions 1–8 with the RFC variant,
 * or the nil and max UUIDs), any case.
 */
const UUID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}|0{8}-0{4}-0{4}-0{4}-0{12}|f{8}-f{4}-f{4}-f{4}-f{12})$/i;

/** Refuses an id the API would refuse as not a UUID, naming the SDK's own parameter (`runId`, not the wire's `scopeId`). */
export function checkUuid(value: unknown, param: string, owner: string): asserts value is string {
  check(typeof value === 'string' && UUID.test(value), param, 'a UUID (such as "6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a")', value, owner);
}
