/**
 * The throughput ceiling: a bare `node:http` server that reads and parses the JSON body like the
 * reference server does, then answers a fixed claim-shaped body (the size of a renew answer).
 * Prints `ceiling listening on http://127.0.0.1:PORT`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const BODY = JSON.stringify({
  object: 'claim',
  claimId: 'clm_Bj7q8ak0xeFFxyaT',
  spaceId: '6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a',
  key: 'renew-target',
  scopeId: '0b7e4c6a-1f2d-4e3b-8a9c-5d6e7f8a9b0c',
  holder: 'bench',
  holderSession: 'bench-session',
  status: 'held',
  fence: 1,
  leaseSeconds: 600,
  expiresAt: 1795968850761,
  acquiredAt: 1795968250656,
  queueDepth: 0,
  details: null,
  previousRelease: null,
});

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    let status = 200;
    try {
      const text = Buffer.concat(chunks).toString('utf8');
      if (text !== '') JSON.parse(text);
    } catch {
      status = 400;
    }
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    response.end(BODY);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  process.stdout.write(`ceiling listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
