import { InvalidArgumentError } from '../core/errors/invalid-argument-error.js';
import { FetchTransport } from '../core/transport/fetch-transport.js';
import type { Platform } from './platform.js';

/** The browser (and any fetch-only runtime): `fetch` — the one given, else `globalThis.fetch`; no undici. */
export const browserPlatform: Platform = {
  transport: (options) => {
    if (options.dispatcher !== undefined) {
      throw new InvalidArgumentError('dispatcher', 'Leasehold: the browser build sends with fetch only; an undici dispatcher needs the Node entry of @leasehold/client.');
    }
    return new FetchTransport({ fetch: options.fetch });
  },
};
