import { redact, type Redactor } from '../redact.js';

/** Options every Leasehold error accepts. */
export interface LeaseholdErrorOptions {
  /** The underlying error, kept as is (it is not redacted: do not log it blindly). */
  cause?: unknown;
  /** Masks registered secrets in the message; pattern-based masking applies regardless. */
  redactor?: Redactor | undefined;
}

/**
 * The base class of every error this SDK throws. Its message is always redacted.
 * @example
 * try { await lh.space(spaceId).run(runId, { holder: 'worker-1' }).claim('reports/2026-11').acquire(); } catch (e) { if (e instanceof LeaseholdError) console.error(e.name, e.message); }
 */
export class LeaseholdError extends Error {
  override name: string = 'LeaseholdError';

  constructor(message: string, options: LeaseholdErrorOptions = {}) {
    const safe = options.redactor ? options.redactor.redact(message) : redact(message);
    super(safe, options.cause === undefined ? undefined : { cause: options.cause });
  }
}
