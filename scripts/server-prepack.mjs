#!/usr/bin/env node
// `prepack` of @leasehold/server (runs on `pnpm pack` and `pnpm publish`, in packages/server):
// puts the offline API reference into the package as dist/docs/index.html, which the
// `leasehold-server` CLI serves at /docs, and checks the SDK reference (dist/docs/client/, served at
// /docs/client/) is there. `scripts/docs.mjs --api` builds docs/api/index.html and
// copies it there whenever packages/server/dist exists; this script only insists that the build
// ran first and that the copy really landed, so a tarball never ships without it.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'packages/server/dist');
const page = join(dist, 'docs/index.html');

function fail(message) {
  console.error(`server-prepack: ${message}`);
  process.exit(1);
}

for (const file of ['index.js', 'index.d.ts', 'cli.js']) {
  if (!existsSync(join(dist, file))) fail(`packages/server/dist/${file} is missing — run \`pnpm build\` before packing`);
}
try {
  execFileSync(process.execPath, [join(root, 'scripts/docs.mjs'), '--api'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
} catch (error) {
  fail(`building the API reference failed (${error.status !== null && error.status !== undefined ? `exit ${error.status}` : error.message})`);
}
if (!existsSync(page) || !readFileSync(page, 'utf8').includes('<div id="redoc">')) {
  fail('scripts/docs.mjs --api did not leave a Redoc page at packages/server/dist/docs/index.html');
}
// The SDK reference (TypeDoc), which the server's build (`tsup && scripts/docs.mjs --client`) copies in.
if (!existsSync(join(dist, 'docs/client/index.html'))) {
  fail('packages/server/dist/docs/client/index.html is missing — run `pnpm build` (the server build writes the SDK reference) before packing');
}
