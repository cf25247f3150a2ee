import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAX_BODY_BYTES, type PlainRequest, type PlainResponse } from '../http/plain.js';

/** Anything that answers plain requests: the reference server's pipeline. */
export interface PlainHandler {
  handlePlain(request: PlainRequest): Promise<PlainResponse>;
}

/** A running `node:http` listener. */
export interface NodeListener {
  /** `http://host:port`, with the real port when 0 was asked for. */
  url: string;
  port: number;
  server: Server;
  /** Stops accepting, ends idle keep-alive connections and resolves when closed. */
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<{ body: Uint8Array | undefined; tooLarge: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    request.on('end', () => resolve({ body: size === 0 || tooLarge ? undefined : Buffer.concat(chunks), tooLarge }));
    request.on('error', reject);
  });
}

async function serve(handler: PlainHandler, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const { body, tooLarge } = await readBody(request);
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const plain = await handler.handlePlain({
    method: (request.method ?? 'GET').toUpperCase(),
    url: request.url ?? '/',
    headers,
    body,
    bodyTooLarge: tooLarge,
  });
  if (plain.drop) {
    request.socket.destroy();
    return;
  }
  response.writeHead(plain.status, plain.headers);
  response.end(plain.body);
}

/** Serves `handler` over `node:http` on `host:port` (port 0 picks a free one). */
export async function listen(handler: PlainHandler, options: { port?: number; host?: string } = {}): Promise<NodeListener> {
  const host = options.host ?? '127.0.0.1';
  const server = createServer((request, response) => {
    serve(handler, request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ type: 'api_error', code: 'internal_error', message: 'The server could not complete the request.' }));
    });
  });
  server.keepAliveTimeout = 65_000;
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
