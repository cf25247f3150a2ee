import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The version of `@leasehold/server` this CLI runs: read from the package's `package.json`, the
 * nearest one above this file (`dist/` when installed, `src/adapters/cli/` in the repository).
 */
export function serverVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === '@leasehold/server' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // no package.json here: look higher
    }
    dir = dirname(dir);
  }
  return 'unknown';
}
