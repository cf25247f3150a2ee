import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { adapterErrorAnswer } from './adapter-envelope.js';

/** How long `close()` lets the requests in flight finish before it cuts their connections, by default (ms). */
export const DEFAULT_GRACE_MS = 20_000;

/** What closing a listener did. */
export interface ClosedListener {
  /** Connections still open when the grace period ended, cut without an answer. */
  readonly cut: number;
}

/**
 * A listener's graceful shutdown, in two stages (docs/operating.md, "Graceful shutdown"):
 * `drain()` — every answer from now on says `Connection: close` (the ones in flight too), idle
 * keep-alive connections are closed now, and every other one closes after its answer; then
 * `close(graceMs)` — stop accepting, refuse a request that still arrives on an open connection
 * (503 with `Retry-After`, nothing runs), let the ones in flight answer, and cut whatever is
 * still open when `graceMs` ends. Nothing is left open: `close` always resolves.
 */
export class ListenerDrain {
  /** Answers not yet written (their request arrived, the app may be running). */
  readonly #pending = new Set<ServerResponse>();
  readonly #sockets = new Set<Socket>();
  #draining = false;
  #closing = false;
  #closed: Promise<ClosedListener> | undefined;

  /** Watches `server`'s connections. */
  constructor(private readonly server: Server) {
    server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
  }

  /**
   * Called for every request before the app sees it: answers `true` when it was refused (the
   * listener is closing: a 503, the connection then closes), else tracks its answer.
   */
  admit(_request: IncomingMessage, response: ServerResponse): boolean {
    if (this.#closing) {
      refuse(response);
      return true;
    }
    if (this.#draining) response.shouldKeepAlive = false;
    this.#pending.add(response);
    response.once('close', () => this.#pending.delete(response));
    return false;
  }

  /** True once `drain()` (or `close()`) began. */
  get draining(): boolean {
    return this.#draining;
  }

  /** Stage one: `Connection: close` on every answer from now on, idle connections closed now. */
  drain(): void {
    if (this.#draining) return;
    this.#draining = true;
    // Node writes `Connection: close` and ends the socket after the answer when this is false.
    for (const response of this.#pending) if (!response.headersSent) response.shouldKeepAlive = false;
    this.server.closeIdleConnections();
  }

  /** Stage two: stop accepting, let what is in flight answer for `graceMs`, then cut what remains. */
  close(graceMs: number = DEFAULT_GRACE_MS): Promise<ClosedListener> {
    this.#closed ??= new Promise<ClosedListener>((resolve) => {
      this.drain();
      this.#closing = true;
      let cut = 0;
      const timer = setTimeout(() => {
        cut = this.#sockets.size;
        for (const socket of this.#sockets) socket.destroy();
        this.server.closeAllConnections();
      }, graceMs);
      // `server.close` resolves once every connection is closed; an error only says it was not listening.
      this.server.close(() => {
        clearTimeout(timer);
        resolve({ cut });
      });
      this.server.closeIdleConnections();
    });
    return this.#closed;
  }
}

/** The answer to a request that arrived after the listener began closing: 503, retry elsewhere. */
function refuse(response: ServerResponse): void {
  const { requestId, body } = adapterErrorAnswer(503, 'service_unavailable', 'The server is shutting down; retry the request on a new connection.');
  response.shouldKeepAlive = false;
  response.writeHead(503, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'retry-after': '1',
    'Request-Id': requestId,
    Date: new Date().toUTCString(),
  });
  response.end(body);
}
