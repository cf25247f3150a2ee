import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { REPO_ROOT } from './child.js';

/**
 * Compiles `packages/client/src` the way its tsup build does (esbuild, ESM, node20, one bundle,
 * dependencies external, no `keepNames`) into `bench/.cache/`, so the benchmarks measure the
 * code as it ships. Running the source through tsx instead adds esbuild's `keepNames` wrappers,
 * which cost CPU per call and a property store per closure (about 0.5 KiB per held lease).
 * The file is per process and removed when the process exits.
 */
export async function buildClientBundle(): Promise<string> {
  const outfile = join(REPO_ROOT, 'bench/.cache', `client-${process.pid}.mjs`);
  await build({
    entryPoints: [join(REPO_ROOT, 'packages/client/src/index.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['undici'],
    logLevel: 'error',
  });
  process.once('exit', () => rmSync(outfile, { force: true }));
  return outfile;
}
