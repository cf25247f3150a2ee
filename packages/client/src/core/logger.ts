import type { Redactor } from './redact.js';

/** The logging interface the SDK writes to (`console` fits; so do pino and winston adapters). */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** A logger level name. */
export type LogLevel = keyof Logger;

/**
 * The least level a logger is given (`logLevel`): `debug` shows every attempt, `info` (the
 * default) retries and lifecycle notes, `warn` what an operator must look at (give-ups, lost
 * leases, failing heartbeats), `error` only what broke, `off` nothing.
 */
export type LogThreshold = LogLevel | 'off';

const RANK: Readonly<Record<LogThreshold, number>> = { debug: 10, info: 20, warn: 30, error: 40, off: 100 };

/** Whether a line at `level` passes `threshold`. */
export function logsAt(level: LogLevel, threshold: LogThreshold): boolean {
  return RANK[level] >= RANK[threshold];
}

/** A logger that discards everything (the default). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

const skip = (): void => {};

/**
 * Wraps a logger so it only ever receives redacted messages and fields at `threshold` or above
 * (default: every level); a throwing logger is ignored rather than failing the request.
 * @example
 * const log = redactingLogger(console, redactor, 'info');
 */
export function redactingLogger(logger: Partial<Logger> | undefined, redactor: Redactor, threshold: LogThreshold = 'debug'): Logger {
  if (!logger || threshold === 'off') return silentLogger;
  const write = (level: LogLevel) => {
    if (!logsAt(level, threshold)) return skip;
    return (message: string, fields?: Record<string, unknown>): void => {
      const fn = logger[level];
      if (typeof fn !== 'function') return;
      try {
        const safeMessage = redactor.redact(message);
        if (fields === undefined) fn.call(logger, safeMessage);
        else fn.call(logger, safeMessage, redactor.redactValue(fields) as Record<string, unknown>);
      } catch {
        // Logging must never break a request.
      }
    };
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}
