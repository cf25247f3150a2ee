import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MaybePromise } from '../../store/operations.js';
import type { PlainRequest, PlainResponse } from '../../http/plain.js';
import { answerClientError } from './client-error.js';
import { DEFAULT_GRACE_MS, ListenerDrain, type ClosedListener } from './drain.js';
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
   * Starts draining (SIGTERM): every answer from now on, in flight or not, carries
   * `Connection: close`; idle keep-alive connections close now, every other one after its answer.
   * The listener keeps accepting until `close`.
   */
  drain(): void;
  /**
   * Drains, stops accepting, answers a request that still arrives on an open connection with 503
   * (`Retry-After`, nothing runs), lets the requests in flight finish for `graceMs` (default
   * 20 s), cuts every connection still open then, and resolves when every connection is closed:
   * always, within the grace period.
   */
  close(options?: { graceMs?: number }): Promise<ClosedListener>;
}

export type { ClosedListener } from './drain.js';

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
    if (drain.admit(request, response)) return;
    (request as PlainIncomingMessage).serve(answer, response);
  });
  const drain = new ListenerDrain(server);
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
    drain: () => drain.drain(),
    close: (closeOptions = {}) => drain.close(closeOptions.graceMs ?? DEFAULT_GRACE_MS),
  };
}
