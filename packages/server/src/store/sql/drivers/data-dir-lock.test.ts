import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { DataDirLockedError, LOCK_FILE, lockDataDir, type LockHolder } from './data-dir-lock.js';

const LOCK_MODULE = fileURLToPath(new URL('./data-dir-lock.ts', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'leasehold-lock-'));
  dirs.push(dir);
  return dir;
}

/** A process that ran and exited: its pid is free (reuse within a test is practically impossible). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

/** A process that stays alive until the test ends. */
async function livePid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'process.stdout.write("up"); setInterval(() => {}, 1000)'], { stdio: ['ignore', 'pipe', 'ignore'] });
  onTestFinished(() => void child.kill('SIGKILL'));
  await new Promise((resolve) => child.stdout!.once('data', resolve));
  return child.pid!;
}

function ticksOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
}

function writeHolder(dir: string, holder: Partial<LockHolder>): void {
  const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  const full: LockHolder = { pid: 1, startTicks: null, bootId, host: hostname(), since: '2026-01-01T00:00:00.000Z', token: 'old', ...holder };
  writeFileSync(join(dir, LOCK_FILE), JSON.stringify(full));
}

const onLinux = existsSync('/proc/self/stat');

describe('lockDataDir', () => {
  it('creates leasehold.pid owner-only naming this process, refuses a second lock in the same process, and removes it on release', () => {
    const dir = scratch();
    const lock = lockDataDir(dir);
    const holder = JSON.parse(readFileSync(lock.path, 'utf8')) as LockHolder;
    expect(holder).toMatchObject({ pid: process.pid, host: hostname() });
    expect(statSync(lock.path).mode & 0o777).toBe(0o600);
    expect(() => lockDataDir(dir)).toThrow(/already open in this process/);
    lock.release();
    lock.release();
    expect(existsSync(lock.path)).toBe(false);
    lockDataDir(dir).release();
  });

  it.runIf(onLinux)('refuses a directory whose holder runs, naming its pid', async () => {
    const dir = scratch();
    const pid = await livePid();
    writeHolder(dir, { pid, startTicks: ticksOf(pid) });
    let error: unknown;
    try {
      lockDataDir(dir);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DataDirLockedError);
    expect((error as Error).message).toMatch(new RegExp(`in use by process ${pid} \\(since 2026-01-01T00:00:00.000Z\\): stop it first`));
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid, token: 'old' });
  });

  it.runIf(onLinux)('recovers the stale lock of a dead process, of a reused pid (another start time), of an earlier boot and of its own pid', async () => {
    const live = await livePid();
    for (const holder of [
      { pid: deadPid() },
      { pid: live, startTicks: String(Number(ticksOf(live)) - 1) },
      { pid: live, startTicks: ticksOf(live), bootId: '00000000-0000-0000-0000-000000000000' },
      { pid: process.pid, startTicks: ticksOf(process.pid) },
    ]) {
      const dir = scratch();
      writeHolder(dir, holder);
      const lock = lockDataDir(dir);
      expect(JSON.parse(readFileSync(lock.path, 'utf8')), JSON.stringify(holder)).toMatchObject({ pid: process.pid });
      expect(existsSync(join(dir, `${LOCK_FILE}.recovery`))).toBe(false);
      lock.release();
    }
  });

  it('refuses a lock taken on another host, and a file that is no lock, saying what to delete', () => {
    const dir = scratch();
    writeHolder(dir, { pid: 4242, host: 'other-host' });
    expect(() => lockDataDir(dir)).toThrow(/in use by process 4242 on host other-host .*if no server uses the directory any more, delete .*leasehold\.pid/);
    writeFileSync(join(dir, LOCK_FILE), 'garbage');
    expect(() => lockDataDir(dir)).toThrow(/cannot be read as a lock; if no server uses .* delete/);
  });

  it.runIf(onLinux)('clears the recovery file of a recoverer that died, and refuses while a live one recovers', async () => {
    const dir = scratch();
    writeHolder(dir, { pid: deadPid() });
    const live = await livePid();
    writeFileSync(join(dir, `${LOCK_FILE}.recovery`), JSON.stringify({ pid: live, startTicks: ticksOf(live), bootId: null, host: hostname(), since: 'x', token: 'r' }));
    expect(() => lockDataDir(dir)).toThrow(new RegExp(`process ${live} is starting on it right now`));
    writeFileSync(join(dir, `${LOCK_FILE}.recovery`), JSON.stringify({ pid: deadPid(), startTicks: null, bootId: null, host: hostname(), since: 'x', token: 'r' }));
    const lock = lockDataDir(dir);
    expect(existsSync(join(dir, `${LOCK_FILE}.recovery`))).toBe(false);
    lock.release();
  });

  it.runIf(onLinux)('lets exactly one of several processes recovering one stale lock at once win', async () => {
    const dir = scratch();
    writeHolder(dir, { pid: deadPid() });
    const script = `
      const { lockDataDir } = await import(${JSON.stringify(LOCK_MODULE)});
      const start = Number(process.argv[1]);
      while (Date.now() < start) {}
      try { lockDataDir(process.argv[2]); process.stdout.write('won'); setInterval(() => {}, 1000); }
      catch (error) { process.stdout.write('lost: ' + error.message); }`;
    // Each child spins until the same instant, then races; the winner keeps its lock until killed.
    const start = Date.now() + 3_000;
    const children = Array.from({ length: 4 }, () =>
      spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, String(start), dir], { stdio: ['ignore', 'pipe', 'inherit'] }),
    );
    onTestFinished(() => children.forEach((child) => child.kill('SIGKILL')));
    const outcomes = await Promise.all(
      children.map((child) => new Promise<string>((resolve) => {
        let out = '';
        child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
          out += chunk;
          if (out.startsWith('won') || (out.startsWith('lost') && child.exitCode !== null)) resolve(out);
        });
        child.once('exit', () => resolve(out));
      })),
    );
    expect(outcomes.filter((outcome) => outcome === 'won'), outcomes.join('\n')).toHaveLength(1);
    for (const outcome of outcomes.filter((o) => o !== 'won')) expect(outcome).toMatch(/^lost: (it is in use by process \d+|process \d+ is starting on it right now)/);
  }, 30_000);
});
