import { nodeBuiltin } from '../internal/node-builtins.js';

/**
 * Replaced with package.json's `version` by tsup's `define` when the package is built
 * (`packages/client/tsup.config.ts`), so the published bundle carries the version as a literal.
 */
declare const __LEASEHOLD_VERSION__: string | undefined;

/** Running from source (vitest, tsx): read it from package.json, two levels above this file (Node only). */
function versionFromPackageJson(): string {
  try {
    const fs = nodeBuiltin<{ readFileSync(path: URL, encoding: 'utf8'): string }>('node:fs');
    const pkg = JSON.parse(fs?.readFileSync(new URL('../../package.json', import.meta.url), 'utf8') ?? '{}') as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0-unknown';
  } catch {
    return '0.0.0-unknown';
  }
}

/** The published version of `@leasehold/client` (package.json's `version`; a test keeps them equal). */
export const VERSION: string = typeof __LEASEHOLD_VERSION__ === 'string' ? __LEASEHOLD_VERSION__ : versionFromPackageJson();
