import { createRequire } from 'node:module';
import type { DestinationStream, Level, Logger } from 'pino';
import type { StoredAnswer } from '../../http/answer.js';
import type { RequestContext } from '../../http/context.js';
import type { RequestObserver } from '../../http/observer.js';
import { TurnBatch } from '../turn-batch.js';

/**
 * pino, through Node's CommonJS loader (it is CommonJS): an ESM `import` of it first scans its
 * source for export names, ~5 ms more of every cold start (docs/storage.md, "Speed: start-up").
 */
const { pino } = createRequire(import.meta.url)('pino') as typeof import('pino');

/** How the request log is written. */
export interface RequestLogOptions {
  /** pino's level (`info` logs every request; `error` only 5xx answers; `silent` nothing). Default `info`. */
  level?: Level | 'silent';
  /**
   * Where lines go. Default: stdout through pino's destination (sonic-boom, synchronous, as
   * pino's own default), with the lines of one event-loop turn written together: a busy server
   * makes one write per few dozen lines instead of one per line, a quiet one's line goes out at
   * once (by the next event-loop turn), and what waits is written at exit.
   */
  destination?: DestinationStream;
}

/** A pino logger and the pipeline observer that writes one line per answered request. */
export interface RequestLog {
  /** The logger (the CLI also logs its start and shutdown through it). */
  readonly logger: Logger;
  /** The observer to give the server (`undefined` when the level logs no request). */
  readonly observer: RequestObserver | undefined;
  /** Writes out what is buffered now (the default stdout destination also does at exit). */
  flush(): void;
}

/**
 * Stdout through sonic-boom, one write per event-loop turn with that turn's lines. What waits
 * is written when the process exits, however it ends while it can still run code (`process.exit`,
 * an uncaught error).
 */
function stdoutByTurn(): { destination: DestinationStream; flush(): void } {
  const stdout = pino.destination({ dest: 1, sync: true });
  const turns = new TurnBatch<string>((lines) => stdout.write(lines.join('')));
  const flush = () => {
    turns.flush();
    stdout.flushSync();
  };
  process.once('exit', flush);
  return { destination: { write: (line) => turns.add(line) }, flush };
}

/** A given destination, flushed with its `flushSync` when it has one. */
function flushable(destination: DestinationStream): { destination: DestinationStream; flush(): void } {
  const sync = destination as { flushSync?: () => void };
  return {
    destination,
    flush: () => {
      try {
        sync.flushSync?.();
      } catch {
        // not ready yet (nothing written): nothing to flush
      }
    },
  };
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
  const { destination, flush } = options.destination === undefined ? stdoutByTurn() : flushable(options.destination);
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
    flush,
  };
}
