#!/usr/bin/env node
// `pnpm check:packages`: builds the three publishable packages, packs them with `pnpm pack` (as
// `pnpm publish` would) and checks the tarballs themselves:
//   - the manifest: no `workspace:`/`catalog:` range left, the runtime dependencies each package
//     needs and no others, exports/main/types/bin pointing at files that ship, license, engines,
//     description, keywords, sideEffects (no repository field until the project has a public remote);
//   - the files: only dist/, README.md, LICENSE and package.json; no tests, sources, source maps;
//     the server's offline API reference (dist/docs/index.html), its SDK reference (dist/docs/client/,
//     TypeDoc), its Python SDK reference (dist/docs/python/index.html) and its embedded OpenAPI document;
//   - every bare import in the shipped JS is a Node builtin or a declared dependency/peer (so
//     nothing is missing at runtime and no devDependency such as zod was bundled into the client);
//   - publint (strict: suggestions and warnings fail too) and @arethetypeswrong/cli
//     (`--profile node16`, CommonJS included, less its `cjs-resolves-to-esm` rule: the packages
//     are ESM only, one module instance, and Node ≥ 20.19 — their `engines` — loads them with
//     `require()`; tests/packaging's consumer test runs `require()` and TS nodenext CJS for real);
//   - @leasehold/msw, which bundles the server's portable part, on exactly the server's ranges of
//     that part's dependencies;
//   - the client's packed size against its budget (scripts/client-size.mjs).
// Usage: node scripts/check-packages.mjs [--skip-build] [--keep <dir>]
//   --skip-build  pack what dist/ holds (`pnpm check` builds just before)
//   --keep <dir>  pack into <dir> and leave the tarballs there (default: a temp dir, removed)
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join, posix, resolve } from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { PACKED_BUDGET_BYTES, measureTarball } from './client-size.mjs';
import { ROOT, packPackages } from './pack-packages.mjs';

/** What each package may depend on at runtime: exactly these, no more. */
const EXPECTED = {
  '@leasehold/client': { dependencies: ['undici'], peerDependencies: ['@opentelemetry/api'] },
  '@leasehold/server': { dependencies: ['@electric-sql/pglite', 'pg', 'pino', 'prom-client', 'sorted-btree'], peerDependencies: [], bin: { 'leasehold-server': 'dist/cli.js' } },
  // msw bundles the server's portable part (packages/server/src/portable.ts) with its zod and @noble/hashes;
  // sorted-btree stays a dependency (the declarations name its types).
  '@leasehold/msw': { dependencies: ['sorted-btree'], peerDependencies: ['msw', 'undici'] },
};
const DEPENDENCY_FIELDS = ['dependencies', 'peerDependencies', 'optionalDependencies', 'devDependencies'];
const UNRESOLVED_RANGE = /^(workspace|catalog|link|file|portal):/;
const ALLOWED_FILE = /^(package\.json|README\.md|LICENSE|dist\/[^/]+\.(js|d\.ts)|dist\/docs\/index\.html|dist\/docs\/client\/[\w./-]+\.(html|js|css|svg)|dist\/docs\/python\/index\.html)$/;

const args = process.argv.slice(2);
const skipBuild = args.includes('--skip-build');
const keepIndex = args.indexOf('--keep');
const keep = keepIndex >= 0 ? args[keepIndex + 1] : undefined;
if (args.some((arg, i) => !['--skip-build', '--keep'].includes(arg) && !(keepIndex >= 0 && i === keepIndex + 1)) || (keepIndex >= 0 && !keep)) {
  console.error('Usage: node scripts/check-packages.mjs [--skip-build] [--keep <dir>]');
  process.exit(2);
}

const failures = [];
const fail = (pkg, message) => failures.push(`${pkg}: ${message}`);
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
const started = performance.now();

/** Every string target of an exports map (conditions and subpaths, depth first). */
function exportTargets(value) {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap(exportTargets);
}

/** The specifiers a built ESM file imports: static imports, re-exports and literal dynamic imports. */
function importSpecifiers(source) {
  const found = new Set();
  for (const pattern of [/^\s*(?:import|export)\s[^;]*?\sfrom\s*["']([^"']+)["']/gm, /^\s*import\s*["']([^"']+)["']/gm, /\bimport\(\s*["']([^"']+)["']\s*\)/g]) {
    for (const match of source.matchAll(pattern)) found.add(match[1]);
  }
  return [...found];
}

const builtins = new Set(builtinModules);
const packageNameOf = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

/** msw bundles the server's portable part: it must run on the same dependency ranges the server declares. */
function checkBundledServerRanges(mswManifest, serverManifest) {
  for (const dep of EXPECTED['@leasehold/msw'].dependencies) {
    const want = serverManifest.dependencies?.[dep];
    const got = mswManifest.dependencies?.[dep];
    if (got !== want) fail('@leasehold/msw', `depends on ${dep} "${got}", the server on "${want}": the bundled portable server needs the server's own range`);
  }
}

function checkManifest(packed, manifest) {
  const name = packed.name;
  const expected = EXPECTED[name];
  for (const field of DEPENDENCY_FIELDS) {
    for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
      if (UNRESOLVED_RANGE.test(String(range))) fail(name, `${field}.${dep} is still "${range}" in the packed package.json`);
    }
  }
  for (const field of ['dependencies', 'peerDependencies']) {
    const actual = Object.keys(manifest[field] ?? {}).sort();
    const want = [...expected[field]].sort();
    if (actual.join() !== want.join()) fail(name, `${field} are [${actual.join(', ')}], expected [${want.join(', ')}]`);
  }
  if (manifest.type !== 'module') fail(name, 'is not "type": "module"');
  if (manifest.license !== 'MIT') fail(name, `license is ${manifest.license}, expected MIT`);
  if (!manifest.engines?.node) fail(name, 'has no engines.node');
  if (!manifest.description) fail(name, 'has no description');
  if (!Array.isArray(manifest.keywords) || manifest.keywords.length === 0) fail(name, 'has no keywords');
  if (manifest.sideEffects === undefined) fail(name, 'does not declare sideEffects');
  if (manifest.publishConfig?.access !== 'public') fail(name, 'publishConfig.access is not "public"');
  if (manifest.exports?.['.'] === undefined) fail(name, 'has no exports["."]');
  const targets = [...exportTargets(manifest.exports), manifest.main, manifest.types].filter(Boolean);
  for (const target of targets) {
    const path = posix.normalize(target);
    if (!packed.files.has(path)) fail(name, `${target} (exports/main/types) is not in the tarball`);
  }
  for (const [condition, target] of Object.entries(manifest.exports ?? {}).flatMap(([sub, value]) =>
    typeof value === 'object' && value !== null ? Object.entries(value).map(([c, t]) => [`${sub} ${c}`, t]) : [],
  )) {
    if (condition.endsWith(' require') || condition.endsWith(' import')) fail(name, `exports ${condition} → ${target}: the packages are ESM only, reached through "default" by import and require() alike (one module instance, so instanceof holds)`);
  }
  const bin = typeof manifest.bin === 'string' ? { [name]: manifest.bin } : (manifest.bin ?? {});
  const wantBin = expected.bin ?? {};
  if (JSON.stringify(Object.keys(bin).sort()) !== JSON.stringify(Object.keys(wantBin).sort())) fail(name, `bin is ${JSON.stringify(bin)}, expected ${JSON.stringify(wantBin)}`);
  for (const [command, target] of Object.entries(bin)) {
    const file = packed.files.get(posix.normalize(target));
    if (!file) {
      fail(name, `bin ${command} → ${target} is not in the tarball`);
      continue;
    }
    if (!file.data.toString('utf8', 0, 64).startsWith('#!/usr/bin/env node')) fail(name, `bin ${command} → ${target} has no #!/usr/bin/env node line`);
    if ((file.mode & 0o111) === 0) fail(name, `bin ${command} → ${target} is not executable in the tarball`);
  }
}

function checkFiles(packed, manifest) {
  const name = packed.name;
  for (const path of packed.files.keys()) {
    if (!ALLOWED_FILE.test(path)) fail(name, `ships ${path} (only dist/*.js, dist/*.d.ts, the server's dist/docs/index.html, dist/docs/client/ and dist/docs/python/index.html, README.md, LICENSE and package.json belong in it)`);
  }
  const readme = packed.files.get('README.md')?.data.toString('utf8');
  if (!readme) fail(name, 'ships no README.md');
  else {
    if (!readme.includes(`npm install ${name}`) && !readme.includes(`pnpm add ${name}`) && !readme.includes(`pnpm add -D ${name}`)) fail(name, 'README.md has no install command');
    if (!/```ts\n/.test(readme)) fail(name, 'README.md has no TypeScript example');
    if (/\]\((?!https?:|#)[^)]*\)/.test(readme)) fail(name, 'README.md has a relative link, which breaks on the npm page: use an absolute URL');
  }
  const license = packed.files.get('LICENSE')?.data.toString('utf8');
  if (!license?.startsWith('MIT License')) fail(name, 'ships no MIT LICENSE');

  const allowed = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
  for (const [path, file] of packed.files) {
    // The docs sites' scripts run in the browser that opens them, not in Node: no imports to check.
    if (!path.endsWith('.js') || path.startsWith('dist/docs/')) continue;
    for (const specifier of importSpecifiers(file.data.toString('utf8'))) {
      if (specifier.startsWith('.')) {
        const target = posix.normalize(posix.join(posix.dirname(path), specifier));
        if (!packed.files.has(target)) fail(name, `${path} imports ${specifier}, which is not in the tarball`);
      } else if (specifier.startsWith('node:')) {
        if (!builtins.has(specifier.slice(5))) fail(name, `${path} imports unknown builtin ${specifier}`);
      } else if (builtins.has(specifier)) {
        fail(name, `${path} imports the builtin "${specifier}" without the node: prefix`);
      } else if (!allowed.has(packageNameOf(specifier))) {
        fail(name, `${path} imports ${specifier}, which is neither a dependency nor a peer dependency`);
      }
    }
  }
}

function checkServerContents(packed) {
  const name = packed.name;
  const docs = packed.files.get('dist/docs/index.html')?.data.toString('utf8');
  if (!docs) fail(name, 'ships no dist/docs/index.html (the offline API reference the CLI serves at /docs)');
  else if (!docs.includes('<div id="redoc">')) fail(name, 'dist/docs/index.html is not the Redoc page');
  const sdk = packed.files.get('dist/docs/client/index.html')?.data.toString('utf8');
  if (!sdk) fail(name, 'ships no dist/docs/client/index.html (the SDK reference the CLI serves at /docs/client/)');
  else if (!sdk.includes('Leasehold SDK reference')) fail(name, 'dist/docs/client/index.html is not the SDK reference');
  const python = packed.files.get('dist/docs/python/index.html')?.data.toString('utf8');
  if (!python) fail(name, 'ships no dist/docs/python/index.html (the Python SDK reference the CLI serves at /docs/python/)');
  else if (!python.includes('id="Leasehold"')) fail(name, 'dist/docs/python/index.html is not the Python SDK reference');
  const spec = JSON.parse(readFileSync(join(ROOT, 'spec/dist/openapi.json'), 'utf8'));
  const js = [...packed.files].filter(([path]) => path.endsWith('.js') && !path.startsWith('dist/docs/')).map(([, file]) => file.data.toString('utf8')).join('\n');
  const operations = Object.values(spec.paths).flatMap((item) => Object.values(item).map((op) => op.operationId).filter(Boolean));
  const missing = operations.filter((id) => !js.includes(`"${id}"`));
  if (!js.includes(JSON.stringify(spec.info.title)) || missing.length > 0) {
    fail(name, `the bundled OpenAPI document is not embedded in dist (missing: ${missing.slice(0, 5).join(', ') || spec.info.title})`);
  }
}

function checkClientContents(packed) {
  const js = [...packed.files].filter(([path]) => path.endsWith('.js')).map(([, file]) => file.data.toString('utf8')).join('\n');
  if (/\bzod\b|ZodError|\$ZodType/.test(js)) fail(packed.name, 'dist contains zod: the client must not bundle (or import) it');
  if (js.includes('__LEASEHOLD_VERSION__')) fail(packed.name, 'dist still reads its version at runtime: tsup define of __LEASEHOLD_VERSION__ did not apply');
  if (!js.includes(`"${packed.version}"`)) fail(packed.name, `dist does not carry its version ${packed.version}`);
  // The browser entry and what it imports: no undici, no node: module (tests/packaging bundles it for the browser too).
  const browserGraph = new Set();
  const visit = (path) => {
    if (browserGraph.has(path) || !packed.files.has(path)) return;
    browserGraph.add(path);
    for (const specifier of importSpecifiers(packed.files.get(path).data.toString('utf8'))) {
      if (specifier.startsWith('.')) visit(posix.normalize(posix.join(posix.dirname(path), specifier)));
      else fail(packed.name, `the browser entry imports ${specifier} (through ${path}): it must import nothing outside its own files`);
    }
  };
  visit('dist/browser.js');
  if (!browserGraph.has('dist/browser.js')) fail(packed.name, 'ships no dist/browser.js (the browser export condition)');
}

async function runPublint(packed) {
  const data = readFileSync(packed.tarball);
  const tarball = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
  const { messages, pkg } = await publint({ pack: { tarball }, level: 'suggestion', strict: true });
  for (const message of messages) fail(packed.name, `publint ${message.type} ${message.code}: ${formatMessage(message, pkg, { color: false })}`);
  return messages.length;
}

function runAttw(packed) {
  const result = spawnSync(
    join(ROOT, 'node_modules/.bin/attw'),
    [packed.tarball, '--profile', 'node16', '--ignore-rules', 'cjs-resolves-to-esm', '--no-definitely-typed', '--format', 'table-flipped', '--no-color', '--no-emoji'],
    { cwd: ROOT, encoding: 'utf8' },
  );
  if (result.status !== 0) fail(packed.name, `attw --profile node16 failed (exit ${result.status ?? result.signal}):\n${result.stdout}${result.stderr}`);
  return result.status === 0;
}

if (!skipBuild) {
  console.log('check:packages: pnpm build');
  execFileSync('pnpm', ['build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}
const destination = keep ? resolve(keep) : mkdtempSync(join(tmpdir(), 'leasehold-pack-'));
try {
  console.log(`check:packages: pnpm pack → ${destination}`);
  const packages = packPackages(destination);
  const manifests = new Map();
  for (const packed of packages) {
    const manifest = JSON.parse(packed.files.get('package.json').data.toString('utf8'));
    manifests.set(packed.name, manifest);
    checkManifest(packed, manifest);
    checkFiles(packed, manifest);
    if (packed.name === '@leasehold/server') checkServerContents(packed);
    if (packed.name === '@leasehold/client') checkClientContents(packed);
    const publintMessages = await runPublint(packed);
    const attwPassed = runAttw(packed);
    console.log(
      `  ${packed.name}@${packed.version}  ${kib(packed.bytes)} packed, ${packed.files.size} files;` +
        ` publint: ${publintMessages === 0 ? 'clean' : `${publintMessages} message(s)`}; attw (node16, CJS via require(esm)): ${attwPassed ? 'no problems' : 'PROBLEMS'}`,
    );
  }
  checkBundledServerRanges(manifests.get('@leasehold/msw'), manifests.get('@leasehold/server'));
  const client = packages.find((packed) => packed.name === '@leasehold/client');
  const size = measureTarball(client.tarball);
  console.log(`  @leasehold/client packed size ${kib(size.packedBytes)} of its ${kib(PACKED_BUDGET_BYTES)} budget`);
  if (size.packedBytes > PACKED_BUDGET_BYTES) {
    fail(client.name, `packed size ${kib(size.packedBytes)} is over its budget of ${kib(PACKED_BUDGET_BYTES)} (scripts/client-size.mjs)`);
  }
} finally {
  if (!keep) rmSync(destination, { recursive: true, force: true });
}

const seconds = ((performance.now() - started) / 1000).toFixed(1);
if (failures.length > 0) {
  console.error(`check:packages: ${failures.length} problem(s) in ${seconds} s:\n${failures.map((failure) => `  ✗ ${failure}`).join('\n')}`);
  process.exitCode = 1;
} else {
  console.log(`check:packages: all three packages pass (${seconds} s)`);
}
