/**
 * `leasehold-server --store <dir>` as an operator runs it, the CLI as a plain `node` child: one
 * process per directory (leasehold.pid, recovered after a kill -9), owner-only files under
 * umask 022, and `--store` values that are neither a URL nor an explicit path refused before
 * anything is written.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnCli, type CliProcess, type CliSpawnOptions } from '../support/cli-process.js';
import { seedPgliteDirectory } from '../support/pglite-template.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'leasehold-embedded-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function cli(args: string[], options: CliSpawnOptions = {}): CliProcess {
  const run = spawnCli(args, {}, options);
  cleanups.push(() => run.kill());
  return run;
}

/** Modes wider than owner-only under `dir` (directories and files), as `path mode` lines. */
function widerThanOwner(dir: string): string[] {
  const wide: string[] = [];
  const visit = (path: string) => {
    const stat = statSync(path);
    if ((stat.mode & 0o077) !== 0) wide.push(`${path} ${(stat.mode & 0o777).toString(8)}`);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return wide;
}

describe('leasehold-server --store <directory>', () => {
  it('lets one process own a directory: a second one and migrate are refused naming it and the pid; after a kill -9 a restart recovers the lock; files are owner-only', async () => {
    const data = join(scratch(), 'data');
    await seedPgliteDirectory(data);
    // The seeded files are PGlite's (0666 whatever the umask): the server must take that back.
    expect(widerThanOwner(data).length).toBeGreaterThan(0);

    const first = cli(['--port', '0', '--store', data], { umask: '022' });
    const url = await first.listening(60_000);
    const lock = JSON.parse(readFileSync(join(data, 'leasehold.pid'), 'utf8')) as { pid: number };
    expect(lock.pid).toBe(first.child.pid);
    expect(widerThanOwner(data)).toEqual([]);

    for (const args of [['--port', '0', '--store', data], ['migrate', '--store', data]]) {
      const second = cli(args);
      expect(await second.exited, args.join(' ')).toBe(1);
      expect(second.output()).toContain(`leasehold-server: Cannot open the embedded store in ${data}: it is in use by process ${first.child.pid}`);
      expect(second.output()).toMatch(/stop it first/);
    }
    // The first still serves, alone.
    expect((await fetch(`${url}/v1/spaces/6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a/claims`, { headers: { authorization: 'Bearer lh_test_admin' } })).status).toBe(200);

    await first.kill();
    expect(existsSync(join(data, 'leasehold.pid'))).toBe(true);
    const after = cli(['--port', '0', '--store', data], { umask: '022' });
    await after.listening(60_000);
    expect(JSON.parse(readFileSync(join(data, 'leasehold.pid'), 'utf8'))).toMatchObject({ pid: after.child.pid });
    await after.stop();
    expect(await after.exited).toBe(0);
    expect(existsSync(join(data, 'leasehold.pid'))).toBe(false);
    expect(widerThanOwner(data)).toEqual([]);
  }, 150_000);

  it('keeps a new directory owner-only: after its migrations, after writes and after a clean stop', async () => {
    // A new directory runs every migration, and closing checkpoints: PGlite writes files 0666 in both.
    const data = join(scratch(), 'new-store');
    const run = cli(['--port', '0', '--store', data], { umask: '022' });
    const url = await run.listening(90_000);
    expect(widerThanOwner(data)).toEqual([]);
    const created = await fetch(`${url}/v1/tasks`, {
      method: 'POST',
      headers: { authorization: 'Bearer lh_test_admin', 'content-type': 'application/json', 'idempotency-key': 'owner-only-files' },
      body: JSON.stringify({ title: 'owner-only files' }),
    });
    expect(created.status).toBe(201);
    await run.stop();
    expect(await run.exited).toBe(0);
    expect(widerThanOwner(data)).toEqual([]);
  }, 150_000);

  it('refuses a mistyped URL and a bare relative name before writing anything, with the password hidden', async () => {
    // The CLI runs in the repository root: before the rule these became directories there.
    // One child (each costs a few seconds to start); the rule's other cases: parseStoreTarget's unit test.
    for (const value of ['postgres//leasehold:s3cret@db.example/leasehold']) {
      const run = cli(['--port', '0', '--store', value]);
      expect(await run.exited, value).toBe(1);
      expect(run.output()).toMatch(/use memory, a postgres:\/\/ URL or a directory path \(absolute, or starting with \.\/, \.\.\/ or ~\/, e\.g\. \.\/leasehold-data\)/);
      expect(run.output()).not.toContain('s3cret');
    }
    for (const made of ['postgres', 'postgres/']) expect(existsSync(join(ROOT, made)), made).toBe(false);
  }, 60_000);

  it('says what is wrong with a path that cannot hold a store, and how to fix it', async () => {
    const root = scratch();
    const file = join(root, 'a-file');
    writeFileSync(file, '');
    // A directory this user cannot write: as root, the server runs as nobody; else the directory is read-only.
    const readOnly = join(root, 'read-only');
    mkdirSync(readOnly, { mode: 0o755 });
    chmodSync(root, 0o755); // mkdtemp's 0700 would stop nobody one level up
    const asRoot = process.getuid?.() === 0;
    if (!asRoot) chmodSync(readOnly, 0o555);
    // Three children at once (each costs seconds to start on a busy machine).
    const notDir = cli(['--port', '0', '--store', file]);
    const under = cli(['--port', '0', '--store', join(file, 'data')]);
    const denied = cli(['--port', '0', '--store', readOnly], asRoot ? { uid: 65534, gid: 65534 } : {});
    expect(await Promise.all([notDir.exited, under.exited, denied.exited])).toEqual([1, 1, 1]);
    expect(notDir.output()).toContain(`Cannot open the embedded store in ${file}: it exists and is not a directory`);
    expect(under.output()).toMatch(/cannot create the directory \(ENOTDIR\): check that its parent exists, is a directory and is writable/);
    expect(denied.output()).toMatch(
      new RegExp(`Cannot open the embedded store in ${readOnly}: the directory is not readable and writable by this user \\(uid \\d+; EACCES\\): run the server as its owner, or give it the directory \\(chown -R, chmod 700\\)`),
    );
    for (const run of [notDir, under, denied]) expect(run.output()).not.toMatch(/undefined/);
  }, 120_000);
});
