import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** A package as npm installed it: its directory and the names it depends on at run time. */
interface InstalledPackage {
  dir: string;
  dependencies: string[];
}

/** Finds where `name` resolves from `fromDir` (Node's lookup: each ancestor's node_modules). */
function resolveInstalled(name: string, fromDir: string, root: string): InstalledPackage | undefined {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) {
      const manifest = JSON.parse(readFileSync(join(candidate, 'package.json'), 'utf8')) as {
        dependencies?: Record<string, string>;
        optionalDependencies?: Record<string, string>;
      };
      const dependencies = Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies });
      return { dir: candidate, dependencies };
    }
    if (dir === root || dirname(dir) === dir) return undefined;
  }
}

/** The directories of `names` and of everything they depend on at run time (peers excluded), as installed under `project`. */
export function installedClosure(project: string, names: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const walk = (name: string, fromDir: string): void => {
    const found = resolveInstalled(name, fromDir, project);
    if (found === undefined || seen.has(found.dir)) return;
    seen.add(found.dir);
    for (const dependency of found.dependencies) walk(dependency, found.dir);
  };
  for (const name of names) walk(name, project);
  return seen;
}

/** Bytes of the files under `dir`, leaving out nested `node_modules` (installed packages of their own). */
export function packageBytes(dir: string): number {
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) bytes += packageBytes(path);
    else bytes += lstatSync(path).size;
  }
  return bytes;
}

/**
 * What installing `name` adds to a project beyond `besides` (its peers, say): the bytes of every
 * package in its run-time dependency closure that is not also in theirs, largest first.
 */
export function installCost(project: string, name: string, besides: readonly string[]): { bytes: number; packages: Array<[string, number]> } {
  const shared = installedClosure(project, besides);
  const packages: Array<[string, number]> = [];
  for (const dir of installedClosure(project, [name])) {
    if (!shared.has(dir)) packages.push([dir.slice(project.length + 1), packageBytes(dir)]);
  }
  packages.sort((a, b) => b[1] - a[1]);
  return { bytes: packages.reduce((sum, [, bytes]) => sum + bytes, 0), packages };
}
