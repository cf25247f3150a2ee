// The release set-up stays consistent: the three published packages version together (a fixed
// changesets group, one version in their package.json files), and every file changesets reads in
// .changeset/ is a valid changeset (a stray .md there makes `pnpm changeset version` fail).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PACKAGES, ROOT } from '../../scripts/pack-packages.mjs';

const CHANGESET_DIR = join(ROOT, '.changeset');
const manifest = (dir: string) => JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as Record<string, any>;
const published = PACKAGES.map((pkg) => pkg.name);

describe('release configuration', () => {
  it('versions the three packages as one fixed, public group released from main', () => {
    const config = JSON.parse(readFileSync(join(CHANGESET_DIR, 'config.json'), 'utf8'));
    expect(config.fixed).toEqual([published]);
    expect(config).toMatchObject({ access: 'public', baseBranch: 'main', privatePackages: { version: false, tag: false } });
    const versions = new Set(PACKAGES.map((pkg) => manifest(pkg.dir).version));
    expect(versions.size, `versions: ${[...versions].join(', ')}`).toBe(1);
    // The mock bundles the server's portable part at build time: the server is a dev dependency of it, never a run-time one.
    expect(manifest('packages/msw').devDependencies['@leasehold/server']).toBe('workspace:*');
    expect(manifest('packages/msw').dependencies['@leasehold/server']).toBeUndefined();
  });

  it('has only valid changesets in .changeset/', () => {
    const files = readdirSync(CHANGESET_DIR).filter((file) => file.endsWith('.md') && !file.startsWith('.') && !/^README\.md$/i.test(file));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const text = readFileSync(join(CHANGESET_DIR, file), 'utf8');
      const match = /^---\r?\n([\s\S]*?)\r?\n?---(\r?\n|$)/.exec(text);
      expect(match, `${file} must start with --- frontmatter ---`).not.toBeNull();
      const releases = (parse(match![1]!) ?? {}) as Record<string, unknown>;
      expect(typeof releases, file).toBe('object');
      for (const [name, bump] of Object.entries(releases)) {
        expect(published, `${file} names ${name}`).toContain(name);
        expect(['patch', 'minor', 'major', 'none'], `${file}: ${name}: ${String(bump)}`).toContain(bump);
      }
    }
  });
});
