// A TypeScript project compiled as CommonJS (`module: nodenext`, package type commonjs): its
// imports become require() calls of the ESM-only packages, which Node ≥ 20.19 and TypeScript ≥ 5.8
// under nodenext accept.
import { Leasehold, NotFoundError, VERSION, type LeaseholdOptions } from '@leasehold/client';
import { createLeaseholdServer, listen } from '@leasehold/server';
import { LeaseholdDispatcher } from '@leasehold/msw/dispatcher';

async function main(): Promise<void> {
  const server = createLeaseholdServer();
  const listener = await listen(server, { port: 0, host: '127.0.0.1' });
  const options: LeaseholdOptions = { baseUrl: listener.url, apiKey: 'lh_test_admin' };
  const lh = new Leasehold(options);
  const lease = await lh.space('6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a').run('0b7e4c6a-1f2d-4e3b-8a9c-5d6e7f8a9b0c', { holder: 'cjs' }).claim('k').run((held) => held.fence);
  let notFound = false;
  try {
    await lh.tasks.get(987654);
  } catch (error) {
    notFound = error instanceof NotFoundError;
  }
  await lh.close();
  await listener.close();
  process.stdout.write(`${JSON.stringify({ version: VERSION, fence: lease, notFound, dispatcher: typeof LeaseholdDispatcher })}\n`);
}

void main();
