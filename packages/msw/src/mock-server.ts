import { createLeaseholdServer, type LeaseholdServer, type LeaseholdServerOptions } from '@leasehold/server/portable';

/**
 * Options of a reference server built for a mock. Same as the server's own options, except
 * that the clock defaults to `'manual'` (time moves only when a test says so) and there is no
 * `basePath`: the mock strips the base URL's path before the server sees a request, so the
 * server answers at its root mount (it keeps the default mounts, `/` and `/api`).
 */
export interface LeaseholdMockServerOptions extends Omit<LeaseholdServerOptions, 'basePath' | 'clock'> {
  /** `'manual'` (default): moves only through `advanceClock`; `'real'`: `Date.now()`; or any `Clock`. */
  clock?: LeaseholdServerOptions['clock'];
}

/**
 * Builds a reference server for mocks: manual clock unless told otherwise, API at its root.
 * Share one between MSW handlers and a `LeaseholdDispatcher` to give both transports one state.
 * @example
 * const server = createLeaseholdMockServer();
 * const { handlers } = createLeaseholdHandlers({ baseUrl: 'https://api.test', server });
 * const dispatcher = new LeaseholdDispatcher({ baseUrl: 'https://api.test', server });
 * @see https://mswjs.io/docs/api/setup-server
 */
export function createLeaseholdMockServer(options: LeaseholdMockServerOptions = {}): LeaseholdServer {
  return createLeaseholdServer({ ...options, clock: options.clock ?? 'manual' });
}

/** A server to use, or the options of a new one. */
export type ServerOrOptions = LeaseholdServer | LeaseholdMockServerOptions;

/** The given server, or a new mock server built from the given options. */
export function resolveServer(server: ServerOrOptions | undefined): LeaseholdServer {
  if (isServer(server)) return server;
  return createLeaseholdMockServer(server);
}

function isServer(value: ServerOrOptions | undefined): value is LeaseholdServer {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<LeaseholdServer>).handle === 'function' &&
    typeof (value as Partial<LeaseholdServer>).handlePlain === 'function'
  );
}
