import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MaybePromise } from '../../store/operations.js';
import type { PlainRequest, PlainResponse } from '../../http/plain.js';
import { answerClientError } from './client-error.js';
import { PlainIncomingMessage, type PlainAnswer } from './incoming-message.js';

/**
 * What `listen` serves: an app answering plain requests — the reference server (its `respond`,
 * synchronous when it can), or any `{ handlePlain }` (e.g. a wrapper that observes exchanges).
 */
export type PlainApp =
  | { respond(request: PlainRequest): MaybePromise<PlainResponse> }
  | { handlePlain(request: PlainRequest): Promise<PlainResponse> };

/** A running `node:http` listener. */
export interface NodeListener {
  /** `http://host:port`, with the real port when 0 was asked for. */
  url: string;
  port: number;
  server: Server;
  /**
   * Stops accepting, ends idle keep-alive connections, lets the requests in flight finish (their
   * connections then close) and resolves when every connection is closed.
   */
  close(): Promise<void>;
}

/**
 * Serves an app over `node:http` on `host:port` (port 0 picks a free one; default 127.0.0.1:4010):
 * the one way to listen. The app never imports this adapter.
 * @example
 * const listener = await listen(createLeaseholdServer(), { port: 0 });
 * await listener.close();
 */
export async function listen(app: PlainApp, options: { port?: number; host?: string } = {}): Promise<NodeListener> {
  const answer: PlainAnswer = 'respond' in app ? (request) => app.respond(request) : (request) => app.handlePlain(request);
  const host = options.host ?? '127.0.0.1';
  const server = createServer({ IncomingMessage: PlainIncomingMessage }, (request, response) => {
    (request as PlainIncomingMessage).serve(answer, response);
  });
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 4010, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }),
  };
}
