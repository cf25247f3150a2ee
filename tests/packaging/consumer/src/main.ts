// Runs the worker three ways and prints one JSON line: against the `leasehold-server` CLI whose
// URL is argv[2] (the client's default undici transport), against an in-process
// `@leasehold/server` on a random port, and through `@leasehold/msw/dispatcher` with no socket.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createLeaseholdServer, listen, openapiDocument, type LeaseholdServer } from '@leasehold/server';
import { LeaseholdDispatcher } from '@leasehold/msw/dispatcher';
import { runWorker, type WorkerReport } from './worker.js';

const cliUrl = process.argv[2];
if (!cliUrl) throw new Error('usage: node main.js <leasehold-server URL>');

const viaCli: WorkerReport = await runWorker({ baseUrl: cliUrl });

const server: LeaseholdServer = createLeaseholdServer();
const listener = await listen(server, { port: 0, host: '127.0.0.1' });
let inProcess: WorkerReport;
try {
  inProcess = await runWorker({ baseUrl: listener.url });
} finally {
  await listener.close();
}

const dispatcher = new LeaseholdDispatcher({ baseUrl: 'https://leasehold.test/api' });
const viaDispatcher = await runWorker({ baseUrl: 'https://leasehold.test/api', dispatcher });
await dispatcher.close();

const require = createRequire(import.meta.url);
const clientManifest = JSON.parse(readFileSync(require.resolve('@leasehold/client/package.json'), 'utf8')) as { version: string };

process.stdout.write(
  `${JSON.stringify({
    clientVersion: clientManifest.version,
    openapi: (openapiDocument as { openapi?: unknown }).openapi,
    viaCli,
    inProcess,
    viaDispatcher,
  })}\n`,
);
