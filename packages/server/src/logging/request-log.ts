import { pino, type DestinationStream, type Level, type Logger } from 'pino';
import type { StoredAnswer } from '../http/answer.js';
import type { RequestContext } from '../http/context.js';
import type { RequestObserver } from '../http/observer.js';

/** Lines wait in the buffer until this many bytes are ready to write at once … */
const LOG_BUFFER_BYTES = 4096;
/** … or this long has passed (a quiet server's lines are written within this time). */
const LOG_FLUSH_MS = 250;

/** How the request log is written. */
export interface RequestLogOptions {
  /** pino's level (`info` logs every request; `error` only 5xx answers; `silent` nothing). Default `info`. */
  level?: Level | 'silent';
  /**
   * Where lines go. Default: stdout through pino's destination, buffered — written once 4 KiB
   * are waiting, and at least every 250 ms — so a busy server makes one write per few dozen
   * lines instead of one per line; call `flush()` before exit.
   */
  destination?: DestinationStream;
}

/** A pino logger and the pipeline observer that writes one line per answered request. */
export interface RequestLog {
  /** The logger (the CLI also logs its start and shutdown through it). */
  readonly logger: Logger;
  /** The observer to give the server (`undefined` when the level logs no request). */
  readonly observer: RequestObserver | undefined;
  /** Writes out what is buffered (before exit). */
  flush(): void;
}

/**
 * The structured request log: one JSON line per answered request — `requestId`, `operationId`
 * (or the static path, or `unrouted`), `method`, `status` (0: dropped by an injected fault),
 * `durationMs`, the caller's `credentialId` and `accountId` — at `info` (5xx at `error`). It
 * never logs headers, bodies or query strings, so no API key, lease token or Authorization
 * header reaches a log. Built on pino, with no serializers on the hot path.
 * @example
 * const log = createRequestLog({ level: 'info' });
 * const server = createLeaseholdServer({ store, observer: log.observer });
 */
export function createRequestLog(options: RequestLogOptions = {}): RequestLog {
  const destination = options.destination ?? pino.destination({ dest: 1, sync: true, minLength: LOG_BUFFER_BYTES, periodicFlush: LOG_FLUSH_MS });
  const logger = pino({ level: options.level ?? 'info', base: { service: 'leasehold-server' } }, destination);
  const infoEnabled = logger.isLevelEnabled('info');
  const errorEnabled = logger.isLevelEnabled('error');
  const observer: RequestObserver | undefined = !errorEnabled ? undefined : {
    answered(ctx: RequestContext, answer: StoredAnswer, durationMs: number): void {
      const status = answer.status;
      if (status < 500 && !infoEnabled) return;
      const route = ctx.route;
      const line = {
        requestId: ctx.requestId,
        operationId: route !== undefined ? route.operationId : status === 404 || status === 405 ? 'unrouted' : (ctx.target.path ?? 'unrouted'),
        method: ctx.request.method,
        status,
        durationMs: Math.round(durationMs * 1000) / 1000,
        credentialId: ctx.credential?.credentialId,
        accountId: ctx.credential?.accountId,
        code: answer.error?.code,
      };
      if (status >= 500) logger.error(line, 'request');
      else logger.info(line, 'request');
    },
  };
  return {
    logger,
    observer,
    flush: () => {
      const flushable = destination as { flushSync?: () => void };
      try {
        flushable.flushSync?.();
      } catch {
        // not ready yet (nothing written): nothing to flush
      }
    },
  };
}
