import { STATUS_CODES } from 'node:http';
import { adapterErrorAnswer } from './adapter-envelope.js';
import type { Duplex } from 'node:stream';

/**
 * Answers a request that `node:http`'s parser refused (headers over 16 KiB, a bad request line,
 * a bad header or chunk) with the canonical envelope instead of Node's bare status line, then
 * closes the connection: the parser's state is unknown, so it cannot be reused.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const { requestId, body } = tooLarge
    ? adapterErrorAnswer(status, 'headers_too_large', 'The request headers exceed 16 KiB.')
    : adapterErrorAnswer(status, 'invalid_request', 'The request is not valid HTTP/1.1.');
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `Request-Id: ${requestId}\r\n` +
      `Date: ${new Date().toUTCString()}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
