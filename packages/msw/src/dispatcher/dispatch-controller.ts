import type { Dispatcher } from 'undici';

/**
 * The controller handed to a dispatch handler: `abort` ends the request with an error at once
 * (even while the server is still working, e.g. under injected latency), `pause`/`resume` hold
 * back the body and the end of the response.
 */
export class DispatchController implements Dispatcher.DispatchController {
  rawHeaders = null;
  rawTrailers = null;
  #aborted = false;
  #paused = false;
  #reason: Error | null = null;
  #wake: (() => void) | undefined;

  /** `onAbort` receives the reason of the first `abort` call. */
  constructor(private readonly onAbort: (reason: Error) => void) {}

  get aborted(): boolean {
    return this.#aborted;
  }

  get paused(): boolean {
    return this.#paused;
  }

  get reason(): Error | null {
    return this.#reason;
  }

  abort(reason: Error): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.onAbort(reason);
    this.#release();
  }

  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#release();
  }

  /** Resolves once the handler is not paused (or the request was aborted). */
  whenResumed(): Promise<void> {
    if (!this.#paused || this.#aborted) return Promise.resolve();
    return new Promise((resolve) => {
      this.#wake = resolve;
    });
  }

  #release(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/**
 * One request's exchange with its handler: the controller, and the guarantee that the handler
 * hears exactly one ending — `onResponseEnd` or `onResponseError` — and nothing after it.
 */
export class DispatchExchange {
  readonly controller: DispatchController;
  #settled = false;

  /** An exchange with `handler` (already speaking the controller API). */
  constructor(readonly handler: Dispatcher.DispatchHandler) {
    this.controller = new DispatchController((reason) => this.fail(reason));
  }

  /** True once the handler heard its ending; later work must stop. */
  get settled(): boolean {
    return this.#settled;
  }

  /** Ends the exchange with `error` (once). */
  fail(error: Error): void {
    if (this.#settled) return;
    this.#settled = true;
    try {
      this.handler.onResponseError?.(this.controller, error);
    } catch {
      // The handler has nowhere else to report; undici's own clients swallow here too.
    }
  }

  /** Ends the exchange successfully (once). */
  end(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.handler.onResponseEnd?.(this.controller, {});
  }
}
