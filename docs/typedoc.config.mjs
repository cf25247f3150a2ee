// TypeDoc configuration for the SDK reference (`pnpm docs:client` → docs/client/, not committed;
// the server's build copies it into packages/server/dist/docs/client/, which the reference server
// serves at /docs/client/). Paths are relative to this file. Documents the public surface of
// @leasehold/client (exactly what packages/client/src/index.ts exports) and of @leasehold/msw,
// grouped by purpose (docs/typedoc-groups.mjs), under the intro page docs/client-intro.md.
import { OptionDefaults } from 'typedoc';

/** @type {Partial<import('typedoc').TypeDocOptions>} */
export default {
  name: 'Leasehold SDK',
  entryPoints: ['../packages/client/src/index.ts', '../packages/msw/src/index.ts'],
  tsconfig: 'tsconfig.typedoc.json',
  out: 'client',
  readme: 'client-intro.md',
  plugin: ['./typedoc-groups.mjs'],
  groupOrder: ['Client', 'Handles and leases', 'Errors', 'Stores', 'Testing', '*'],
  navigation: { includeGroups: true },
  // The HTTP API reference beside it (the server serves this site at /docs/client/ and that one
  // at /docs; scripts/docs.mjs turns this placeholder URL into a relative link on every page).
  navigationLinks: { 'API reference (HTTP)': 'https://leasehold.invalid/api-reference' },
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
