#!/usr/bin/env node
// The size budget of @leasehold/client: what `npm install` downloads (the packed tarball) and
// what `import('@leasehold/client')` costs a fresh Node process, next to `import('undici')`, its
// only dependency, measured in the same run. The results belong in packages/client/README.md
// ("Size"); scripts/check-packages.mjs fails when the packed size is over the budget below.
//   node scripts/client-size.mjs [--runs N] [--tarball <client .tgz>] [--check] [--json]
// (`pnpm size:client`; the client must be built: `pnpm build`.)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGES, ROOT, packPackage, readTarball } from './pack-packages.mjs';

/** The packed tarball may not exceed this (about 30% over the 84.5 KiB measured for 0.1.0). */
export const PACKED_BUDGET_BYTES = 110 * 1024;

const CLIENT = PACKAGES.find((pkg) => pkg.name === '@leasehold/client');
const CLIENT_DIR = join(ROOT, CLIENT.dir);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/**
 * Milliseconds one fresh `node` spends in `await import(specifier)`, resolved from
 * packages/client: `@leasehold/client` is the package's own name there (self-reference through
 * its `exports`, so the built dist/index.js that ships), `undici` its installed dependency.
 */
function importOnce(specifier) {
  const code = `const t = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - t));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '--eval', code], { cwd: CLIENT_DIR, encoding: 'utf8' });
  return Number(out);
}

/** Median import times of the client and of undici over `runs` alternating fresh processes (after one warm-up each). */
export function measureImportCost(runs = 15) {
  importOnce('undici');
  importOnce('@leasehold/client');
  const client = [];
  const undici = [];
  for (let i = 0; i < runs; i++) {
    undici.push(importOnce('undici'));
    client.push(importOnce('@leasehold/client'));
  }
  return { runs, clientMs: median(client), undiciMs: median(undici) };
}

/** Sizes of a packed client tarball: packed bytes, unpacked bytes, and the JS and .d.ts in it. */
export function measureTarball(tarball) {
  const files = readTarball(tarball);
  const bytesOf = (path) => files.get(path)?.data.length ?? 0;
  return {
    tarball,
    packedBytes: statSync(tarball).size,
    unpackedBytes: [...files.values()].reduce((sum, file) => sum + file.data.length, 0),
    jsBytes: bytesOf('dist/index.js'),
    dtsBytes: bytesOf('dist/index.d.ts'),
  };
}

/** Everything: packs the client unless a tarball is given, then measures both. */
export function measureClientSize({ tarball, runs = 15 } = {}) {
  let scratch;
  try {
    if (tarball === undefined) {
      scratch = mkdtempSync(join(tmpdir(), 'leasehold-client-size-'));
      tarball = packPackage(CLIENT, scratch).tarball;
    }
    const sizes = measureTarball(tarball);
    const cost = measureImportCost(runs);
    return { ...sizes, tarball: scratch ? undefined : tarball, ...cost, budgetBytes: PACKED_BUDGET_BYTES, withinBudget: sizes.packedBytes <= PACKED_BUDGET_BYTES };
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

/** The report as lines of text. */
export function formatClientSize(result) {
  return [
    `@leasehold/client size (node ${process.version}, ${result.runs} runs each, medians)`,
    `  packed tarball   ${kib(result.packedBytes)}  (budget ${kib(result.budgetBytes)}: ${result.withinBudget ? 'within' : 'OVER'})`,
    `  unpacked         ${kib(result.unpackedBytes)}  (dist/index.js ${kib(result.jsBytes)}, dist/index.d.ts ${kib(result.dtsBytes)})`,
    `  import cost      ${result.clientMs.toFixed(1)} ms for import('@leasehold/client')`,
    `  baseline         ${result.undiciMs.toFixed(1)} ms for import('undici') alone; the client adds ${(result.clientMs - result.undiciMs).toFixed(1)} ms`,
  ];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const value = (flag) => {
    const index = args.indexOf(flag);
    return index >= 0 ? args[index + 1] : undefined;
  };
  const runs = Number(value('--runs') ?? 15);
  if (!Number.isInteger(runs) || runs < 1) {
    console.error('Usage: node scripts/client-size.mjs [--runs N] [--tarball <client .tgz>] [--check] [--json]');
    process.exit(2);
  }
  const tarball = value('--tarball');
  const result = measureClientSize({ tarball: tarball === undefined ? undefined : resolve(tarball), runs });
  console.log(args.includes('--json') ? JSON.stringify(result, null, 2) : formatClientSize(result).join('\n'));
  if (args.includes('--check') && !result.withinBudget) {
    console.error(`client-size: the packed client is ${kib(result.packedBytes)}, over its budget of ${kib(result.budgetBytes)}`);
    process.exitCode = 1;
  }
}
