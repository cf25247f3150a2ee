import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the test server saw it (test helper, not shipped). */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** Answers one request; may leave it hanging by never calling `res.end`. */
export type Responder = (req: SeenRequest, res: ServerResponse) => unknown;

/** A `node:http` server on 127.0.0.1, port 0, answering with scripted responders (test helper). */
export interface TestHttpServer {
  url: string;
  seen: SeenRequest[];
  /** Resolves when the n-th request (1-based) has arrived. */
  arrived(n: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a server answering request i with `responders[i]` (the last one repeats). */
export async function startTestHttpServer(responders: Responder[]): Promise<TestHttpServer> {
  const seen: SeenRequest[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: SeenRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(request);
      for (const waiter of waiters.filter((w) => w.n <= seen.length)) waiter.resolve();
      const responder = responders[Math.min(seen.length - 1, responders.length - 1)];
      void Promise.resolve(responder?.(request, res)).catch((error: unknown) => {
        res.statusCode = 599;
        res.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    arrived: (n) => (seen.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A responder sending a JSON body with a status and extra headers. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Responder {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${status}`, ...headers });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };
}

/** A responder that never answers. */
export const hang: Responder = () => {};
