import type { Dispatcher } from 'undici';

type Handler = Dispatcher.DispatchHandler;
type Controller = Dispatcher.DispatchController;
type Headers = Parameters<NonNullable<Handler['onResponseStart']>>[2];

const CONTROLLER_CALLBACKS = ['onRequestStart', 'onResponseStart', 'onResponseData', 'onResponseEnd', 'onResponseError'] as const;

/** True when a handler speaks undici 7's controller API (`onRequestStart`, `onResponse*`). */
export function isControllerHandler(handler: Handler): boolean {
  return CONTROLLER_CALLBACKS.some((name) => typeof handler[name] === 'function');
}

/**
 * Lets a handler written for the older callbacks (`onConnect`, `onHeaders`, `onData`,
 * `onComplete`, `onError`) — which `undici.request` and `fetch` still pass — be driven through
 * the controller API. Returning `false` from `onHeaders`/`onData` pauses; `resume` resumes.
 */
export function controllerHandlerOf(handler: Handler): Handler {
  if (isControllerHandler(handler)) return handler;
  return {
    onRequestStart(controller: Controller) {
      handler.onConnect?.((reason?: Error) => controller.abort(reason ?? new Error('Request aborted')));
    },
    onResponseStart(controller: Controller, statusCode: number, headers: Headers, statusMessage?: string) {
      handler.onResponseStarted?.();
      const resume = () => controller.resume();
      if (handler.onHeaders?.(statusCode, rawHeadersOf(headers), resume, statusMessage ?? '') === false) controller.pause();
    },
    onResponseData(controller: Controller, chunk: Buffer) {
      if (handler.onData?.(chunk) === false) controller.pause();
    },
    onResponseEnd() {
      handler.onComplete?.([]);
    },
    onResponseError(_controller: Controller, error: Error) {
      if (!handler.onError) throw error;
      handler.onError(error);
    },
  };
}

/** `{ name: value }` → `[name, value, ...]` as Buffers, the shape the older callbacks take. */
function rawHeadersOf(headers: Headers): Buffer[] {
  const raw: Buffer[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) raw.push(Buffer.from(name, 'latin1'), Buffer.from(one, 'latin1'));
  }
  return raw;
}
