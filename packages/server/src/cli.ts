#!/usr/bin/env node
import { main } from './adapters/cli/main.js';
import { redactText } from './store/redact.js';

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`leasehold-server: ${redactText(error instanceof Error ? error.message : String(error))}\n`);
  process.exit(1);
});
