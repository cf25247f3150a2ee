#!/usr/bin/env node
// Packs the publishable packages with `pnpm pack` (which rewrites `workspace:` and `catalog:`
// ranges to real ones and runs each package's `prepack`, e.g. the server's API reference copy)
// into a directory, and reads the tarballs back. Used by scripts/check-packages.mjs,
// scripts/client-size.mjs and tests/packaging/consumer.test.ts. The packages must be built.
//   node scripts/pack-packages.mjs <dir>     packs all three into <dir> and lists what each holds
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import lockfile from 'proper-lockfile';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The published packages, in dependency order. */
export const PACKAGES = [
  { name: '@leasehold/client', dir: 'packages/client' },
  { name: '@leasehold/server', dir: 'packages/server' },
  { name: '@leasehold/msw', dir: 'packages/msw' },
];

/** The newest modification time (ms) of any file under `dir` whose name passes `keep`. */
function newestMtime(dir, keep) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path, keep));
    else if (keep(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Why a package's dist cannot be packed as it is (missing, or older than its sources), or
 * undefined when it is built and up to date.
 */
export function staleBuild(pkg) {
  const dir = join(ROOT, pkg.dir);
  const entry = join(dir, 'dist/index.js');
  if (!existsSync(entry)) return `${pkg.dir}/dist is missing`;
  const built = statSync(entry).mtimeMs;
  const sources = newestMtime(join(dir, 'src'), (name) => name.endsWith('.ts') && !/\.test(-d)?\.ts$/.test(name));
  const config = Math.max(...['package.json', 'tsup.config.ts'].map((file) => statSync(join(dir, file)).mtimeMs));
  if (Math.max(sources, config) > built) return `${pkg.dir}/dist is older than its sources`;
  return undefined;
}

/**
 * Runs `pnpm build` at the root when any package's dist is missing or stale; answers whether it
 * did. Test files run in parallel workers: the check and the build hold a lock (proper-lockfile,
 * on the repository's tmp/), so one worker builds while the others wait and then find it fresh.
 */
export async function buildIfStale({ log = () => {} } = {}) {
  if (PACKAGES.every((pkg) => staleBuild(pkg) === undefined)) return false;
  const lockDir = join(ROOT, 'tmp');
  mkdirSync(lockDir, { recursive: true });
  const release = await lockfile.lock(lockDir, {
    lockfilePath: join(lockDir, 'build.lock'),
    stale: 60_000,
    retries: { retries: 600, minTimeout: 200, maxTimeout: 1_000 },
  });
  try {
    const reasons = PACKAGES.map(staleBuild).filter((reason) => reason !== undefined);
    if (reasons.length === 0) return false;
    log(`${reasons.join('; ')}: running pnpm build`);
    execFileSync('pnpm', ['build'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
    return true;
  } finally {
    await release();
  }
}

/**
 * Reads a .tgz made by `pnpm pack`/`npm pack`: answers its files (path without the `package/`
 * prefix → contents and mode). Plain ustar, as both write it, with pax/GNU long names handled.
 */
export function readTarball(file) {
  const tar = gunzipSync(readFileSync(file));
  const files = new Map();
  let offset = 0;
  let longName;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    const field = (start, length) => header.subarray(start, start + length).toString('utf8').replace(/\0.*$/s, '');
    const size = Number.parseInt(field(124, 12).trim() || '0', 8);
    const mode = Number.parseInt(field(100, 8).trim() || '0', 8);
    const type = field(156, 1) || '0';
    const prefix = field(345, 155);
    const body = tar.subarray(offset + 512, offset + 512 + size);
    offset += 512 + Math.ceil(size / 512) * 512;
    if (type === 'x') {
      const path = /\d+ path=([^\n]*)\n/.exec(body.toString('utf8'));
      if (path) longName = path[1];
      continue;
    }
    if (type === 'L') {
      longName = body.toString('utf8').replace(/\0.*$/s, '');
      continue;
    }
    const name = longName ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100));
    longName = undefined;
    if (type !== '0' && type !== '\0') continue;
    files.set(name.replace(/^[^/]+\//, ''), { data: Buffer.from(body), mode });
  }
  return files;
}

/**
 * Packs one package into `destination` with `pnpm pack`; answers the tarball's path, its size
 * in bytes and its files.
 */
export function packPackage(pkg, destination) {
  mkdirSync(destination, { recursive: true });
  const output = execFileSync('pnpm', ['pack', '--pack-destination', destination, '--json'], {
    cwd: join(ROOT, pkg.dir),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const report = JSON.parse(output.slice(output.indexOf('{')));
  const tarball = resolve(destination, report.filename);
  return { ...pkg, version: report.version, tarball, bytes: statSync(tarball).size, files: readTarball(tarball) };
}

/** Packs every package into `destination`. */
export function packPackages(destination) {
  return PACKAGES.map((pkg) => packPackage(pkg, destination));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const destination = process.argv[2];
  if (!destination) {
    console.error('Usage: node scripts/pack-packages.mjs <dir>');
    process.exit(2);
  }
  for (const packed of packPackages(resolve(destination))) {
    console.log(`${packed.tarball} (${(packed.bytes / 1024).toFixed(1)} KiB)`);
    for (const [path, { data }] of [...packed.files].sort(([a], [b]) => a.localeCompare(b))) {
      console.log(`  ${path.padEnd(40)} ${(data.length / 1024).toFixed(1).padStart(8)} KiB`);
    }
  }
}
