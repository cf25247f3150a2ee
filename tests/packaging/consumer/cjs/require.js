// Plain CommonJS JavaScript: require() each published entry point (Node ≥ 20.19 loads their ESM),
// then import() the client too — one module instance, so instanceof agrees across both.
const { Leasehold, NotFoundError, VERSION } = require('@leasehold/client');
const { createLeaseholdServer, listen } = require('@leasehold/server');
const { createLeaseholdHandlers } = require('@leasehold/msw');
const { LeaseholdDispatcher } = require('@leasehold/msw/dispatcher');

async function main() {
  const imported = await import('@leasehold/client');
  const server = createLeaseholdServer();
  const listener = await listen(server, { port: 0, host: '127.0.0.1' });
  const lh = new Leasehold({ baseUrl: listener.url, apiKey: 'lh_test_admin' });
  let caught;
  try {
    await lh.tasks.get(987654);
  } catch (error) {
    caught = error;
  }
  await lh.close();
  await listener.close();
  process.stdout.write(
    `${JSON.stringify({
      version: VERSION,
      sameModule: imported.Leasehold === Leasehold,
      instanceofRequired: caught instanceof NotFoundError,
      instanceofImported: caught instanceof imported.NotFoundError,
      handlers: typeof createLeaseholdHandlers,
      dispatcher: typeof LeaseholdDispatcher,
    })}\n`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
