/**
 * The import rules of docs/architecture.md, enforced by `pnpm lint:deps` (part of `pnpm lint`).
 * Each rule names the rule of the architecture it enforces. Known violations that predate a rule
 * would live in .dependency-cruiser-known-violations.json (the client's redesign removed the
 * cycles that were there): new ones fail.
 * @type {import('dependency-cruiser').IConfiguration}
 */
const server = '^packages/server/src/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles anywhere (type-only imports count too: a cycle is a cycle in the design).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'protocol-is-runtime-agnostic',
      severity: 'error',
      comment: '@leasehold/protocol has no dependencies and no node: imports, and imports nothing outside itself.',
      from: { path: '^packages/protocol/src/', pathNot: '\\.test\\.ts$' },
      to: { pathNot: '^packages/protocol/src/' },
    },
    {
      name: 'engine-never-imports-http',
      severity: 'error',
      comment: 'The engine is pure state: it never imports http, the store layer, the controls or an adapter.',
      from: { path: `${server}engine/` },
      to: { path: `${server}(http|store|control|adapters)/|${server}leasehold-server` },
    },
    {
      name: 'http-never-imports-adapters',
      severity: 'error',
      comment: 'The HTTP layer works on plain values; adapters import it, never the reverse.',
      from: { path: `${server}http/`, pathNot: '\\.test\\.ts$' },
      to: { path: `${server}adapters/` },
    },
    {
      name: 'app-never-imports-adapters',
      severity: 'error',
      comment: 'The app (LeaseholdServer, its engine, HTTP layer, controls, store and metrics, the portable and browser entries) never imports an adapter (node:http, CLI, the turn batch); index.ts, the Node entry, composes them.',
      from: { path: `${server}(leasehold-server|portable|browser|engine/|http/|control/|store/|metrics/|generated/)`, pathNot: '\\.test\\.ts$' },
      to: { path: `${server}adapters/` },
    },
    {
      name: 'store-never-imports-http',
      severity: 'error',
      comment: 'The store layer (memory and SQL) knows nothing of HTTP, the controls or adapters.',
      from: { path: `${server}store/` },
      to: { path: `${server}(http|control|adapters)/|${server}leasehold-server` },
    },
    {
      name: 'control-never-imports-http',
      severity: 'error',
      comment: 'The levers throw domain errors only; the HTTP edge maps them.',
      from: { path: `${server}control/` },
      to: { path: `${server}(adapters)/|${server}http/(?!faults\\.ts$)` },
    },
    {
      name: 'no-foreign-internal',
      severity: 'error',
      comment: 'Nothing imports another package\'s internal/ folder.',
      from: { path: '^packages/([^/]+)/' },
      to: { path: '^packages/([^/]+)/src/internal/', pathNot: '^packages/$1/' },
    },
    {
      name: 'client-imports-no-other-package',
      severity: 'error',
      comment: 'The client depends on no other Leasehold package but the protocol.',
      from: { path: '^packages/client/src/' },
      to: { path: '^packages/(server|msw)/' },
    },
    {
      name: 'server-imports-no-mock-or-client',
      severity: 'error',
      comment: 'The server knows nothing of its mocks or of the client.',
      from: { path: '^packages/(server|protocol)/src/' },
      to: { path: '^packages/(msw|client)/' },
    },
    {
      name: 'msw-uses-the-server-surface',
      severity: 'error',
      comment: '@leasehold/msw bundles the portable reference server (packages/server/src/portable.ts: app, engine, memory store) and nothing else of the server: no SQL store, CLI, metrics or logs.',
      from: { path: '^packages/msw/src/' },
      to: { path: '^packages/server/src/', pathNot: '^packages/server/src/portable\\.ts$' },
    },
    // The client's layers (docs/architecture.md, "The client"): core < resources < leases < the
    // domains (spaces, tasks, spools) < client/ (the composition root) < the entry points.
    {
      name: 'client-core-never-imports-above',
      severity: 'error',
      comment: 'The client core (transport, request, retry, errors, idempotency) never imports the layers above it.',
      from: { path: '^packages/client/src/core/' },
      to: { path: '^packages/client/src/(resources|leases|spaces|tasks|spools|telemetry|client)/' },
    },
    {
      name: 'client-resources-never-import-leases-or-domains',
      severity: 'error',
      comment: 'resources/ are thin typed calls: they know nothing of leases, domains or the client.',
      from: { path: '^packages/client/src/resources/' },
      to: { path: '^packages/client/src/(leases|spaces|tasks|spools|telemetry|client)/' },
    },
    {
      name: 'client-leases-never-import-domains',
      severity: 'error',
      comment: 'leases/ (lease, adoption, scheduler) serves every domain and imports none of them.',
      from: { path: '^packages/client/src/leases/' },
      to: { path: '^packages/client/src/(spaces|tasks|spools|telemetry|client)/' },
    },
    {
      name: 'client-domains-are-independent',
      severity: 'error',
      comment: 'spaces/, tasks/ and spools/ never import one another (nor the composition root).',
      from: { path: '^packages/client/src/(spaces|tasks|spools)/' },
      to: { path: '^packages/client/src/(spaces|tasks|spools|client)/', pathNot: '^packages/client/src/$1/' },
    },
    {
      name: 'client-telemetry-is-an-adapter',
      severity: 'error',
      comment: 'telemetry/ implements the core and scheduler observer interfaces; nothing but the composition root imports it.',
      from: { path: '^packages/client/src/', pathNot: '^packages/client/src/(telemetry|client)/' },
      to: { path: '^packages/client/src/telemetry/' },
    },
    {
      name: 'client-browser-entry-is-browser-safe',
      severity: 'error',
      comment: 'Nothing the browser entry reaches imports undici, a node: module, the Node platform or the file store.',
      from: { path: '^packages/client/src/browser\\.ts$' },
      to: { path: '(^|/)node_modules/undici/|^node:|^(fs|path|crypto|events|module)$|^packages/client/src/(client/node-platform|client/leasehold\\.ts$|core/transport/undici-transport|core/transport/attempt-timer|core/idempotency/(file-idempotency-store|entry-file))', reachable: true },
    },
    {
      name: 'server-browser-entry-is-browser-safe',
      severity: 'error',
      comment: 'Nothing the server\'s browser entry reaches (engine, http, memory store, controls) imports a node: module, an adapter or a SQL store.',
      from: { path: `${server}browser\\.ts$` },
      to: { path: `^node:|^(fs|path|crypto|http|net|stream|child_process|util)$|(^|/)node_modules/(pg|@electric-sql|kysely)/|${server}(adapters|store/sql)/|${server}store/(index|open-store)\\.ts$`, reachable: true },
    },
    {
      name: 'engine-and-http-use-web-apis',
      severity: 'error',
      comment: 'The engine, the HTTP pipeline, the memory store and the controls use Web APIs only (Web Crypto, TextEncoder): no node: module.',
      from: { path: `${server}(engine|http|control|store/memory)/`, pathNot: '\\.test\\.ts$' },
      to: { path: '^node:|^(fs|path|crypto|http|net|stream|child_process|util)$' },
    },
    {
      name: 'msw-root-entry-is-browser-safe',
      severity: 'error',
      comment: '@leasehold/msw\'s root entry runs under setupWorker: none of its modules imports a node: module or undici (only ./dispatcher is Node-only; the portable server it bundles uses Web APIs only).',
      from: { path: '^packages/msw/src/(?!dispatcher)', pathNot: '\\.test\\.ts$|/test-kit\\.ts$' },
      to: { path: '^node:|^(fs|path|crypto|http|net|stream|child_process|util)$|(^|/)node_modules/undici/|^packages/msw/src/dispatcher' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|tmp)/|^bench/results/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'types', 'default'], extensions: ['.ts', '.js', '.mjs', '.d.ts'] },
    combinedDependencies: true,
    reporterOptions: { text: { highlightFocused: true } },
  },
};
