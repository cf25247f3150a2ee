// TypeDoc configuration for the SDK reference (`pnpm docs:client` → docs/client/, not committed).
// Paths are relative to this file. Documents the public surface of @leasehold/client: exactly
// what packages/client/src/index.ts exports.
import { OptionDefaults } from 'typedoc';

/** @type {Partial<import('typedoc').TypeDocOptions>} */
export default {
  name: '@leasehold/client',
  entryPoints: ['../packages/client/src/index.ts'],
  tsconfig: '../packages/client/tsconfig.json',
  out: 'client',
  readme: 'none',
  excludePrivate: true,
  excludeInternal: true,
  excludeExternals: true,
  // No links into a git host: the output is a local, offline reference.
  disableSources: true,
  githubPages: false,
  hideGenerator: true,
  cleanOutputDir: true,
  // The generated wire types (openapi-typescript) carry these JSDoc tags from the spec.
  blockTags: [...OptionDefaults.blockTags, '@description', '@constant', '@enum'],
  validation: {
    notExported: true,
    invalidLink: true,
    invalidPath: true,
    rewrittenLink: true,
    notDocumented: false,
    unusedMergeModuleWith: true,
  },
  // Warnings (a public type referring to an unexported one, a broken {@link}, an unknown tag) are
  // printed; `node scripts/docs.mjs --client --strict` makes any of them fail the build.
  treatWarningsAsErrors: false,
  logLevel: 'Warn',
};
