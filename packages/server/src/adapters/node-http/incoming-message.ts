import { IncomingMessage, type ServerResponse } from 'node:http';
import type { MaybePromise } from '../../store/operations.js';
import { MAX_BODY_BYTES, type PlainRequest, type PlainResponse } from '../../http/plain.js';
import { adapterErrorAnswer } from './adapter-envelope.js';
import { TurnBatch } from '../turn-batch.js';

/** Answers a plain request, synchronously when it can (the app's `respond`). */
export type PlainAnswer = (request: PlainRequest) => MaybePromise<PlainResponse>;

/** The last resort when reading the request or answering it failed: the canonical 500 envelope. */
function fail(response: ServerResponse): void {
  const { requestId, body } = adapterErrorAnswer(500, 'internal_error', 'The server could not complete the request.');
  if (!response.headersSent) {
    response.writeHead(500, { 'content-type': 'application/json; charset=utf-8', 'Request-Id': requestId, Date: new Date().toUTCString() });
  }
  response.end(body);
}

/** An answer ready to write, with the exchange it belongs to. */
interface Answered {
  request: PlainIncomingMessage;
  response: ServerResponse;
  plain: PlainResponse;
}

/** A request whose body is whole, and where its answer goes. */
interface Arrived {
  request: PlainIncomingMessage;
  response: ServerResponse;
}

/**
 * Answers that settled later (a SQL store's, an injected latency's) go out in a batch of their
 * turn; `arrived` writes the others itself.
 */
const answers = new TurnBatch<Answered>((batch) => {
  for (const answered of batch) send(answered.request, answered.response, answered.plain);
});

/**
 * The requests of one event-loop turn are answered together, in the order they arrived: first
 * the app runs on each of them, back to back, then the answers it gave at once are written, back
 * to back. Under load that keeps the server's code and the socket writes each in a run of their
 * own instead of alternating them per request (see `TurnBatch`).
 */
const arrived = new TurnBatch<Arrived>((batch) => {
  const ready: Answered[] = [];
  for (const { request, response } of batch) {
    try {
      const plain = request.answer();
      if (plain instanceof Promise) plain.then((settled) => answers.add({ request, response, plain: settled }), () => failSafely(request, response));
      else ready.push({ request, response, plain });
    } catch {
      failSafely(request, response);
    }
  }
  for (const answered of ready) send(answered.request, answered.response, answered.plain);
});

/** Writes an answer; when writing it fails, the canonical 500 instead (or, past its headers, a cut connection). */
function send(request: IncomingMessage, response: ServerResponse, plain: PlainResponse): void {
  try {
    write(request, response, plain);
  } catch {
    failSafely(request, response);
  }
}

/** The canonical 500, or a cut connection when even that cannot be written; never throws (a batch goes on). */
function failSafely(request: IncomingMessage, response: ServerResponse): void {
  try {
    fail(response);
  } catch {
    request.socket.destroy();
  }
}

/**
 * Writes the answer with its `Content-Length` (the body is whole already), so Node sends one
 * fixed-length message instead of chunked encoding (no chunk framing, no terminating chunk).
 * A HEAD answer keeps no length (its body was dropped, the length would be the GET's).
 */
function write(request: IncomingMessage, response: ServerResponse, plain: PlainResponse): void {
  if (plain.drop) {
    request.socket.destroy();
    return;
  }
  const body = plain.body;
  const headers = plain.headers;
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  else if (request.method !== 'HEAD' && plain.status !== 204 && plain.status !== 304) headers['content-length'] = '0';
  response.writeHead(plain.status, headers);
  response.end(body);
}

/**
 * The request's headers as plain headers: every repeated header joined with `, `, as Fetch's
 * `Headers` (MSW) and the undici dispatcher give them, so the pipeline sees one request the same
 * way on every transport. Node's own header object keeps only the first of a repeated
 * `Authorization` or `Content-Type` (and a few others), so when a request repeats any header
 * (more raw lines than names) the headers are rebuilt from `headersDistinct`.
 */
function plainHeaders(message: IncomingMessage): Record<string, string | undefined> {
  const headers = message.headers;
  if (message.rawHeaders.length === 2 * Object.keys(headers).length) return headers as Record<string, string | undefined>;
  const out: Record<string, string | undefined> = {};
  for (const [name, values] of Object.entries(message.headersDistinct)) if (values !== undefined) out[name] = values.join(', ');
  return out;
}

/** A `Host` header worth echoing (a name or address, an optional port); anything else is ignored. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/** The origin the request reached: `http://` + its `Host`, else the socket's local address. */
function originOf(message: IncomingMessage): string {
  const host = message.headers.host;
  if (host !== undefined && HOST.test(host)) return `http://${host}`;
  const address = message.socket.localAddress ?? '127.0.0.1';
  const shown = address.includes(':') ? `[${address}]` : address;
  return `http://${shown}:${message.socket.localPort ?? 80}`;
}

/**
 * The request class of the server: it collects its own body and then answers, so a request
 * costs no promise and no per-request closures (the listeners are shared, `this` is the request).
 */
export class PlainIncomingMessage extends IncomingMessage {
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
    failSafely(this, response);
  }

  static #onEnd(this: PlainIncomingMessage): void {
    const response = this.#response;
    if (response === undefined) return; // the request failed before it ended
    this.#response = undefined;
    arrived.add({ request: this, response });
  }

  /** Runs the app on this request (once its body is whole). */
  answer(): MaybePromise<PlainResponse> {
    return (this.#answer as PlainAnswer)(this.#plain());
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
      headers: plainHeaders(this),
      body,
      bodyTooLarge: this.#tooLarge,
      baseUrl: originOf(this),
    };
  }
}

