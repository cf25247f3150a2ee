/**
 * Getting Leasehold as a new user: nothing is published to npm yet, so the docs promise no `npx`
 * or `npm install` from the registry as working; `scripts/install-local.sh` is the one command
 * that installs it from the checkout; every script the README names exists and does what it says.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The pages a new user reads to get the server running (packages/client/README.md is its helper's). */
const PAGES = [
  'README.md',
  'packages/server/README.md',
  ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`),
  ...readdirSync(join(ROOT, 'examples')).map((name) => `examples/${name}/README.md`).filter((path) => existsSync(join(ROOT, path))),
];

describe('installing Leasehold as a new user', () => {
  it('promises no npx of the unpublished package as working: each mention says it fails', () => {
    for (const page of PAGES) {
      for (const line of read(page).split('\n')) {
        if (!line.includes('npx @leasehold/')) continue;
        expect(line, `${page}: ${line}`).toMatch(/not work|fail|not on the npm registry/);
      }
    }
  });

  it('names one command that installs from the checkout, and it exists', () => {
    expect(read('README.md')).toContain('bash scripts/install-local.sh ../my-worker');
    expect(read('packages/server/README.md')).toContain('bash scripts/install-local.sh');
    const usage = spawnSync('bash', [join(ROOT, 'scripts/install-local.sh')], { encoding: 'utf8' });
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('Usage: bash scripts/install-local.sh <project dir>');
  });

  it('names only scripts that exist, and the one it says installs Chromium does', () => {
    const readme = read('README.md');
    for (const [, script] of readme.matchAll(/scripts\/([a-z-]+\.(?:sh|mjs))/g)) expect(existsSync(join(ROOT, 'scripts', script!)), script).toBe(true);
    expect(readme).toMatch(/`scripts\/install-chromium\.sh` installs Chromium/);
    expect(read('scripts/install-chromium.sh')).toMatch(/apt-install\.sh"? [^\n]*\bchromium$/m);
    expect(read('scripts/apt-install.sh')).toMatch(/apt-get install -y[^\n]*"\$@"/);
    expect(read('scripts/bootstrap.sh').toLowerCase()).not.toContain('chromium');
    expect(readme).not.toMatch(/bootstrap\.sh` installs\s+Chromium/);
  });
});
