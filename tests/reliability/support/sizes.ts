/**
 * Run sizes of the reliability suites. CI sizes keep the whole directory within about 90 s on
 * two cores; `LEASEHOLD_LONG=1` (the root script `test:reliability:long`) scales them up for
 * runs by hand.
 */
export const LONG = process.env.LEASEHOLD_LONG === '1';

/** `ci` normally, `long` with `LEASEHOLD_LONG=1`. */
export function size<T>(ci: T, long: T): T {
  return LONG ? long : ci;
}

/** A vitest timeout: `ci` ms normally, `long` ms in long mode. */
export function timeout(ciMs: number, longMs: number): number {
  return LONG ? longMs : ciMs;
}
