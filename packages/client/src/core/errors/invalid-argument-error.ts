import { LeaseholdError, type LeaseholdErrorOptions } from './leasehold-error.js';

/**
 * A value given to the SDK (a constructor option, a call option, a key, a name) that it refuses
 * before anything is sent: the wrong type or range, or text that cannot be sent losslessly (a
 * lone surrogate, a `.` / `..` path segment, a line break in a header). `param` names it; the
 * message names it and shows the value (secrets are never shown).
 * @example
 * try { new Leasehold({ baseUrl: '127.0.0.1:4010', apiKey: 'lh_test_admin' }); } catch (e) { if (e instanceof InvalidArgumentError) console.error(e.param); }
 */
export class InvalidArgumentError extends LeaseholdError {
  override name = 'InvalidArgumentError';
  /** The option or argument refused (`baseUrl`, `maxRetries`, `key`, `renewal.jitter`, ...). */
  readonly param: string;

  constructor(param: string, message: string, options: LeaseholdErrorOptions = {}) {
    super(message, options);
    this.param = param;
  }
}
