import { AbortError } from '../core/errors/index.js';
import { uncapListeners } from '../internal/node-builtins.js';
import type { CallOptions } from '../resources/call-options.js';

/** How long one release may take while the client closes. */
const CLOSING_RELEASE_TIMEOUT_MS = 5_000;

/**
 * The client's closing, as its parts see it: a signal that aborts (reason: an `AbortError`)
 * when `close()` starts — pending acquires, grant flights and consumers listen to it — and the
 * call options a release then takes.
 */
export class Closing {
  readonly #controller = new AbortController();

  constructor() {
    // Every pending acquire, grant flight and consumer listens to this signal: no listener cap.
    uncapListeners(this.#controller.signal);
  }

  /** Aborted when the client starts closing. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Whether closing has started. */
  get closed(): boolean {
    return this.#controller.signal.aborted;
  }

  /** Call options of a release: normal while running; one attempt of at most 5 s while closing. */
  releaseOptions(): CallOptions {
    return this.closed ? { maxRetries: 0, timeoutMs: CLOSING_RELEASE_TIMEOUT_MS } : {};
  }

  /** Starts closing (idempotent). */
  begin(): void {
    if (!this.closed) this.#controller.abort(new AbortError('The Leasehold client was closed.'));
  }
}
