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

/** A logger that discards everything (the default). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Wraps a logger so it only ever receives redacted messages and fields; a throwing logger is
 * ignored rather than failing the request.
 * @example
 * const log = redactingLogger(console, redactor);
 */
export function redactingLogger(logger: Partial<Logger> | undefined, redactor: Redactor): Logger {
  if (!logger) return silentLogger;
  const write = (level: LogLevel) => (message: string, fields?: Record<string, unknown>): void => {
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
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}
