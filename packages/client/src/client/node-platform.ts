import type { Dispatcher } from 'undici';
import { FetchTransport } from '../core/transport/fetch-transport.js';
import { UndiciTransport } from '../core/transport/undici-transport.js';
import type { Platform } from './platform.js';

/** Node: `fetch` when given, else undici (the caller's dispatcher, or a keep-alive Agent the client owns). */
export const nodePlatform: Platform = {
  transport: (options) =>
    options.fetch ? new FetchTransport({ fetch: options.fetch }) : new UndiciTransport({ dispatcher: options.dispatcher as Dispatcher | undefined }),
};
