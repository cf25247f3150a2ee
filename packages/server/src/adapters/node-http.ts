import { answerClientError } from './client-error.js';
import { createServer, IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAX_BODY_BYTES, type PlainRequest, type PlainResponse } from '../http/plain.js';

/** Anything that answers plain requests: the reference server's pipeline. */
export interface PlainHandler {
  handlePlain(request: PlainRequest): Promise<PlainResponse>;
}

/** Answers a plain request, synchronously when it can (the pipeline's `respond`). */
export type PlainAnswer = (request: PlainRequest) => PlainResponse | Promise<PlainResponse>;

/** A running `node:http` listener. */
export interface NodeListener {
  /** `http://host:port`, with the real port when 0 was asked for. */
  url: string;
  port: number;
  server: Server;
  /** Stops accepting, ends idle keep-alive connections and resolves when closed. */
  close(): Promise<void>;
}

const INTERNAL_ERROR_BODY = JSON.stringify({
  type: 'api_error',
  code: 'internal_error',
  message: 'The server could not complete the request.',
});

/** The last resort when reading the request or answering it failed. */
function fail(response: ServerResponse): void {
  if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
  response.end(INTERNAL_ERROR_BODY);
}

function send(request: IncomingMessage, response: ServerResponse, plain: PlainResponse): void {
  if (plain.drop) {
    request.socket.destroy();
    return;
  }
  response.writeHead(plain.status, plain.headers);
  response.end(plain.body);
}

/**
 * Node's header object, as plain headers: only `set-cookie` is ever an array there (Node joins or
 * drops every other repeat), so it is copied only when that one is present.
 */
function plainHeaders(headers: IncomingMessage['headers']): Record<string, string | undefined> {
  if (headers['set-cookie'] === undefined) return headers as Record<string, string | undefined>;
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

/**
 * The request class of the server: it collects its own body and then answers, so a request
 * costs no promise and no per-request closures (the listeners are shared, `this` is the request).
 */
class PlainIncomingMessage extends IncomingMessage {
  #answer: PlainAnswer | undefined = undefined;
  #response: ServerResponse | undefined = undefined;
  /** The first body chunk, and any further ones (most bodies arrive in one). */
  #first: Buffer | undefined = undefined;
  #more: Buffer[] | undefined = undefined;
  #size = 0;
  #tooLarge = false;

  /** Reads the body (up to `MAX_BODY_BYTES`), then answers through `answer`. */
  serve(answer: PlainAnswer, response: ServerResponse): void {
    this.#answer = answer;
    this.#response = response;
    this.on('data', PlainIncomingMessage.#onData);
    this.on('end', PlainIncomingMessage.#onEnd);
    this.on('error', PlainIncomingMessage.#onError);
  }

  static #onData(this: PlainIncomingMessage, chunk: Buffer): void {
    this.#size += chunk.length;
    if (this.#size > MAX_BODY_BYTES) this.#tooLarge = true;
    else if (this.#first === undefined) this.#first = chunk;
    else (this.#more ??= []).push(chunk);
  }

  static #onError(this: PlainIncomingMessage): void {
    const response = this.#response;
    if (response === undefined) return; // already answered (or failed)
    this.#response = undefined;
    fail(response);
  }

  static #onEnd(this: PlainIncomingMessage): void {
    const response = this.#response;
    if (response === undefined) return; // the request failed before it ended
    this.#response = undefined;
    const request = this;
    try {
      const plain = (this.#answer as PlainAnswer)(this.#plain());
      if (plain instanceof Promise) {
        plain.then((settled) => send(request, response, settled)).catch(() => fail(response));
      } else {
        send(request, response, plain);
      }
    } catch {
      fail(response);
    }
  }

  #plain(): PlainRequest {
    const first = this.#first;
    const body =
      this.#size === 0 || this.#tooLarge ? undefined
      : this.#more === undefined ? first
      : Buffer.concat([first as Buffer, ...this.#more]);
    return {
      method: (this.method ?? 'GET').toUpperCase(),
      url: this.url ?? '/',
      headers: plainHeaders(this.headers),
      body,
      bodyTooLarge: this.#tooLarge,
    };
  }
}

/** Serves `handler` over `node:http` on `host:port` (port 0 picks a free one). */
export function listen(handler: PlainHandler, options: { port?: number; host?: string } = {}): Promise<NodeListener> {
  return listenWith((request) => handler.handlePlain(request), options);
}

/** Serves `answer` over `node:http` on `host:port`; `listen` for an answer that may be synchronous. */
export async function listenWith(answer: PlainAnswer, options: { port?: number; host?: string } = {}): Promise<NodeListener> {
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
