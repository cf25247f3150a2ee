// The CHANGELOG is produced by changesets: `changeset version` run on a scratch copy of the
// workspace manifests and .changeset/ (the real CLI, the repository's config) writes each
// published package's CHANGELOG.md with every pending changeset naming it under the next version — the
// exact file the release commit will carry (README, "Releasing").
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PUBLISHED = ['client', 'server', 'msw'];
const scratch = mkdtempSync(join(tmpdir(), 'leasehold-changelog-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Each pending changeset: the packages it names and the first line of its summary. */
function pendingChangesets(): { packages: string[]; summary: string }[] {
  return readdirSync(join(ROOT, '.changeset'))
    .filter((name) => name.endsWith('.md') && name !== 'README.md')
    .map((name) => {
      const [, front, body] = readFileSync(join(ROOT, '.changeset', name), 'utf8').split(/^---$/m);
      const packages = [...front!.matchAll(/'@leasehold\/([\w-]+)'\s*:/g)].map((match) => match[1]!);
      return { packages, summary: body!.trim().split('\n')[0]! };
    });
}

it('changeset version writes a CHANGELOG.md per package with every pending changeset', () => {
  for (const file of ['package.json', 'pnpm-workspace.yaml']) cpSync(join(ROOT, file), join(scratch, file));
  writeFileSync(join(scratch, 'pnpm-workspace.yaml'), "packages:\n  - packages/*\n");
  cpSync(join(ROOT, '.changeset'), join(scratch, '.changeset'), { recursive: true });
  for (const pkg of [...PUBLISHED, 'protocol']) {
    mkdirSync(join(scratch, 'packages', pkg), { recursive: true });
    cpSync(join(ROOT, 'packages', pkg, 'package.json'), join(scratch, 'packages', pkg, 'package.json'));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(scratch, 'node_modules'), 'dir');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=ci@leasehold.invalid', '-c', 'user.name=ci', ...args], { cwd: scratch, stdio: 'pipe' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'scratch');
  execFileSync(join(ROOT, 'node_modules/.bin/changeset'), ['version'], { cwd: scratch, stdio: 'pipe' });

  const changesets = pendingChangesets();
  expect(changesets.length).toBeGreaterThan(0);
  const versions = new Set<string>();
  for (const pkg of PUBLISHED) {
    const version = (JSON.parse(readFileSync(join(scratch, 'packages', pkg, 'package.json'), 'utf8')) as { version: string }).version;
    versions.add(version);
    const changelog = readFileSync(join(scratch, 'packages', pkg, 'CHANGELOG.md'), 'utf8');
    expect(changelog.startsWith(`# @leasehold/${pkg}\n\n## ${version}\n`), changelog.slice(0, 200)).toBe(true);
    for (const { packages, summary } of changesets) if (packages.includes(pkg)) expect(changelog, `${pkg}'s CHANGELOG`).toContain(summary);
  }
  expect(versions.size).toBe(1); // the fixed group: one version
}, 60_000);
